"""A real pipeline run with the Tuner on: its choice reaches the Trainer, MLMD and the review."""

from __future__ import annotations

import json
import re

import pytest
from run_commands import review_cli

from data_layout.properties import HPARAMS, TUNED_HPARAMS, TUNING_TRIALS
from modules.hparams import SEARCH_SPACE, HParams
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow

TINY = 1e-6


def test_the_trainer_trains_with_the_tuners_choice_and_the_review_shows_it(
    small_data_root, run_pipeline, tmp_path
):
    out = tmp_path / "tuned"
    # Learning rates too small to learn anything in 100 steps: the search's random
    # trial beats them, so its choice differs from the configured values and the
    # Trainer is seen to take the choice.
    flags = ("--tune", "--tune-trials", "2", "--tune-minutes", "5", "--train-steps", "100")
    flags += ("--hparam", f"deep_learning_rate={TINY}", "--hparam", f"wide_learning_rate={TINY}")
    result = run_pipeline(small_data_root, out, *flags)
    assert result.returncode == 0, result.stdout + result.stderr
    # One line per component, the Tuner's among them; KerasTuner's tables stay in the log.
    assert re.search(r"^\s+Tuner\s+ran\s+[\d.]+ s$", result.stdout, re.M)
    assert "Search space summary" not in result.stdout
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert set(summary["components"]) == set(node_ids.node_ids(tune=True))

    store = open_store(SqliteMetadata(str(out / "metadata.sqlite")))
    run = latest_run(store, "taxi-wide-deep")
    best = run.output(node_ids.TUNER, "best_hyperparameters")
    chosen = json.loads(best.custom_properties[TUNED_HPARAMS].string_value)
    assert set(chosen) == set(SEARCH_SPACE)
    assert (chosen["deep_learning_rate"], chosen["wide_learning_rate"]) != (TINY, TINY)
    assert best.custom_properties[TUNING_TRIALS].int_value == 2
    # The Trainer read the Tuner's artifact and trained with those values.
    events = store.get_events_by_execution_ids([run.nodes[node_ids.TRAINER].execution.id])
    assert best.id in {e.artifact_id for e in events if e.type == e.INPUT}
    model = run.output(node_ids.TRAINER, "model")
    assert json.loads(model.custom_properties[TUNED_HPARAMS].string_value) == chosen
    trained_with = json.loads(model.custom_properties[HPARAMS].string_value)
    assert {name: trained_with[name] for name in chosen} == chosen

    review = review_cli("--output-dir", str(out))
    assert review.returncode == 0, review.stderr
    assert "Verdict: BLESSED (on the test split)" in review.stdout
    assert "Tuned hyperparameters (2 trial(s)" in review.stdout
    for name, value in chosen.items():
        default = getattr(HParams(), name)
        assert f"  {name} = {value!r} (default {default!r})" in review.stdout
