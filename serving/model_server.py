"""A model server on a SavedModel, in a process of its own, asked over its REST API.

TF Serving's ``tensorflow_model_server`` where it is on the PATH; else the stand-in
(``standin_server.py``) run by this Python in isolated mode. Both take the same flags and
a base path whose numbered folders are versions: the model is copied into a fresh one,
so the server reads a local folder whatever file system the pipeline root is on.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_layout import serving_layout
from data_layout.properties import STANDIN, TF_SERVING

STANDIN_SCRIPT = Path(__file__).resolve().parent / "standin_server.py"
MODEL_NAME = "candidate"
# TFX's InfraValidator waits as long for a model to load (ServingSpec's default).
LOAD_TIMEOUT_S = 300.0
REQUEST_TIMEOUT_S = 60.0


class ServerError(RuntimeError):
    """The model server did not start, did not load the model, or refused a request."""


@dataclass(frozen=True)
class Server:
    """A running model server: what it is, where it answers, and how long it took to load."""

    kind: str
    url: str
    load_s: float

    def get(self, path: str = "") -> dict[str, Any]:
        """``GET /v1/models/<name><path>``'s JSON answer."""
        return _call(urllib.request.Request(self.url + path))

    def predict(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/models/<name>:predict``'s JSON answer; ServerError with its error."""
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        return _call(urllib.request.Request(self.url + ":predict", data, headers))


def _call(request: urllib.request.Request) -> dict[str, Any]:
    """One REST call's JSON answer; ServerError naming the server's error where it refused."""
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        said = refused.read().decode("utf-8", "replace")
        with contextlib.suppress(json.JSONDecodeError):  # else the text as it came
            said = json.loads(said).get("error", said)
        raise ServerError(f"HTTP {refused.code}: {said.strip().splitlines()[0][:300]}") from None


def server_kind() -> str:
    """``tensorflow_model_server`` when TF Serving's binary is on the PATH, else the stand-in's."""
    return TF_SERVING if shutil.which(TF_SERVING) else STANDIN


def _command(base: Path, rest_port: int, grpc_port: int) -> list[str]:
    flags = [f"--port={grpc_port}", f"--rest_api_port={rest_port}",
             f"--model_name={MODEL_NAME}", f"--model_base_path={base}"]  # fmt: skip
    found = shutil.which(TF_SERVING)
    return [found, *flags] if found else [sys.executable, "-I", str(STANDIN_SCRIPT), *flags]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["(nothing on its output)"])[-1].strip()[:300]


def _wait_until_available(process: subprocess.Popen, url: str, log: Path, timeout: float) -> None:
    """Poll the model's status until it is AVAILABLE; ServerError if the server ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            ended = f"the model server ended (exit {process.returncode})"
            raise ServerError(f"{ended}: {_last_line(log)}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                states = json.loads(answer.read()).get("model_version_status", [])
            if any(s.get("state") == "AVAILABLE" for s in states):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass  # not listening yet: the model is still loading
        time.sleep(0.05)
    raise ServerError(f"the model did not load within {timeout:.0f} s: {_last_line(log)}")


@contextmanager
def serving(model_dir: str, timeout: float = LOAD_TIMEOUT_S) -> Iterator[Server]:
    """A model server on the SavedModel at ``model_dir`` (any file system), stopped after."""
    with tempfile.TemporaryDirectory(prefix="serving-check-") as scratch:
        base = Path(scratch) / MODEL_NAME
        serving_layout.copy_tree(model_dir, str(base / "1"))
        log = Path(scratch) / "server.log"
        rest = _free_port()
        url = f"http://127.0.0.1:{rest}/v1/models/{MODEL_NAME}"
        started = time.monotonic()
        with log.open("w") as out:
            process = subprocess.Popen(
                _command(base, rest, _free_port()), stdout=out, stderr=subprocess.STDOUT
            )
        try:
            _wait_until_available(process, url, log, timeout)
            yield Server(server_kind(), url, time.monotonic() - started)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
