"""TFMA's output read without importing TFMA: the metrics, plots, validation and eval config.

The review, the history and the run summary read what the Evaluator wrote. Importing
TFMA to read it took 8 of the 9 seconds ``wide-deep-review`` took (TFMA brings
TensorFlow and Beam); the reading itself takes a fraction of a second. The files are
TFRecord files and JSON of TFMA's protocol buffers. Their message types are built here
from the descriptors in TFMA's own generated ``*_pb2.py`` files, read as source and not
run (running any of them runs TFMA's package), so a message read here has the fields
of the TFMA installed, field for field. The types live in a pool of their own: they
are not TFMA's classes, and nothing here hands them to TFMA.

The files are found as ``tfma.load_metrics`` and its siblings find them
(``writers/metrics_plots_and_validations_writer.py``, ``writers/eval_config_writer.py``):
in an evaluation folder, ``metrics*.tfrecord`` (else ``metrics*``), ``plots*``,
``validations*`` (one record) and ``eval_config.json``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

from data_layout import files, tfrecord_files

_PACKAGE = "tensorflow_model_analysis"
_PROTO_PREFIX = f"{_PACKAGE}/proto/"
# The proto files whose messages TFMA writes to an evaluation folder.
_WRITTEN = ("metrics_for_slice", "validation_result", "config")


class TfmaOutputError(ValueError):
    """An evaluation folder without the record TFMA writes, or with more than one."""


def _proto_folder() -> Path:
    """TFMA's ``proto`` folder, found without running TFMA's package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{_PACKAGE} is not installed: no TFMA descriptors to read")
    return Path(next(iter(spec.submodule_search_locations))) / "proto"


def _serialized(proto_file: str) -> bytes:
    """The serialized FileDescriptorProto of ``proto_file`` (a path as protoc names it)."""
    if not proto_file.startswith(_PROTO_PREFIX):
        # protobuf's own types (google/protobuf/wrappers.proto): cheap to import.
        module_name = proto_file.removesuffix(".proto").replace("/", ".") + "_pb2"
        module = importlib.import_module(module_name)
        return module.DESCRIPTOR.serialized_pb
    source = _proto_folder() / (Path(proto_file).stem + "_pb2.py")
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"), str(source))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "AddSerializedFile":
            return node.args[0].value
    raise ModuleNotFoundError(f"{source}: no serialized descriptor in it")


def _add(pool: descriptor_pool.DescriptorPool, proto_file: str, added: set[str]) -> None:
    """Add ``proto_file`` to ``pool`` after the files it imports."""
    if proto_file in added:
        return
    serialized = _serialized(proto_file)
    for dependency in descriptor_pb2.FileDescriptorProto.FromString(serialized).dependency:
        _add(pool, dependency, added)
    pool.AddSerializedFile(serialized)
    added.add(proto_file)


@functools.cache
def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()
    for name in _WRITTEN:
        _add(pool, f"{_PROTO_PREFIX}{name}.proto", added)
    return pool


@functools.cache
def message_type(name: str) -> Any:
    """TFMA's message class ``name`` (``MetricsForSlice``, ``EvalRun``, ...), from this pool."""
    descriptor = _pool().FindMessageTypeByName(f"{_PACKAGE}.{name}")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf 4.22 and later
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(_pool()).GetPrototype(descriptor)


def enum_value(enum: str, name: str) -> int:
    """The number of TFMA's enum value ``enum.name`` (``MetricDirection.HIGHER_IS_BETTER``)."""
    return _pool().FindEnumTypeByName(f"{_PACKAGE}.{enum}").values_by_name[name].number


def _records(evaluation_uri: str, key: str) -> Iterator[bytes]:
    """The records of TFMA's ``key`` files (metrics, plots, validations) in an evaluation."""
    base = os.path.join(evaluation_uri, key) if files.isdir(evaluation_uri) else evaluation_uri
    for path in files.glob(f"{base}*.tfrecord") or files.glob(f"{base}*"):
        yield from tfrecord_files.read_records(path)


def load_metrics(evaluation_uri: str) -> Iterator[Any]:
    """The MetricsForSlice records, as ``tfma.load_metrics`` reads them."""
    parse = message_type("MetricsForSlice").FromString
    return (parse(r) for r in _records(evaluation_uri, "metrics"))


def load_plots(evaluation_uri: str) -> Iterator[Any]:
    """The PlotsForSlice records, as ``tfma.load_plots`` reads them."""
    parse = message_type("PlotsForSlice").FromString
    return (parse(r) for r in _records(evaluation_uri, "plots"))


def load_validation_result(evaluation_uri: str) -> Any:
    """The ValidationResult, as ``tfma.load_validation_result`` reads it."""
    found = list(_records(evaluation_uri, "validations"))
    if len(found) != 1:
        raise TfmaOutputError(
            f"{evaluation_uri}: {len(found)} validation records where TFMA writes one"
        )
    return message_type("ValidationResult").FromString(found[0])


def load_eval_run(evaluation_uri: str) -> Any:
    """The EvalRun (the config and the models' locations) of ``eval_config.json``."""
    path = os.path.join(evaluation_uri, "eval_config.json")
    if not files.exists(path):
        raise TfmaOutputError(f"{path}: missing; TFMA writes it with every evaluation")
    return json_format.Parse(files.read_text(path), message_type("EvalRun")())
