"""A stand-in for TF Serving's model server where ``tensorflow_model_server`` is not installed.

It answers TF Serving's REST API for one model, as ``tensorflow_model_server`` started
with the same flags would (``--rest_api_port``, ``--model_name``, ``--model_base_path``;
``--port``, the gRPC port, is taken and ignored): the highest numbered version under
the base path is loaded before the port opens, and a model that does not load ends the
process with its error, as the model server's start does.

Run as a script in isolated mode (``python -I``), it imports the standard library and
TensorFlow only: nothing of the project reaches the model, as nothing does in a model
server. The request and response shapes follow TF Serving's
``tensorflow_serving/util/json_tensor.cc`` and ``model_servers/http_rest_api_handler.cc``:
the row form (``instances``) and the columnar form (``inputs``), ``{"b64": ...}`` for
bytes, NaN and Infinity accepted as numbers, errors as ``{"error": ...}`` with status 400.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import tensorflow as tf

_DTYPES = {tf.string: "DT_STRING", tf.float32: "DT_FLOAT", tf.float64: "DT_DOUBLE",
           tf.int64: "DT_INT64", tf.int32: "DT_INT32", tf.bool: "DT_BOOL"}  # fmt: skip


class RequestError(ValueError):
    """A request the model server refuses (status 400), with its reason."""


def _value(value: Any, dtype: tf.DType, where: str) -> Any:
    """One JSON value as ``dtype`` takes it, or RequestError naming ``where`` it was."""
    if dtype == tf.string:
        if isinstance(value, dict) and set(value) == {"b64"}:
            return base64.b64decode(value["b64"])
        if isinstance(value, str):
            return value.encode()
    elif dtype.is_floating:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif dtype.is_integer:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif dtype == tf.bool and isinstance(value, bool):
        return value
    raise RequestError(f"{where}: {json.dumps(value)} is not of expected type: {dtype.name}")


def _tensor(values: list[Any], spec: tf.TensorSpec, name: str) -> tf.Tensor:
    """A batch of one input's JSON values as the tensor the signature takes."""
    if not isinstance(values, list):
        raise RequestError(f"input {name}: expected a list of values, got {json.dumps(values)}")
    flat = [_value(v, spec.dtype, f"input {name}") for v in values]
    return tf.constant(flat, dtype=spec.dtype)


def _inputs(body: dict[str, Any], specs: dict[str, tf.TensorSpec]) -> tuple[dict, bool]:
    """The signature's keyword tensors from a request body, and whether it was the row form."""
    if ("instances" in body) == ("inputs" in body):
        raise RequestError("JSON object: must have exactly one of 'instances' or 'inputs'")
    if "instances" in body:
        rows = body["instances"]
        if not isinstance(rows, list) or not rows:
            raise RequestError("'instances' must be a non-empty list")
        if not all(isinstance(row, dict) and set(row) != {"b64"} for row in rows):
            if len(specs) != 1:
                raise RequestError("instances must be objects naming each input")
            ((name, spec),) = specs.items()
            return {name: _tensor(rows, spec, name)}, True
        for number, row in enumerate(rows):
            if set(row) != set(specs):
                lost = sorted(set(specs) - set(row)) or sorted(set(row) - set(specs))
                raise RequestError(
                    f"Failed to process element: {number} of 'instances' list. "
                    f"JSON object: does not match the named inputs at: {', '.join(lost)}"
                )
        return {n: _tensor([row[n] for row in rows], s, n) for n, s in specs.items()}, True
    columns = body["inputs"]
    if not isinstance(columns, dict):
        if len(specs) != 1:
            raise RequestError("'inputs' must be an object naming each input")
        ((name, spec),) = specs.items()
        return {name: _tensor(columns, spec, name)}, False
    if set(columns) != set(specs):
        raise RequestError(f"'inputs' must name exactly: {', '.join(sorted(specs))}")
    return {n: _tensor(columns[n], s, n) for n, s in specs.items()}, False


def _json_ready(value: Any) -> Any:
    """A tensor's value as JSON writes it: bytes as text (NaN stays, as TF Serving writes it)."""
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def predict(signature: Any, body: dict[str, Any]) -> dict[str, Any]:
    """The response to a ``:predict`` body: ``predictions`` (row form) or ``outputs``."""
    specs = signature.structured_input_signature[1]
    tensors, row_form = _inputs(body, specs)
    try:
        outputs = {k: v.numpy().tolist() for k, v in signature(**tensors).items()}
    except (tf.errors.InvalidArgumentError, TypeError, ValueError) as err:
        raise RequestError(str(err).splitlines()[0]) from err
    outputs = {k: _json_ready(v) for k, v in outputs.items()}
    if not row_form:
        return {"outputs": next(iter(outputs.values())) if len(outputs) == 1 else outputs}
    if len(outputs) == 1:
        return {"predictions": next(iter(outputs.values()))}
    rows = len(next(iter(outputs.values())))
    return {"predictions": [{k: v[i] for k, v in outputs.items()} for i in range(rows)]}


def _tensor_info(spec: tf.TensorSpec, name: str) -> dict[str, Any]:
    """A tensor's entry in the metadata's signature_def, as TF Serving writes it."""
    dims = [{"size": str(-1 if d is None else d), "name": ""} for d in spec.shape.as_list()]
    return {
        "dtype": _DTYPES.get(spec.dtype, spec.dtype.name),
        "tensor_shape": {"dim": dims, "unknown_rank": False},
        "name": name,
    }


def metadata(name: str, version: str, signatures: dict[str, Any]) -> dict[str, Any]:
    """The ``/metadata`` response: every signature's inputs and outputs."""
    defs = {
        key: {
            "inputs": {
                n: _tensor_info(s, f"{key}_{n}:0")
                for n, s in sig.structured_input_signature[1].items()
            },
            "outputs": {
                n: _tensor_info(s, f"{key}:{n}") for n, s in sig.structured_outputs.items()
            },
            "method_name": "tensorflow/serving/predict",
        }
        for key, sig in signatures.items()
    }
    return {
        "model_spec": {"name": name, "signature_name": "", "version": version},
        "metadata": {"signature_def": {"signature_def": defs}},
    }


def handler(name: str, version: str, model: Any) -> type[BaseHTTPRequestHandler]:
    """The request handler serving ``model`` as ``name``, version ``version``."""
    base = f"/v1/models/{name}"
    routes = re.compile(rf"^{re.escape(base)}(/versions/{version})?(?P<rest>/metadata|:predict)?$")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's interface
            found = routes.match(self.path)
            if found is None or found["rest"] == ":predict":
                return self._answer(404, {"error": f"Malformed request: GET {self.path}"})
            if found["rest"] == "/metadata":
                return self._answer(200, metadata(name, version, model.signatures))
            ok = {"error_code": "OK", "error_message": ""}
            state = {"version": version, "state": "AVAILABLE", "status": ok}
            return self._answer(200, {"model_version_status": [state]})

        def do_POST(self) -> None:  # noqa: N802 - http.server's interface
            found = routes.match(self.path)
            if found is None or found["rest"] != ":predict":
                return self._answer(404, {"error": f"Malformed request: POST {self.path}"})
            try:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                key = body.get("signature_name") or "serving_default"
                if key not in model.signatures:
                    said = f'Serving signature name: "{key}" not found in signature def'
                    raise RequestError(said)
                return self._answer(200, predict(model.signatures[key], body))
            except (RequestError, json.JSONDecodeError, AttributeError) as err:
                return self._answer(400, {"error": str(err)})

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - overridden
            """Quiet: a request is not a line of the step's log."""

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Load the newest version under ``--model_base_path`` and serve it until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8500, help="gRPC: taken, not served")
    parser.add_argument("--rest_api_port", type=int, required=True)
    parser.add_argument("--model_name", required=True)
    parser.add_argument("--model_base_path", required=True)
    args = parser.parse_args(argv)
    base = Path(args.model_base_path)
    versions = sorted((int(p.name) for p in base.iterdir() if p.name.isdigit()), reverse=True)
    if not versions:
        print(f"error: no version of model {args.model_name} under {base}", file=sys.stderr)
        return 1
    try:
        model = tf.saved_model.load(str(base / str(versions[0])))
    except (OSError, ValueError, tf.errors.OpError) as err:
        first = str(err).strip().splitlines()[0]
        print(f"error: model {args.model_name} version {versions[0]} did not load: {first}",
              file=sys.stderr)  # fmt: skip
        return 1
    server = ThreadingHTTPServer(
        ("127.0.0.1", args.rest_api_port), handler(args.model_name, str(versions[0]), model)
    )
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
