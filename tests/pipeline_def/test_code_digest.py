import json
import shutil

import pytest

from pipeline_def import node_ids
from pipeline_def.code_digest import (
    CODE_DIGEST_KEY,
    DATASETS,
    MODEL_CODE,
    STEP_PACKAGES,
    model_code_digest,
    package_folder,
    run_fingerprint,
    step_code_digest,
)
from pipeline_def.config import PipelineConfig
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_def.pipeline import create_pipeline
from pipeline_def.project_paths import PROJECT_ROOT


@pytest.fixture
def modules_copy(tmp_path):
    """The model code and the datasets, copied."""
    for folder in (MODEL_CODE, DATASETS):
        shutil.copytree(
            PROJECT_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path


def _append(path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_the_copy_has_the_checkouts_digest(modules_copy):
    assert model_code_digest("taxi", modules_copy) == model_code_digest("taxi")


@pytest.mark.parametrize(
    "edited",
    [
        "datasets/taxi/__init__.py",
        "datasets/taxi/schema.pbtxt",
        "modules/model.py",
        "datasets/__init__.py",
    ],
)
def test_an_edit_of_the_code_a_run_uses_changes_the_digest(modules_copy, edited):
    before = model_code_digest("taxi", modules_copy)
    _append(modules_copy / edited, "\n# edited\n")
    assert model_code_digest("taxi", modules_copy) != before


def test_another_datasets_declaration_and_bytecode_leave_it(modules_copy):
    before = model_code_digest("taxi", modules_copy)
    _append(modules_copy / "datasets/credit_data/__init__.py", "\n# edited\n")
    (modules_copy / "datasets/drafted").mkdir()
    (modules_copy / "datasets/drafted/__init__.py").write_text("DATASET = None\n")
    (modules_copy / "modules/__pycache__").mkdir()
    (modules_copy / "modules/__pycache__/model.cpython-310.pyc").write_bytes(b"\0")
    assert model_code_digest("taxi", modules_copy) == before
    assert model_code_digest("credit_data", modules_copy) != model_code_digest("credit_data")


def test_the_steps_that_run_project_code_carry_its_digest(tmp_path):
    config = PipelineConfig.resolve(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
        metadata=SqliteMetadata(str(tmp_path / "metadata.sqlite")),
        dataset="credit_data",
        tune=True,
    )
    by_id = {c.id: c for c in create_pipeline(config).components}
    digest = step_code_digest("credit_data")
    assert digest != step_code_digest("taxi")
    for node in (node_ids.EXAMPLE_GEN, node_ids.TRANSFORM, node_ids.TUNER, node_ids.TRAINER):
        custom_config = json.loads(by_id[node].exec_properties["custom_config"])
        assert custom_config[CODE_DIGEST_KEY] == digest


@pytest.fixture
def project_copy(tmp_path):
    """The packages the steps run, copied."""
    for package in map(package_folder, STEP_PACKAGES):
        shutil.copytree(
            PROJECT_ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path


def _config(**settings) -> PipelineConfig:
    paths = {"pipeline_root": "/o/pipeline", "data_root": "/d", "serving_dir": "/o/serving"}
    return PipelineConfig.resolve(**{**paths, **settings})


def test_the_run_fingerprint_holds_what_shapes_a_run_and_not_how_it_is_carried_out(project_copy):
    base = run_fingerprint(_config(), project_copy)
    assert base == run_fingerprint(_config())
    for what in ({"train_steps": 7}, {"window": 3}, {"hparam_overrides": (("dropout", 0.3),)},
                 {"min_auc": 0.5}, {"data_root": "/elsewhere"}):  # fmt: skip
        assert run_fingerprint(_config(**what), project_copy) != base, what
    for how in ({"beam_pipeline_args": ("--direct_num_workers=2",)}, {"span": 3},
                {"metadata": SqliteMetadata("/o/m.sqlite")}, {"enable_cache": False}):  # fmt: skip
        assert run_fingerprint(_config(**how), project_copy) == base, how


@pytest.mark.parametrize(
    ("edited", "in_steps"),
    [("components/example_gen/writing.py", True), ("modules/model.py", True),
     ("data_layout/spans.py", True), ("review/paired_comparison.py", True),
     ("kubeflow/step/s3_fileio.py", True),
     ("pipeline_def/pipeline.py", False)],
)  # fmt: skip
def test_an_edit_of_any_steps_code_changes_its_digest_and_the_run_fingerprint(
    project_copy, edited, in_steps
):
    before = run_fingerprint(_config(), project_copy), step_code_digest("taxi", project_copy)
    assert before[1] == step_code_digest("taxi")
    _append(project_copy / edited, "\n# edited\n")
    after = run_fingerprint(_config(), project_copy), step_code_digest("taxi", project_copy)
    assert after[0] != before[0]
    assert (after[1] != before[1]) is in_steps
