import json
import shutil

import pytest

from modules import datasets
from pipeline_def import node_ids
from pipeline_def.code_digest import CODE_DIGEST_KEY, model_code_digest
from pipeline_def.config import PipelineConfig, SqliteMetadata
from pipeline_def.pipeline import create_pipeline

MODULES_DIR = datasets.DATASETS_DIR.parent


@pytest.fixture
def modules_copy(tmp_path):
    copy = tmp_path / "modules"
    shutil.copytree(MODULES_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _append(path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_the_copy_has_the_checkouts_digest(modules_copy):
    assert model_code_digest("taxi", modules_copy) == model_code_digest("taxi")


@pytest.mark.parametrize(
    "edited",
    ["datasets/taxi/__init__.py", "datasets/taxi/schema.pbtxt", "model.py", "datasets/__init__.py"],
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
    (modules_copy / "__pycache__").mkdir()
    (modules_copy / "__pycache__/model.cpython-310.pyc").write_bytes(b"\0")
    assert model_code_digest("taxi", modules_copy) == before
    assert model_code_digest("credit_data", modules_copy) != model_code_digest("credit_data")


def test_the_steps_that_run_model_code_carry_the_digest(tmp_path):
    config = PipelineConfig(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
        metadata=SqliteMetadata(str(tmp_path / "metadata.sqlite")),
        dataset="credit_data",
        tune=True,
    )
    by_id = {c.id: c for c in create_pipeline(config).components}
    digest = model_code_digest("credit_data")
    assert digest != model_code_digest("taxi")
    for node in (node_ids.TRANSFORM, node_ids.TUNER, node_ids.TRAINER):
        custom_config = json.loads(by_id[node].exec_properties["custom_config"])
        assert custom_config[CODE_DIGEST_KEY] == digest
