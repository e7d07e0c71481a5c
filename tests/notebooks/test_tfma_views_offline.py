"""The notebook and the how-to say first that TFMA's charts stay blank offline, and why.

Checked against the TFMA package installed here: its widget bundle loads Google Charts'
loader from Google's servers (no copy of the chart code ships with it, and Google's terms
allow none), so the notebook's top cell must name that address, say what happens
without it, and point to the review page, which draws its charts itself.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
NOTEBOOK = PROJECT / "notebooks" / "tfma_views.ipynb"
HOW_TO = PROJECT / "docs" / "how-to" / "review-evaluation.md"
CHART_LOADER = "https://www.gstatic.com/charts/loader.js"
REVIEW_PAGE = "wide-deep-review --html"


def _tfma_bundle() -> str:
    """TFMA's widget code as the notebook server serves it (found without importing TFMA,
    which loads TensorFlow)."""
    (package,) = importlib.util.find_spec("tensorflow_model_analysis").submodule_search_locations
    return (Path(package) / "static" / "vulcanized_tfma.js").read_text()


def test_tfmas_widget_loads_its_charts_from_googles_servers():
    bundle = _tfma_bundle()
    # Every script address in the bundle (its licence headers name .txt pages, not scripts).
    scripts = set(re.findall(r"""https?://[^\s"'()]+\.js\b""", bundle))
    assert scripts == {CHART_LOADER}
    # The chart code itself is not in the bundle: it only calls what the loader brings.
    assert "google.charts.load(" in bundle
    assert "jsapi_compiled" not in bundle


def test_the_notebook_says_first_that_offline_its_charts_stay_blank():
    first = json.loads(NOTEBOOK.read_text())["cells"][0]
    assert first["cell_type"] == "markdown"
    text = "".join(first["source"])
    head = text.split("\n\n")[1]  # the paragraph right under the title
    assert head.startswith("**Offline, the charts in these views stay blank.**"), head
    for claim in (CHART_LOADER, "vulcanized_tfma.js", "terms", "fonts.googleapis.com"):
        assert claim in head, claim
    assert REVIEW_PAGE in text


def test_the_how_to_says_it_too():
    section = HOW_TO.read_text().split("## TFMA's own views", 1)[1].split("\n## ", 1)[0]
    for claim in ("stay blank", CHART_LOADER, "interactive/faq", REVIEW_PAGE):
        assert claim in section, claim
