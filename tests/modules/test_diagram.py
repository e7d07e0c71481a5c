import logging
import shutil

import pytest

from datasets.taxi import DATASET as TAXI
from modules import features
from modules.diagram import diagram_in, start_diagram
from modules.hparams import HParams
from modules.model import build_model


@pytest.fixture(scope="module")
def model():
    sizes = TAXI.fixed_cardinalities()
    sizes.update(
        {features.transformed_name(v.name): 10 + v.num_oov_buckets for v in TAXI.vocabularies}
    )
    return build_model(TAXI, sizes, HParams(hidden_units=(8,)))


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
@pytest.mark.slow  # draws with graphviz's dot in a process of its own
def test_the_diagram_is_drawn_apart_and_lands_in_the_run_dir(model, tmp_path):
    drawing = start_diagram(model)
    assert drawing is not None
    drawing.finish(str(tmp_path))
    with open(diagram_in(str(tmp_path)), "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"


def test_without_dot_there_is_no_drawing_and_a_warning(model, monkeypatch, caplog):
    monkeypatch.setenv("PATH", "/nonexistent")
    with caplog.at_level(logging.WARNING, logger="modules.diagram"):
        assert start_diagram(model) is None
    assert "graphviz's `dot` is not installed" in caplog.text


def test_a_failed_dot_leaves_no_diagram_and_warns(model, tmp_path, monkeypatch, caplog):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dot").write_text("#!/bin/sh\necho 'syntax error in line 1' >&2\nexit 1\n")
    (fake / "dot").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    with caplog.at_level(logging.WARNING, logger="modules.diagram"):
        start_diagram(model).finish(str(tmp_path))
    assert "dot failed: syntax error in line 1" in caplog.text
    assert not (tmp_path / "model.png").exists()
