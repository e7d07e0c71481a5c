"""The pipeline's model against tuned gradient-boosted trees, on the pipeline's own splits.

    python benchmarks/bench_dataset.py [--dataset credit_data] [--output-dir DIR] [--folds N]
                                    [--seeds S [S ...]]

Uses the newest run of the dataset's pipeline in the output dir (default: where
``local_runner.py --dataset NAME`` writes). Trains scikit-learn's
HistGradientBoostingClassifier, a few settings, on that run's train split (the
columns the model reads, text as categories, missing cells as missing), picks the
setting that scores best on the validation split, as the pipeline's early stopping
and Tuner choose, and scores it on the split that blesses, where the run's model is
scored too. The run's model is scored on the validation split as well: changes to
the pipeline are compared there, and test only reports. Prints the AUCs as JSON,
with every setting's AUC on both splits; the best setting on the blessing split
itself is printed too, as the trees' upper bound. On a test split of a few hundred
rows two good models' AUCs differ by less than the split's own noise, so the 95%
interval of the difference (pipeline minus trees, a paired bootstrap over the same
rows) is printed beside them.

``--folds N`` also compares the two where far more rows judge them: the run's train
and validation rows are dealt into N folds, and in each of N rounds one fold is
scored, the next one chooses (the model's early stopping, the trees' setting) and the
others train, the pipeline's Transform analysis included. Where the dataset declares
an entity, whole entities are dealt into the folds, as the run's splits keep them.
The pipeline side is the run's own preprocessing_fn and run_fn with the run's Trainer
settings (read from ML-Metadata; a tuned run's Tuner values are not applied), so it
measures the draft as the run trained it. Each round prints a line; the JSON gets each
round's AUCs, the means and the rounds the pipeline won. The test split is never read by it.

``--seeds S ...`` trains the run's model again with each seed, all else the run's (its
train split, Transform graph, Trainer settings, early stopping on validation), and
scores it on validation and test: how far the blessing split's figure moves with
the seed alone. The run's own seed gives the run's model back (unless the run was
tuned: as in the folds, the Tuner's values are not applied).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from pipeline_ops.cli.quiet import quiet_libraries
from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)
quiet_libraries()  # before TFX and TF are imported: they chatter on import

import numpy as np  # noqa: E402

import datasets  # noqa: E402
from data_layout.split_router import partition_key  # noqa: E402
from data_layout.splits import TEST, TRAIN, VALIDATION  # noqa: E402
from modules.exact_auc import auc  # noqa: E402
from modules.features import DatasetDeclaration  # noqa: E402
from modules.hparams import CUSTOM_CONFIG_KEY, HParams, parse_pairs  # noqa: E402
from pipeline_def import node_ids  # noqa: E402
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR, output_dir_for  # noqa: E402
from pipeline_ops.metadata.runs import PipelineRun, latest_run  # noqa: E402
from pipeline_ops.metadata.store import metadata_for, open_store  # noqa: E402
from review.paired_comparison import auc_difference_interval  # noqa: E402
from review.scored_rows import model_scores, split_records  # noqa: E402

# The trees' settings: learning rate, leaves per tree, L2; early stopping picks the
# number of trees on a tenth of the train split.
SETTINGS = list(itertools.product((0.03, 0.1), (8, 31), (0.0, 1.0)))
# The shuffle before the rows are dealt into folds (--folds): the same folds every time.
FOLD_SEED = 0


def _table(records: list[bytes], columns: list[str]):  # noqa: ANN202 - a pandas DataFrame
    import pandas as pd
    import tensorflow as tf

    rows = []
    for record in records:
        feature = tf.train.Example.FromString(record).features.feature
        row = {}
        for name in columns:
            kind = feature[name].WhichOneof("kind") if name in feature else None
            values = list(getattr(feature[name], kind).value) if kind else []
            value = values[0] if values else None
            row[name] = value.decode() if isinstance(value, bytes) else value
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def _labels(dataset: DatasetDeclaration, table) -> list[int]:  # noqa: ANN001 - a DataFrame
    column = dataset.label.columns[0]
    return [int(str(v).strip() == dataset.label.positive) for v in table[column]]


def _auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """ROC AUC to 4 places, as the figures print it."""
    return round(auc(np.asarray(labels), np.asarray(scores)), 4)


def run_records(run: PipelineRun) -> dict[str, list[bytes]]:
    """The serialized examples of each of the run's splits, read once for every comparison."""
    examples = run.output(node_ids.EXAMPLE_GEN, "examples").uri
    return {split: split_records(examples, split) for split in (TRAIN, VALIDATION, TEST)}


def _labelled_tables(
    dataset: DatasetDeclaration, rows: dict[str, list[bytes]]
) -> tuple[dict, dict]:
    """Each named set of examples as a table of the model's raw columns, and its labels."""
    columns = list(dataset.raw_feature_columns()) + list(dataset.label_source_columns())
    tables = {name: _table(records, columns) for name, records in rows.items()}
    labels = {name: _labels(dataset, table) for name, table in tables.items()}
    for table in tables.values():
        _numbers_for_trees(dataset, table)
    return tables, labels


def _numbers_for_trees(dataset: DatasetDeclaration, table) -> None:  # noqa: ANN001 - a DataFrame
    """Numbers written as text, and dates, as numbers the trees split on (in place).

    The model reads them parsed, as Transform does; given the raw text, trees would
    take ``$1,234`` or a date for a category and lose its order: no fair comparison.
    A date gives the trees what it gives the model: its instant, weekday, time of day.
    """
    import tensorflow as tf

    from modules.features import TimeFormat
    from modules.preprocessing import number_from_text, time_from_text

    def text(name: str) -> tf.Tensor:
        return tf.constant(table[name].fillna("").astype(str).tolist(), tf.string)

    for numeric in (n for n in dataset.numeric if n.text):
        table[numeric.name] = number_from_text(text(numeric.name), numeric.text).numpy()
    for stamp in dataset.timestamps:
        if stamp.written is TimeFormat.UNIX_SECONDS:
            seconds = table[stamp.name].astype(float).to_numpy()
            days, of_day = np.floor_divide(seconds, 86400), np.mod(seconds, 86400)
        else:
            days, of_day, _, readable = (
                t.numpy() for t in time_from_text(text(stamp.name), stamp.written)
            )
            days = np.where(readable, days, np.nan)
            of_day = np.where(readable, of_day, np.nan)
        table[stamp.name] = days * 86400 + of_day
        # 1970-01-01 was a Thursday: Monday is 0.
        table[f"{stamp.name}_weekday"] = np.mod(days + 3, 7)
        table[f"{stamp.name}_seconds_of_day"] = of_day


def fit_trees(dataset: DatasetDeclaration, train, labels: list[int], tables: dict) -> dict:  # noqa: ANN001
    """Each setting's scores on each of ``tables``, the trees trained on ``train``.

    Text columns are categories: those of the train table; others are missing to the
    trees. Every column but the label's is a feature (a date is three). (pandas
    DataFrames; the tables' text columns are converted in place.)
    """
    from sklearn.ensemble import HistGradientBoostingClassifier

    features = [c for c in train.columns if c not in dataset.label_source_columns()]
    for c in [c for c in features if train[c].dtype == object]:
        seen = sorted(set(train[c].dropna()))
        for table in (train, *tables.values()):
            table[c] = table[c].astype("category").cat.set_categories(seen)
    scores = {}
    for rate, leaves, l2 in SETTINGS:
        model = HistGradientBoostingClassifier(
            learning_rate=rate, max_leaf_nodes=leaves, l2_regularization=l2, max_iter=500,
            early_stopping=True, validation_fraction=0.1, random_state=0,
            categorical_features="from_dtype",
        )  # fmt: skip
        model.fit(train[features], labels)
        scores[f"learning_rate={rate} max_leaf_nodes={leaves} l2={l2}"] = {
            name: model.predict_proba(table[features])[:, 1] for name, table in tables.items()
        }
    return scores


def finished_run(dataset: DatasetDeclaration, output_dir: Path) -> PipelineRun:
    """The newest run of the dataset's pipeline in ``output_dir`` that trained a model."""
    if dataset.label.positive is None:
        raise SystemExit(f"dataset {dataset.name} computes its label in code: no benchmark")
    run = latest_run(open_store(metadata_for(output_dir, None)), dataset.pipeline_name)
    if run is None or run.output(node_ids.TRAINER, "model") is None:
        raise SystemExit(f"no finished run of {dataset.pipeline_name} in {output_dir}")
    return run


def compare(dataset: DatasetDeclaration, run: PipelineRun, records: dict[str, list[bytes]]) -> dict:
    """Both AUCs on the run's blessing split, and the trees' best setting."""
    tables, labels = _labelled_tables(dataset, records)
    model_dir = Path(run.output(node_ids.TRAINER, "model").uri) / "Format-Serving"
    pipeline_scores = {
        split: model_scores(model_dir, records[split], dataset.prediction_key)
        for split in (VALIDATION, TEST)
    }
    pipeline_auc = {split: _auc(labels[split], scores) for split, scores in pipeline_scores.items()}

    others = {split: tables[split] for split in (VALIDATION, TEST)}
    tree_scores = fit_trees(dataset, tables[TRAIN], labels[TRAIN], others)
    trees = {
        setting: {
            split: _auc(labels[split], split_scores) for split, split_scores in scores.items()
        }
        for setting, scores in tree_scores.items()
    }
    chosen = max(trees, key=lambda k: trees[k][VALIDATION])
    upper = max(trees, key=lambda k: trees[k][TEST])
    return {
        "dataset": dataset.name,
        "run": run.run_id,
        "split": TEST,
        "rows": {split: len(table) for split, table in tables.items()},
        "pipeline_auc": pipeline_auc[TEST],
        # Candidate changes to the pipeline are chosen on this, never on test.
        "pipeline_validation_auc": pipeline_auc[VALIDATION],
        "trees_auc": trees[chosen][TEST],
        "trees_setting": chosen,
        "trees_best_on_test_auc": trees[upper][TEST],
        "pipeline_minus_trees_interval_95": auc_difference_interval(
            labels[TEST], pipeline_scores[TEST], tree_scores[chosen][TEST]
        ),
        "trees": trees,
    }


def deal_folds(
    records: list[bytes], folds: int, seed: int = FOLD_SEED, entity: str = ""
) -> list[list[bytes]]:
    """``records`` shuffled (with ``seed``) and dealt into ``folds`` folds, sizes within one.

    With an ``entity`` column, its values are shuffled and dealt instead, each to the
    fold with the fewest rows so far: all of an entity's rows share a fold, as they
    share a split in the run, so no round scores entities its models trained on.
    """
    if not entity:
        order = list(records)
        random.Random(seed).shuffle(order)
        return [order[k::folds] for k in range(folds)]
    rows_of: dict[bytes, list[bytes]] = {}
    for record in records:
        rows_of.setdefault(partition_key(record, entity.encode()), []).append(record)
    keys = sorted(rows_of)
    random.Random(seed).shuffle(keys)
    dealt: list[list[bytes]] = [[] for _ in range(folds)]
    for key in keys:
        min(dealt, key=len).extend(rows_of[key])
    return dealt


def fold_roles(folds: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """Each round's (scored fold, choosing fold, training folds); each fold is scored once."""
    roles = []
    for scored in range(folds):
        choosing = (scored + 1) % folds
        training = tuple(k for k in range(folds) if k not in (scored, choosing))
        roles.append((scored, choosing, training))
    return roles


def _trainer_settings(run: PipelineRun) -> tuple[dict, int, int]:
    """The run's Trainer: its custom_config, train steps and eval steps, as MLMD has them."""
    properties = run.nodes[node_ids.TRAINER].execution.custom_properties
    custom_config = json.loads(properties["custom_config"].string_value)
    # Logs only, and the profiler costs seconds a member.
    custom_config[CUSTOM_CONFIG_KEY].update(profile_steps=[0, 0], histogram_freq=0)
    eval_steps = json.loads(properties["eval_args"].string_value)["num_steps"]
    return custom_config, properties["train_steps"].int_value, eval_steps


def _write_records(path: Path, records: list[bytes]) -> str:
    import tensorflow as tf

    path.parent.mkdir(parents=True, exist_ok=True)
    with tf.io.TFRecordWriter(str(path), "GZIP") as writer:
        for record in records:
            writer.write(record)
    return str(path)


def _transform_graph(
    run: PipelineRun, dataset: DatasetDeclaration, train_file: str, out: Path
) -> str:
    """Transform's analysis of ``train_file`` alone, written as the Transform component does."""
    import functools

    import apache_beam as beam
    import tensorflow_transform.beam as tft_beam
    from google.protobuf import text_format
    from tensorflow_metadata.proto.v0 import schema_pb2
    from tensorflow_transform.tf_metadata import dataset_metadata, metadata_io
    from tfx_bsl.public import tfxio

    from modules.preprocessing import DATASET_KEY, preprocessing_fn

    schema_file = Path(run.output(node_ids.CURATED_SCHEMA, "schema").uri) / "schema.pbtxt"
    schema = text_format.Parse(schema_file.read_text(), schema_pb2.Schema())
    source = tfxio.TFExampleRecord(train_file, telemetry_descriptors=["bench"], schema=schema)
    analyze = functools.partial(preprocessing_fn, custom_config={DATASET_KEY: dataset.name})
    with beam.Pipeline() as pipeline, tft_beam.Context(temp_dir=str(out / "tmp")):
        raw = (pipeline | source.BeamSource(), source.TensorAdapterConfig())
        _ = raw | tft_beam.AnalyzeDataset(analyze) | tft_beam.WriteTransformFn(str(out))
    metadata_io.write_metadata(dataset_metadata.DatasetMetadata(schema), str(out / "metadata"))
    return str(out)


def _train(
    run: PipelineRun, files: tuple[str, str], transform_graph: str, folder: Path, **hparams: object
) -> Path:
    """The run's Trainer (its run_fn and settings) on ``files`` (train, choose); the model's dir.

    ``hparams`` replace the run's own values (a seed, say).
    """
    from tfx.v1.components import FnArgs

    from modules.training import run_fn

    custom_config, train_steps, eval_steps = _trainer_settings(run)
    custom_config[CUSTOM_CONFIG_KEY].update(hparams)
    run_fn(
        FnArgs(
            train_files=[files[0]],
            eval_files=[files[1]],
            transform_output=transform_graph,
            serving_model_dir=str(folder / "model"),
            model_run_dir=str(folder / "run"),
            train_steps=train_steps,
            eval_steps=eval_steps,
            custom_config=custom_config,
        )
    )
    return folder / "model"


def _pipeline_scores(
    run: PipelineRun,
    dataset: DatasetDeclaration,
    rows: dict[str, list[bytes]],
    folder: Path,
    hparams: dict,
):  # noqa: ANN202 - a numpy array
    """The run's Transform and Trainer on ``rows["train"]``, choosing on ``rows["choose"]``.

    Returns the exported model's scores on ``rows["score"]``.
    """
    train_file = _write_records(folder / "train" / "rows.gz", rows["train"])
    choose_file = _write_records(folder / "choose" / "rows.gz", rows["choose"])
    transform_graph = _transform_graph(run, dataset, train_file, folder / "transform")
    model_dir = _train(run, (train_file, choose_file), transform_graph, folder, **hparams)
    return model_scores(model_dir, rows["score"], dataset.prediction_key)


def _trees_scores(
    dataset: DatasetDeclaration, tables: dict, labels: dict[str, list[int]]
) -> tuple[np.ndarray, str]:
    """The trees trained on "train", the setting best on "choose": their scores on "score"."""
    from sklearn.metrics import roc_auc_score

    others = {name: tables[name] for name in ("choose", "score")}
    scores = fit_trees(dataset, tables["train"], labels["train"], others)
    chosen = max(scores, key=lambda k: roc_auc_score(labels["choose"], scores[k]["choose"]))
    return scores[chosen]["score"], chosen


def _round(
    dataset: DatasetDeclaration,
    run: PipelineRun,
    rows: dict[str, list[bytes]],
    keep_scores: bool,
    hparams: dict,
) -> dict:
    """One round's AUCs on ``rows["score"]``: the run's pipeline, and the trees.

    With ``keep_scores``, also the scored rows' labels and both models' scores.
    """
    tables, labels = _labelled_tables(dataset, rows)
    with tempfile.TemporaryDirectory(prefix="bench-dataset-") as folder:
        scores = _pipeline_scores(run, dataset, rows, Path(folder), hparams)
    trees_scores, setting = _trees_scores(dataset, tables, labels)
    figures = {
        "pipeline_auc": _auc(labels["score"], scores),
        "trees_auc": _auc(labels["score"], trees_scores),
        "trees_setting": setting,
    }
    if keep_scores:
        figures["scored"] = {"labels": labels["score"], "pipeline": scores, "trees": trees_scores}
    return figures


def cross_validate(
    dataset: DatasetDeclaration,
    run: PipelineRun,
    records: dict[str, list[bytes]],
    folds: int,
    *,
    keep_scores: bool = False,
    hparams: dict | None = None,
) -> dict:
    """The run's pipeline and the trees over ``folds`` rounds of the train and validation rows.

    In each round one fold is scored, the next one chooses (the model's early stopping,
    the trees' setting) and the others train (Transform's analysis too), as the run's
    train, validation and test splits do; a dataset's entity keeps each entity's rows in
    one fold, as its splits do. The test split is never read. With
    ``keep_scores`` each round also holds its scored rows' labels and both models'
    scores (``"scored"``; arrays, for an interval over the rounds: not JSON).
    ``hparams`` replace the run's Trainer settings: a setting is tried without a new run.
    """
    dealt = deal_folds(records[TRAIN] + records[VALIDATION], folds, entity=dataset.entity)
    rounds = []
    for scored, choosing, training in fold_roles(folds):
        started = time.monotonic()
        train = [r for k in training for r in dealt[k]]
        rows = {"train": train, "choose": dealt[choosing], "score": dealt[scored]}
        rounds.append(_round(dataset, run, rows, keep_scores, hparams or {}))
        print(
            f"round {scored + 1} of {folds}: pipeline {rounds[-1]['pipeline_auc']:.4f}, "
            f"trees {rounds[-1]['trees_auc']:.4f} ({time.monotonic() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    differences = [r["pipeline_auc"] - r["trees_auc"] for r in rounds]
    return {
        "folds": folds,
        "rows": sum(len(fold) for fold in dealt),
        "pipeline_auc_mean": round(sum(r["pipeline_auc"] for r in rounds) / folds, 4),
        "trees_auc_mean": round(sum(r["trees_auc"] for r in rounds) / folds, 4),
        "pipeline_minus_trees_mean": round(sum(differences) / folds, 4),
        "rounds_pipeline_ahead": sum(d > 0 for d in differences),
        "rounds": rounds,
    }


def retrain_with_seeds(
    dataset: DatasetDeclaration,
    run: PipelineRun,
    records: dict[str, list[bytes]],
    seeds: Sequence[int],
    trees_auc: float,
    hparams: dict | None = None,
) -> dict:
    """The run's Trainer again with each of ``seeds``: validation and test AUC of each model.

    Everything else is the run's: its train split, its Transform graph, its Trainer's
    settings, early stopping on its validation split. So a seed's figures are what
    the run would have scored with that seed, and the run's own seed gives its model.
    Counts the seeds whose test AUC is at least ``trees_auc`` (the trees', on test).
    ``hparams`` replace the run's other Trainer settings.
    """
    examples = run.output(node_ids.EXAMPLE_GEN, "examples").uri
    transform_graph = run.output(node_ids.TRANSFORM, "transform_graph").uri
    files = tuple(str(Path(examples, f"Split-{split}", "*")) for split in (TRAIN, VALIDATION))
    labels = {
        split: _labels(dataset, _table(records[split], list(dataset.label_source_columns())))
        for split in (VALIDATION, TEST)
    }
    runs = []
    for seed in seeds:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="bench-dataset-") as folder:
            model_dir = _train(
                run, files, transform_graph, Path(folder), **{**(hparams or {}), "seed": seed}
            )
            aucs = {
                split: _auc(
                    labels[split], model_scores(model_dir, records[split], dataset.prediction_key)
                )
                for split in labels
            }
        runs.append({"seed": seed, "validation_auc": aucs[VALIDATION], "test_auc": aucs[TEST]})
        print(
            f"seed {seed}: validation {aucs[VALIDATION]:.4f}, test {aucs[TEST]:.4f} "
            f"({time.monotonic() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    return {
        "seeds": list(seeds),
        "validation_auc_mean": round(sum(r["validation_auc"] for r in runs) / len(runs), 4),
        "test_auc_mean": round(sum(r["test_auc"] for r in runs) / len(runs), 4),
        "seeds_at_least_trees": sum(r["test_auc"] >= trees_auc for r in runs),
        "runs": runs,
    }


def main() -> None:
    """Compare and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="credit_data")
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR)
    parser.add_argument(
        "--folds",
        type=int,
        default=0,
        help="also cross-validate both over this many folds of the train and validation "
        "rows (at least 3; a round costs about a run's Transform and Trainer)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[],
        help="also train the run's model again with each seed, on the run's own splits "
        "and Transform graph (a seed costs about a run's Trainer)",
    )
    parser.add_argument(
        "--hparam",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="replace one of the run's training settings in --folds and --seeds "
        "(VALUE in JSON; repeatable): a setting judged without a new run",
    )
    args = parser.parse_args()
    if args.folds and args.folds < 3:
        parser.error(f"--folds needs at least 3 (score, choose, train), got {args.folds}")
    try:
        overrides = parse_pairs(args.hparam)
        HParams.with_overrides(overrides)  # names and types checked before any work
    except ValueError as error:
        parser.error(str(error))
    dataset = datasets.load(args.dataset)
    run = finished_run(dataset, output_dir_for(args.dataset, args.output_dir))
    records = run_records(run)
    figures = compare(dataset, run, records)
    if args.folds:
        figures["cross_validation"] = cross_validate(
            dataset, run, records, args.folds, hparams=overrides
        )
    if args.seeds:
        figures["seeds"] = retrain_with_seeds(
            dataset, run, records, args.seeds, figures["trees_auc"], overrides
        )
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
