"""CuratedSchema: keyed by the shipped file's digest, refusing a file it was not compiled with."""

from __future__ import annotations

import pytest
from tfx import v1 as tfx

from components.curated_schema import PACKAGES_ROOT, SCHEMA_FILE, CuratedSchema, sha256_of
from pipeline_def.project_paths import curated_schema_of

SOURCE = curated_schema_of("taxi")


def _run(sha256: str, tmp_path) -> None:
    schema = tfx.types.standard_artifacts.Schema()
    schema.uri = str(tmp_path / "schema")
    executor = CuratedSchema.EXECUTOR_SPEC.executor_class()
    executor.Do({}, {"schema": [schema]}, {"source": SOURCE, "sha256": sha256})


def test_the_file_compiled_is_copied(tmp_path):
    _run(sha256_of(PACKAGES_ROOT / SOURCE), tmp_path)
    copied = tmp_path / "schema" / SCHEMA_FILE
    assert copied.read_bytes() == (PACKAGES_ROOT / SOURCE).read_bytes()


def test_another_file_than_the_one_compiled_is_refused(tmp_path):
    with pytest.raises(ValueError, match="the pipeline was compiled with 000000000000"):
        _run("0" * 64, tmp_path)
    assert not (tmp_path / "schema" / SCHEMA_FILE).exists()


def test_the_digest_is_the_steps_parameter_so_an_edit_is_a_new_cache_key():
    component = CuratedSchema(source=SOURCE, sha256=sha256_of(PACKAGES_ROOT / SOURCE))
    assert component.exec_properties["sha256"] == sha256_of(PACKAGES_ROOT / SOURCE)
