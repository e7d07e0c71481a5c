"""Where the project keeps things on a machine: its root, each dataset's data, the runs' outputs.

One set of rules for the local runner, the Kubeflow harness, the draft command, the
benchmarks and the tests: a dataset's data lies in ``data/<dataset>/``, a run writes
under ``outputs/`` (``outputs/<dataset>/`` for a dataset other than the default one).
Nothing here reads a dataset's declaration: these are names of folders, not settings.
"""

from __future__ import annotations

from pathlib import Path

import datasets

# The folder holding the project's packages: the checkout, or site-packages in the image.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_ROOT = PROJECT_ROOT / "data"
DEFAULT_OUTPUT_DIR = PROJECT_ROOT / "outputs"


def data_root_of(dataset: str) -> Path:
    """Where ``dataset``'s data lives when no data root is given: ``data/<dataset>/``.

    One rule for the local runner, the Kubeflow harness and the draft command: a data
    root is a folder of CSV files, or of span folders (``span-<N>/``) of CSV files.
    """
    return DEFAULT_DATA_ROOT / dataset


def sample_csv(dataset: str) -> Path:
    """The sample that ships with ``dataset``, in its data root."""
    return data_root_of(dataset) / f"{dataset}.csv"


def curated_schema_of(dataset: str) -> str:
    """``dataset``'s curated schema, relative to the folder holding the project's packages."""
    return datasets.schema_path(dataset).relative_to(PROJECT_ROOT).as_posix()


def output_dir_for(dataset: str, output_dir: Path) -> Path:
    """Where a run keeps its store, artifacts and pushed models.

    Datasets other than the default one keep theirs in a folder of their own under
    the default output dir, so that no model is judged against another table's.
    """
    if dataset == datasets.DEFAULT or output_dir != DEFAULT_OUTPUT_DIR:
        return output_dir
    return output_dir / dataset
