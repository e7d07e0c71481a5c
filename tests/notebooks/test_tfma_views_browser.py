"""TFMA's own views draw in a real browser: the shipped notebook, run in a live kernel.

Starts the classic Notebook server of ``.venv-notebook`` (``make notebook`` builds it) on
127.0.0.1 with a token, opens ``notebooks/tfma_views.ipynb`` in headless Chromium on the
recorded runs' Evaluator outputs, runs every cell through the menu (Cell > Run All), in a
fresh kernel, again in the reopened page on the warm kernel, and once more with every
request beyond the notebook server blocked, and looks into the widgets' shadow DOM: each
of the three views must be drawn with this project's metrics in it, and nothing may be
left at "Loading widget...", a widget's text repr, a failed model or an error in the
page's console. Offline, the charts inside the views stay blank, as the notebook's first
cell says: the run with the network blocked checks that, and what the page asked for.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import headless_chromium
from run_commands import free_port

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
NOTEBOOK_ENV = PROJECT / ".venv-notebook"
NOTEBOOK = "tfma_views.ipynb"
RECORDED_EVALUATIONS = PROJECT / "tests" / "fixtures" / "runs" / "pipeline"
# What a view that never drew leaves in its output: JupyterLab's and Notebook 7's
# placeholder, their error for an unknown widget module, and the classic notebook's
# plain-text repr of a widget it cannot show.
NOT_DRAWN = ("Loading widget", "not registered", "Error displaying widget", "Viewer(")

# Everything the test reads from the page, in one pass through the shadow roots: TFMA's
# views are Polymer elements, each behind several shadow roots.
READ_PAGE = r"""
const all = (root, tag) => {
  const found = [];
  for (const el of root.querySelectorAll('*')) {
    if (el.tagName.toLowerCase() === tag) found.push(el);
    if (el.shadowRoot) found.push(...all(el.shadowRoot, tag));
  }
  return found;
};
const text = (node) => {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent + ' ';
  if (node.nodeType !== Node.ELEMENT_NODE || ['STYLE', 'SCRIPT'].includes(node.tagName)) return '';
  let out = node.tagName === 'INPUT' ? node.value + ' ' : '';  // a dropdown shows its choice
  if (node.shadowRoot) out += Array.from(node.shadowRoot.childNodes).map(text).join('');
  return out + Array.from(node.childNodes).map(text).join('');
};
const drawn = (tag) => all(document, tag).map((el) => {
  const box = el.getBoundingClientRect();
  return {width: box.width, height: box.height, text: text(el).replace(/\s+/g, ' ')};
});
return {
  outputs: Array.from(document.querySelectorAll('.output_subarea')).map((e) => e.innerText),
  errors: document.querySelectorAll('.output_error').length,
  slicing: drawn('tfma-slicing-metrics-browser'),
  plot: drawn('tfma-plot'),
  series: drawn('tfma-time-series-browser'),
  charts: all(document, 'google-chart').filter((c) => all(c, 'svg').length > 0).length,
  // A google-chart element sets its drawn property once Google Charts drew it (a table too).
  chartElements: all(document, 'google-chart').length,
  chartsReady: all(document, 'google-chart').filter((c) => c.drawn).length,
  google: !!(window.google && window.google.visualization),
  chartLoaderFailures: window.chartLoaderFailures || 0,
  // Every address the page asked for beyond the notebook server, answered or not.
  outside: performance.getEntriesByType('resource').map((e) => e.name)
    .filter((url) => new URL(url).origin !== location.origin),
  intro: document.querySelector('.text_cell_render').innerText,
};
"""
# Each of TFMA's charts awaits Google Charts' loader from www.gstatic.com and leaves its
# failure unhandled, which the console logs as an error without a message. Counted here
# by their cause, so that any other error still reaches the console.
COUNT_CHART_LOADER_FAILURES = """
performance.setResourceTimingBufferSize(100000);  // every request, not the first 250
window.addEventListener('unhandledrejection', (event) => {
  const target = event.reason && event.reason.target;
  if (target && String(target.src).startsWith('https://www.gstatic.com/charts/')) {
    window.chartLoaderFailures = (window.chartLoaderFailures || 0) + 1;
    event.preventDefault();
  }
});
"""


# Where the notebook stands, for a timeout's message.
PAGE_STATE = """
const nb = window.Jupyter && Jupyter.notebook;
if (!nb) return 'no notebook on the page';
return {
  kernel: nb.kernel ? {connected: nb.kernel.is_connected(), busy: nb.kernel_busy} : null,
  prompts: nb.get_cells().filter((c) => c.cell_type === 'code').map((c) => c.input_prompt_number),
  outputs: Array.from(document.querySelectorAll('.output_subarea')).map((e) => e.innerText),
};
"""


@dataclass
class Page:
    """The notebook's page after Run All: what the views drew, the console, a screenshot."""

    shown: dict
    console: list[dict]
    screenshot: Path


def _notebook_server(root: Path, evaluations: Path) -> tuple[subprocess.Popen, str]:
    """A classic Notebook server on ``root`` and its notebook URL (with the token)."""
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, WIDE_DEEP_EVALUATION=str(evaluations))
    # The user's own Jupyter and IPython settings (a disabled extension, a startup
    # script) stay out of the test; the environment's --sys-prefix settings still apply.
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(root.parent / name.lower())
    command = [
        str(NOTEBOOK_ENV / "bin" / "jupyter"), "notebook", "--no-browser",
        "--ip=127.0.0.1", f"--port={port}", f"--NotebookApp.token={token}",
        f"--notebook-dir={root}",
    ]  # fmt: skip
    if os.geteuid() == 0:  # the notebook refuses root without it
        command.append("--allow-root")
    log = (root.parent / "server.log").open("w")
    server = subprocess.Popen(
        command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    status = f"http://127.0.0.1:{port}/api/status?token={token}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(status, timeout=2):
                break
        except OSError as error:
            if server.poll() is not None or time.monotonic() > deadline:
                _stop(server)
                message = f"the notebook server did not start; see {log.name}"
                raise AssertionError(message) from error
            time.sleep(0.5)
    return server, f"http://127.0.0.1:{port}/notebooks/{NOTEBOOK}?token={token}"


def _stop(server: subprocess.Popen) -> None:
    # SIGTERM lets the server shut its kernel down; the group is this test's own.
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def _wait_for(browser, script: str, seconds: float, what: str):
    """The first true value ``script`` returns within ``seconds``; failing, the page's state."""
    deadline = time.monotonic() + seconds
    while not (value := browser.execute_script(script)):
        if time.monotonic() > deadline:
            state = browser.execute_script(PAGE_STATE)
            raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}: {state}")
        time.sleep(0.5)
    return value


def _poll(browser, done: Callable[[dict], bool], seconds: float) -> dict:
    """What READ_PAGE reads, once ``done`` holds for it or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done(shown := browser.execute_script(READ_PAGE)) and time.monotonic() < deadline:
        time.sleep(1)
    return shown


def _views_drawn(shown: dict) -> bool:
    def has(view: str, word: str) -> bool:
        return any(v["height"] > 100 and word in v["text"] for v in shown[view])

    return has("slicing", "auc") and has("plot", "Calibration") and has("series", "auc")


def _run_all(browser, url: str, screenshot: Path) -> Page:
    """Open the notebook, run every cell through the menu, and read what the views drew."""
    from selenium.webdriver.common.by import By

    browser.get(url)
    _wait_for(
        browser,
        "return !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel"
        " && Jupyter.notebook.kernel.is_connected())",
        120,
        "the kernel (the runtime .venv) to connect",
    )
    browser.find_element(By.LINK_TEXT, "Cell").click()
    browser.find_element(By.ID, "run_all_cells").click()
    # Every code cell has run when each has a number (a queued or running one shows *);
    # Run All stops at a cell that raised, so an error output ends the wait too.
    _wait_for(
        browser,
        "const cells = Jupyter.notebook.get_cells().filter((c) => c.cell_type === 'code');"
        "return cells.every((c) => Number.isInteger(c.input_prompt_number))"
        " || document.querySelector('.output_error') !== null;",
        300,
        "every cell to run",
    )
    try:
        shown = _poll(browser, _views_drawn, 60)  # views render just after their output
        if shown["google"]:  # Google Charts loaded: give the charts time to draw
            shown = _poll(browser, lambda page: page["charts"] > 0, 30)
    finally:
        browser.save_screenshot(str(screenshot))
    return Page(shown, browser.get_log("browser"), screenshot)


# A fresh kernel spends seconds importing TensorFlow, and the views arrive seconds apart;
# the page reopened on the same, now warm kernel gets them within a second, which is when
# TFMA's template loading raced the widget manager's requirejs (one view failed). The
# third run blocks every request beyond the notebook server, as on a machine offline,
# whether or not the machine running the test reaches the internet.
RUNS = ("fresh kernel", "warm kernel", "network blocked")
OFFLINE = RUNS[-1]
CHART_LOADER = "https://www.gstatic.com/charts/loader.js"


def _block_all_but(browser, origin: str) -> None:
    """Every later request of ``browser`` fails unless it goes to ``origin``."""
    browser.execute_cdp_cmd("Network.enable", {})
    patterns = [
        {"urlPattern": f"{origin}/*", "block": False},
        {"urlPattern": "*://*:*/*", "block": True},
    ]
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urlPatterns": patterns})


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Page]]:
    """The shipped notebook run through the UI on the recorded runs' Evaluator outputs,
    in a fresh kernel, then again in a reopened page on the same kernel."""
    if not (NOTEBOOK_ENV / "bin" / "jupyter").exists():
        pytest.skip(f"{NOTEBOOK_ENV.name} is absent: `make notebook` builds it")

    base = tmp_path_factory.mktemp("notebook")
    # A copy: the server autosaves the notebook it runs, and the repository's stays clean.
    root = base / "notebooks"
    root.mkdir()
    for name in (NOTEBOOK, "evaluations.py"):
        shutil.copy(PROJECT / "notebooks" / name, root / name)
    evaluations = base / "runs"
    shutil.copytree(RECORDED_EVALUATIONS, evaluations)

    browser = headless_chromium(window_size="1400,2400", browser_log=True)  # may skip: first
    try:
        server, url = _notebook_server(root, evaluations)
    except BaseException:
        browser.quit()
        raise
    try:
        browser.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_CHART_LOADER_FAILURES}
        )
        pages = {}
        for run in RUNS:
            if run == OFFLINE:
                _block_all_but(browser, "{0.scheme}://{0.netloc}".format(urlsplit(url)))
            pages[run] = _run_all(browser, url, base / f"tfma_views-{run.replace(' ', '-')}.png")
        yield pages
    finally:
        browser.quit()
        _stop(server)


def _one(shown: dict, view: str) -> dict:
    """The one drawn element of ``view``; failing, what the cells' outputs showed instead."""
    drawn = [element for element in shown[view] if element["height"] > 100]
    assert len(drawn) == 1, f"{len(drawn)} {view} views drawn; outputs: {shown['outputs']}"
    return drawn[0]


@pytest.mark.parametrize("run", RUNS)
def test_the_three_views_are_drawn_with_this_projects_metrics(pages, run):
    shown = pages[run].shown
    assert shown["errors"] == 0, shown["outputs"]
    leftovers = [o for o in shown["outputs"] if any(mark in o for mark in NOT_DRAWN)]
    assert leftovers == [], leftovers
    newest = max(
        (p for p in (RECORDED_EVALUATIONS / "Evaluator" / "evaluation").iterdir() if p.is_dir()),
        key=lambda p: int(p.name),
    )
    assert any(f"Evaluator/evaluation/{newest.name}\n" in o for o in shown["outputs"])
    slicing, plot, series = (_one(shown, view) for view in ("slicing", "plot", "series"))
    for word in ("Slices Overview", "example_count", "auc", "binary_accuracy"):
        assert word in slicing["text"], slicing["text"][:500]
    for word in ("Plot for Overall", "Calibration Plot", "ROC Curve", "Precision-Recall Curve"):
        assert word in plot["text"], plot["text"][:500]
    assert "auc" in series["text"], series["text"][:500]


@pytest.mark.parametrize("run", RUNS)
def test_the_page_logs_no_widget_error(pages, run):
    # Only the fonts and Google Charts that TFMA loads from Google's servers may fail
    # (a machine without internet access); any other error is a view that broke.
    external = ("fonts.googleapis.com", "www.gstatic.com")
    errors = [
        entry["message"]
        for entry in pages[run].console
        if entry["level"] == "SEVERE" and not any(host in entry["message"] for host in external)
    ]
    assert errors == [], json.dumps(errors, indent=1)[:3000]


def test_the_charts_inside_the_views_are_drawn(pages):
    page = pages[RUNS[0]]
    if not page.shown["google"]:
        pytest.skip(
            "the browser could not load Google Charts from www.gstatic.com, which TFMA's "
            "charts are drawn with (no internet access here); the views around them are, "
            f"and {page.shown['chartLoaderFailures']} charts waited for it in vain"
        )
    assert page.shown["charts"] > 0


def test_offline_the_charts_stay_blank_as_the_notebooks_first_cell_says(pages):
    shown = pages[OFFLINE].shown
    # The views around the charts are drawn (checked above for this run too); the charts
    # are not, nor is Google Charts there, and each chart waited for its loader in vain.
    assert shown["chartElements"] > 0 and shown["chartsReady"] == shown["charts"] == 0, shown
    assert not shown["google"] and shown["chartLoaderFailures"] > 0
    # What the page asked for beyond the notebook server: Google Charts' loader and the
    # Roboto font, nothing else (the notebook's own scripts and MathJax are served).
    assert CHART_LOADER in shown["outside"], shown["outside"]
    hosts = {urlsplit(url).hostname for url in shown["outside"]}
    assert hosts == {"www.gstatic.com", "fonts.googleapis.com"}, shown["outside"]
    intro = shown["intro"]  # the first cell as the page renders it
    for claim in ("Offline, the charts in these views stay blank", CHART_LOADER):
        assert claim in intro, intro
    assert "fonts.googleapis.com" in intro and "wide-deep-review --html" in intro, intro
