"""The spans demo's refusal of a data root that is not there."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def demo(load_script):
    return load_script("spans_demo")


def test_a_missing_data_root_is_named_and_nothing_runs(demo, tmp_path, capsys):
    missing = tmp_path / "nowhere"
    code = demo.main(["--data-root", str(missing), "--output-dir", str(tmp_path / "out")])
    assert code == 1
    assert capsys.readouterr().err == f"error: {missing} is not a folder (make spans writes it)\n"
    assert not (tmp_path / "out").exists()
