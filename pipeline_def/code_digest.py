"""Digests of the code and settings a run uses, taken when the pipeline is compiled.

Transform, the Tuner and the Trainer run functions named by a dotted path
(``modules.preprocessing.preprocessing_fn``) and read the dataset's declaration at run
time, and every step of this project runs an executor of ``components/`` with the
libraries of ``data_layout/`` and ``review/``. None of that
code is a property TFX compares when it looks for a cached execution, so a rerun after
an edited declaration, module or executor reused the old examples, graph and model.
The digest of those files (``step_code_digest``) is such a property of ExampleGen,
Transform, the Tuner and the Trainer: an edit makes a new execution, locally and on
Kubeflow alike.

``run_fingerprint`` is what a run is made with beside its data: every setting that
shapes what it learns, and the code of every step. The Pusher records it, so that a
later run of the same files knows whether it would only repeat that run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from pipeline_def.config import PipelineConfig
from pipeline_def.project_paths import PROJECT_ROOT

# The custom_config key of ExampleGen, Transform, the Tuner and the Trainer holding the
# digest of the code they run.
CODE_DIGEST_KEY = "code_sha256"
_SOURCE_SUFFIXES = (".py", ".pbtxt")
# The packages a step runs: the model code and the datasets it learns, the executors and
# the libraries they run (``kubeflow.step``: what a step's container runs around the
# executor), and the definition that wires them. What the image holds, and what the
# digests below cover.
MODEL_CODE, DATASETS = "modules", "datasets"
_EXECUTORS = (
    "startup",
    "data_layout",
    "review",
    "serving",
    "scoring",
    "kubeflow.step",
    "components",
)
_DEFINITION = "pipeline_def"
STEP_PACKAGES = (MODEL_CODE, DATASETS, *_EXECUTORS, _DEFINITION)
# Settings that change how a run is carried out, not what it reads or learns: where
# its metadata lives (with a password), Beam's workers, Kubeflow's requests, the cache.
_HOW_NOT_WHAT = ("metadata", "beam_pipeline_args", "resources", "enable_cache", "span")


def _sources(root: Path, dataset: str) -> Iterator[Path]:
    """The model code's files: ``modules/``, the registry and dataset ``dataset``'s own folder.

    The other datasets' folders are left out, so drafting a table does not void the
    cache of another's runs.
    """
    datasets_dir = root / DATASETS
    for path in sorted([*(root / MODEL_CODE).rglob("*"), *datasets_dir.rglob("*")]):
        relative = path.relative_to(root)
        if path.suffix not in _SOURCE_SUFFIXES or "__pycache__" in relative.parts:
            continue
        inside = path.relative_to(datasets_dir).parts if path.is_relative_to(datasets_dir) else ()
        if len(inside) > 1 and inside[0] != dataset:
            continue
        yield path


def _files_digest(paths: Iterable[Path], base: Path) -> str:
    """The hex SHA-256 of the files' names (relative to ``base``) and contents."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(base).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def model_code_digest(dataset: str, root: Path = PROJECT_ROOT) -> str:
    """The hex SHA-256 of the model code a run of ``dataset`` uses (names and contents)."""
    return _files_digest(_sources(root, dataset), root)


def package_folder(package: str) -> Path:
    """The folder of a dotted package name, relative to the project."""
    return Path(*package.split("."))


def _package_digest(root: Path, package: str) -> str:
    return _files_digest(sorted((root / package_folder(package)).rglob("*.py")), root)


def step_code_digest(dataset: str, root: Path = PROJECT_ROOT) -> str:
    """The hex SHA-256 of the code a step of ``dataset``'s run runs: model and executors."""
    parts = [model_code_digest(dataset, root)]
    parts += [_package_digest(root, package) for package in _EXECUTORS]
    return hashlib.sha256(":".join(parts).encode()).hexdigest()


def run_fingerprint(config: PipelineConfig, root: Path = PROJECT_ROOT) -> str:
    """The hex SHA-256 of ``config``'s settings and of the code every step runs.

    The span asked for is left out: the run's data digest holds the span it resolved.
    """
    settings = {
        f.name: getattr(config, f.name)
        for f in dataclasses.fields(config)
        if f.name not in _HOW_NOT_WHAT
    }
    made_of = {
        "settings": json.loads(json.dumps(settings, default=_as_json, sort_keys=True)),
        "step_code": step_code_digest(config.dataset, root),
        "definition": _package_digest(root, _DEFINITION),
    }
    return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode()).hexdigest()


def _as_json(value: object) -> object:
    """A setting JSON cannot write itself: a dataclass (the hyperparameters) as its fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"a setting of type {type(value).__name__} has no fingerprint")
