"""The pipeline's model against tuned gradient-boosted trees, on the pipeline's own splits.

    python scripts/bench_dataset.py [--dataset credit_data] [--output-dir DIR]

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
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from pathlib import Path

from pipeline_ops.cli.quiet import quiet_libraries

quiet_libraries()  # before TFX and TF are imported: they chatter on import

from components.splits import TEST, TRAIN, VALIDATION  # noqa: E402
from modules import datasets, keras_setup  # noqa: E402, F401 - Keras 2 before TF loads
from modules.features import Dataset  # noqa: E402
from pipeline_def import node_ids as ids  # noqa: E402
from pipeline_def.config import DEFAULT_OUTPUT_DIR, output_dir_for  # noqa: E402
from pipeline_ops.metadata.runs import latest_run  # noqa: E402
from pipeline_ops.metadata.store import metadata_for, open_store  # noqa: E402

# The trees' settings: learning rate, leaves per tree, L2; early stopping picks the
# number of trees on a tenth of the train split.
SETTINGS = list(itertools.product((0.03, 0.1), (8, 31), (0.0, 1.0)))
BOOTSTRAP_ROUNDS = 2000


def _records(examples_uri: str, split: str) -> list[bytes]:
    import tensorflow as tf

    files = sorted(str(p) for p in Path(examples_uri, f"Split-{split}").glob("*"))
    return [r.numpy() for r in tf.data.TFRecordDataset(files, compression_type="GZIP")]


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


def _labels(dataset: Dataset, table) -> list[int]:  # noqa: ANN001 - a DataFrame
    column = dataset.label.columns[0]
    return [int(str(v).strip() == dataset.label.positive) for v in table[column]]


def auc_difference_interval(
    labels: Sequence[int],
    first: Sequence[float],
    second: Sequence[float],
    *,
    rounds: int = BOOTSTRAP_ROUNDS,
    seed: int = 0,
) -> tuple[float, float]:
    """The 95% paired-bootstrap interval of AUC(first) - AUC(second) on the same rows.

    Each round draws the rows with replacement and scores both on the same draw, so
    what the two models share (the split's hard and easy rows) cancels out.
    """
    import numpy as np
    from sklearn.metrics import roc_auc_score

    y, a, b = np.asarray(labels), np.asarray(first), np.asarray(second)
    rng = np.random.default_rng(seed)
    differences = []
    for _ in range(rounds):
        rows = rng.integers(0, len(y), len(y))
        if y[rows].min() != y[rows].max():  # a draw of one class has no AUC
            differences.append(roc_auc_score(y[rows], a[rows]) - roc_auc_score(y[rows], b[rows]))
    low, high = np.percentile(differences, [2.5, 97.5])
    return round(float(low), 4), round(float(high), 4)


def compare(dataset: Dataset, output_dir: Path) -> dict:
    """Both AUCs on the run's blessing split, and the trees' best setting."""
    import numpy as np
    import tensorflow as tf
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    if dataset.label.positive is None:
        raise SystemExit(f"dataset {dataset.name} computes its label in code: no benchmark")
    run = latest_run(open_store(metadata_for(output_dir, None)), dataset.pipeline_name)
    if run is None or run.output(ids.TRAINER, "model") is None:
        raise SystemExit(f"no finished run of {dataset.pipeline_name} in {output_dir}")
    examples = run.output(ids.EXAMPLE_GEN, "examples").uri
    features = list(dataset.raw_feature_columns())
    columns = features + list(dataset.label_source_columns())
    records = {split: _records(examples, split) for split in (TRAIN, VALIDATION, TEST)}
    tables = {split: _table(rows, columns) for split, rows in records.items()}
    labels = {split: _labels(dataset, table) for split, table in tables.items()}
    train = tables[TRAIN]
    model_dir = Path(run.output(ids.TRAINER, "model").uri) / "Format-Serving"
    serve = tf.saved_model.load(str(model_dir)).signatures["serving_default"]

    def predict(split: str) -> np.ndarray:
        """The run's model's scores on ``split``, through its serving signature."""
        rows = records[split]
        return np.concatenate(
            [
                serve(examples=tf.constant(rows[i : i + 1024]))[dataset.prediction_key]
                .numpy()
                .ravel()
                for i in range(0, len(rows), 1024)
            ]
        )

    pipeline_scores = {split: predict(split) for split in (VALIDATION, TEST)}
    pipeline_auc = {
        split: round(roc_auc_score(labels[split], scores), 4)
        for split, scores in pipeline_scores.items()
    }

    categorical = [c for c in features if train[c].dtype == object]
    for c in categorical:
        # The categories of the train split; others are missing to the trees.
        seen = sorted(set(train[c].dropna()))
        for table in tables.values():
            table[c] = table[c].astype("category").cat.set_categories(seen)
    trees, tree_scores = {}, {}
    for rate, leaves, l2 in SETTINGS:
        model = HistGradientBoostingClassifier(
            learning_rate=rate, max_leaf_nodes=leaves, l2_regularization=l2, max_iter=500,
            early_stopping=True, validation_fraction=0.1, random_state=0,
            categorical_features="from_dtype",
        )  # fmt: skip
        model.fit(train[features], labels[TRAIN])
        setting = f"learning_rate={rate} max_leaf_nodes={leaves} l2={l2}"
        tree_scores[setting] = {
            split: model.predict_proba(tables[split][features])[:, 1]
            for split in (VALIDATION, TEST)
        }
        trees[setting] = {
            split: round(roc_auc_score(labels[split], scores), 4)
            for split, scores in tree_scores[setting].items()
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


def main() -> None:
    """Compare and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="credit_data")
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR)
    args = parser.parse_args()
    dataset = datasets.load(args.dataset)
    print(json.dumps(compare(dataset, output_dir_for(args.dataset, args.output_dir)), indent=1))


if __name__ == "__main__":
    main()
