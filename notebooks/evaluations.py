"""Find the Evaluator's outputs on disk and load them for TFMA's notebook views.

An Evaluator output is a folder ``<pipeline root>/Evaluator/evaluation/<execution id>/``
holding TFMA's ``eval_config.json``, metrics and plots. The notebook shows the newest
one (``WIDE_DEEP_EVALUATION`` names an output or a folder to search; by default the
project's ``outputs/``) and, as a time series, the outputs before it from the same
pipeline root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # TFMA imports TensorFlow: only load() and load_series() need it.
    import tensorflow_model_analysis as tfma
    from tensorflow_model_analysis.view import view_types

ENV_VAR = "WIDE_DEEP_EVALUATION"
CONFIG_FILE = "eval_config.json"
PROJECT = Path(__file__).resolve().parent.parent


def default_start() -> Path:
    """Where to look: ``$WIDE_DEEP_EVALUATION`` when set, else the project's ``outputs/``."""
    named = os.environ.get(ENV_VAR)
    return Path(named).expanduser() if named else PROJECT / "outputs"


def is_evaluation(path: Path) -> bool:
    """Whether ``path`` is one Evaluator output (a folder holding ``eval_config.json``)."""
    return (path / CONFIG_FILE).is_file()


def _execution_id(path: Path) -> int:
    # TFX names an output folder by its execution's id, which grows with every run of
    # one metadata store; a folder with another name sorts first.
    return int(path.name) if path.name.isdigit() else -1


def siblings(evaluation: Path) -> list[Path]:
    """The outputs in ``evaluation``'s folder up to and including it, oldest first."""
    mine = _execution_id(evaluation)
    found = [p for p in evaluation.parent.iterdir() if is_evaluation(p)]
    return sorted((p for p in found if _execution_id(p) <= mine), key=_execution_id)


def newest_evaluation(start: Path | None = None) -> Path:
    """The newest Evaluator output at or under ``start`` (default: ``default_start()``).

    Within one pipeline root the highest execution id is the newest (file times are
    not: a copy or a git checkout rewrites them). Across pipeline roots, which have
    separate metadata stores and ids, the one whose newest output was written last.
    """
    start = default_start() if start is None else start
    if is_evaluation(start):
        return start
    folders = {config.parent.parent for config in start.rglob(CONFIG_FILE)}
    if not folders:
        raise FileNotFoundError(
            f"no Evaluator output (a folder with {CONFIG_FILE}) under {start}: "
            f"run the pipeline (make run) or set {ENV_VAR} to an output or a folder of them"
        )
    newest = [max(filter(is_evaluation, f.iterdir()), key=_execution_id) for f in folders]
    return max(newest, key=lambda p: ((p / CONFIG_FILE).stat().st_mtime, str(p)))


def candidate_name(evaluation: Path) -> str:
    """The evaluated model's name in ``evaluation`` ("" in older outputs' lone model)."""
    specs = json.loads((evaluation / CONFIG_FILE).read_text())["evalConfig"]["modelSpecs"]
    (candidate,) = [s for s in specs if not s.get("isBaseline", False)]
    return candidate.get("name", "")


def slice_columns(evaluation: Path) -> list[str]:
    """The columns the Evaluator sliced ``evaluation`` by, as its config names them."""
    specs = json.loads((evaluation / CONFIG_FILE).read_text())["evalConfig"]["slicingSpecs"]
    return [key for spec in specs for key in spec.get("featureKeys", [])]


def load(evaluation: Path) -> tfma.EvalResult:
    """The candidate model's result in ``evaluation``, as the views take it."""
    import tensorflow_model_analysis as tfma

    return tfma.load_eval_result(str(evaluation), model_name=candidate_name(evaluation))


def load_series(evaluations: list[Path]) -> view_types.EvalResults:
    """The candidates' results of several outputs, in order, for ``render_time_series``.

    Each output is loaded under its own candidate's name: the Evaluator names the
    candidate "candidate" in every run now, but outputs written before that hold an
    unnamed lone model, which ``tfma.load_eval_results(paths, model_name=...)`` cannot
    name together with the later ones.
    """
    import tensorflow_model_analysis as tfma

    results = [load(e) for e in evaluations]
    return tfma.make_eval_results(results, tfma.constants.MODEL_CENTRIC_MODE)
