"""What the Trainer shows in TensorBoard: ReLU figures, weight histograms, HParams, profile.

The unit test checks the dead-unit figures on a model whose answer is known; the
slow test starts a real TensorBoard on the logs of the pipeline's Trainer and reads
what its dashboards would show from its HTTP data endpoints.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from run_commands import free_port

from modules import watch
from modules.hparams import HParams
from modules.keras_setup import keras
from pipeline_def import node_ids
from pipeline_ops.session.summary import SUCCEEDED, SUMMARY_FILE, RunSummary, print_closing


def _scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    found: dict[str, list[tuple[int, float]]] = {}
    for events in sorted(folder.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for value in event.summary.value:
                number = float(tf.make_ndarray(value.tensor))
                found.setdefault(value.tag, []).append((event.step, number))
    return found


def test_dead_units_counts_zero_activations_per_relu_layer(tmp_path):
    inputs = {"x": keras.Input(shape=(2,), name="x")}
    hidden = keras.layers.Dense(3, activation="relu", name="hidden_0")(inputs["x"])
    network = keras.Model(inputs, keras.layers.Dense(1, name="logit")(hidden))
    # Unit 0 passes x0, unit 1 passes -x0 (zero when x0 > 0), unit 2 is always zero.
    kernel = np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    network.get_layer("hidden_0").set_weights([kernel, np.array([0.0, 0.0, -1.0], np.float32)])
    batch = {"x": tf.constant([[1.0, 5.0], [2.0, 5.0], [-1.0, 5.0], [3.0, 5.0]])}
    callback = watch.DeadUnits(network, batch, str(tmp_path))
    for epoch in range(2):
        callback.on_epoch_end(epoch)
    scalars = _scalars(tmp_path / watch.ACTIVATIONS_RUN)
    # 12 activations: unit 0 is zero once, unit 1 three times, unit 2 four times.
    fractions = scalars["relu_zero_fraction/hidden_0"]
    assert [value for _, value in fractions] == pytest.approx([8 / 12] * 2)
    assert [step for step, _ in fractions] == [0, 1]
    assert scalars["relu_dead_units/hidden_0"] == [(0, 1.0), (1, 1.0)]
    assert set(scalars) == {"relu_zero_fraction/hidden_0", "relu_dead_units/hidden_0"}


def test_a_network_without_relu_is_refused():
    inputs = {"x": keras.Input(shape=(2,), name="x")}
    network = keras.Model(inputs, keras.layers.Dense(1, name="linear_only")(inputs["x"]))
    with pytest.raises(ValueError, match="model 'model.*' has no ReLU layer to watch"):
        watch.DeadUnits(network, {"x": tf.zeros([1, 2])}, "unused")


def test_hparams_are_logged_as_plain_values():
    logged = watch.hparams_logged(HParams(hidden_units=(8, 4)), train_steps=300)
    assert logged["hidden_units"] == "(8, 4)"
    assert logged["train_steps"] == 300
    assert logged["batch_norm"] is False
    assert logged["histogram_freq"] == 1
    assert all(isinstance(v, bool | int | float | str) for v in logged.values())


def _closing(summary: RunSummary) -> list[str]:
    out = io.StringIO()
    print_closing(summary, out)
    return out.getvalue().splitlines()


def _summary(diagram: str | None) -> RunSummary:
    return RunSummary(
        pipeline_name="p", run_id="r", status=SUCCEEDED, components={}, metrics={},
        blessed=True, pushed_model_path="/x/serving/1", model_diagram=diagram,
    )  # fmt: skip


def test_closing_lines_say_where_the_model_diagram_is(monkeypatch):
    assert "  model diagram: /out/model_run/7/model.png" in _closing(
        _summary("/out/model_run/7/model.png")
    )
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "  model diagram: none, graphviz's dot is missing (Debian: graphviz)" in _closing(
        _summary(None)
    )


def _get(base: str, path: str, body: dict | None = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
        # TensorBoard gzips some answers whether or not the client asked for it.
        gzipped = response.headers.get("Content-Encoding") == "gzip"
        return json.loads(gzip.decompress(body) if gzipped else body)


@pytest.fixture(scope="module")
def tensorboard(first_run, tmp_path_factory) -> Iterator[tuple[str, str]]:
    """A real TensorBoard on the first run's Trainer logs: (base URL, the Trainer's run name)."""
    model_run = first_run[0] / "pipeline" / node_ids.TRAINER / "model_run"
    (run_dir,) = model_run.iterdir()
    port = free_port()
    log = (tmp_path_factory.mktemp("tensorboard") / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(model_run),
         "--host", "127.0.0.1", "--port", str(port), "--load_fast", "false"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    # The server answers before it has read the logs: wait until the runs are listed.
    while True:
        try:
            if f"{run_dir.name}/{watch.ACTIVATIONS_RUN}" in _get(base, "/data/runs"):
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"TensorBoard did not serve the logs: {Path(log.name).read_text()[-2000:]}")
        time.sleep(1)
    yield base, run_dir.name
    process.terminate()
    process.wait(timeout=60)


@pytest.mark.slow
def test_tensorboard_shows_relu_figures_per_epoch(tensorboard):
    base, run = tensorboard
    tags = _get(base, "/data/plugin/scalars/tags")[f"{run}/{watch.ACTIVATIONS_RUN}"]
    layers = ("hidden_0", "hidden_1", "hidden_2")  # the default hidden_units: three layers
    expected = {t.format(layer=n) for n in layers for t in (watch.ZERO_FRACTION_TAG,
                                                             watch.DEAD_UNITS_TAG)}  # fmt: skip
    assert set(tags) == expected
    points = _get(
        base, f"/data/plugin/scalars/scalars?run={run}/{watch.ACTIVATIONS_RUN}"
        "&tag=relu_zero_fraction/hidden_0",
    )  # fmt: skip
    epochs = [step for _, step, _ in points]
    assert epochs == list(range(len(epochs))) and len(epochs) >= 2
    assert all(0.0 < value < 1.0 for _, _, value in points)


@pytest.mark.slow
def test_tensorboard_shows_weight_histograms(tensorboard):
    base, run = tensorboard
    tags = _get(base, "/data/plugin/histograms/tags")[f"{run}/train"]
    assert any("hidden_0" in tag and "kernel" in tag for tag in tags), sorted(tags)
    assert any(tag.startswith("linear") for tag in tags), sorted(tags)


@pytest.mark.slow
def test_tensorboard_hparams_dashboard_lists_the_run_with_its_metrics(tensorboard):
    base, run = tensorboard
    experiment = _get(base, "/data/plugin/hparams/experiment", {"experimentName": ""})
    names = {h["name"] for h in experiment["hparamInfos"]}
    assert {"batch_size", "deep_learning_rate", "hidden_units", "train_steps"} <= names
    metrics = {(m["name"]["group"], m["name"]["tag"]) for m in experiment["metricInfos"]}
    assert ("validation", "epoch_auc") in metrics
    groups = _get(
        base, "/data/plugin/hparams/session_groups",
        {"experimentName": "", "allowedStatuses": ["STATUS_SUCCESS", "STATUS_UNKNOWN"],
         "colParams": [], "startIndex": 0, "sliceSize": 10},
    )["sessionGroups"]  # fmt: skip
    (session,) = [s for g in groups for s in g["sessions"] if s["name"] == run]
    assert session["status"] == "STATUS_SUCCESS"
    assert groups[0]["hparams"]["batch_size"] == 256.0
    auc = [m["value"] for m in session["metricValues"] if m["name"]["tag"] == "epoch_auc"]
    assert auc and 0.5 < auc[0] <= 1.0


@pytest.mark.slow
def test_tensorboard_profile_tab_opens_the_trace(tensorboard):
    base, run = tensorboard
    assert _get(base, "/data/plugins_listing")["profile"]["enabled"]
    (trace,) = [r for r in _get(base, "/data/plugin/profile/runs") if r.startswith(f"{run}/")]
    # The plugin names the trace tool "trace_viewer@^" up to 2.16 (legacy stack) and
    # "trace_viewer@" from 2.20 (xprof, current stack).
    tools = _get(base, f"/data/plugin/profile/run_tools?run={trace}")
    (tool,) = [t for t in tools if t.startswith("trace_viewer@")]
    query = f"run={urllib.parse.quote(trace)}&tag={urllib.parse.quote(tool)}"
    (host,) = _get(base, f"/data/plugin/profile/hosts?{query}")
    # 2.16 lists host names; 2.22 (xprof) lists {"hostname": ...}.
    host = host["hostname"] if isinstance(host, dict) else host
    events = _get(base, f"/data/plugin/profile/data?{query}&host={host}")
    assert events["returnedEventsSize"] > 100
    names = {frame["name"] for frame in events["stackFrames"].values()}
    assert any("Adam" in name for name in names)  # training steps, not just setup


@pytest.mark.slow
def test_a_run_names_its_model_diagram(first_run):
    output_dir, result = first_run
    (diagram,) = (output_dir / "pipeline" / node_ids.TRAINER / "model_run").glob("*/model.png")
    assert f"  model diagram: {diagram}" in result.stdout.splitlines()
    assert json.loads((output_dir / SUMMARY_FILE).read_text())["model_diagram"] == str(diagram)
    assert diagram.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
