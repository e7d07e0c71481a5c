"""pytest in the environment `make run` built: tests/docs names what to install, in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
# pytest as `make run` leaves it: the docs' lock (pytest-codeblocks, mkdocs) not installed.
_WITHOUT_DOCS_TOOLS = (
    "import sys; sys.modules['pytest_codeblocks'] = sys.modules['mkdocs'] = None; "
    "import pytest; sys.exit(pytest.main(sys.argv[1:]))"
)


def _pytest_without_docs_tools(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_DOCS_TOOLS, "-q", "-p", "no:cacheprovider", *args],
        cwd=PROJECT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("asked", ["tests", "tests/docs/test_site.py"])
def test_the_docs_tests_without_their_tools_say_what_to_run_first(asked):
    ran = _pytest_without_docs_tools("--collect-only", asked)
    assert ran.returncode == pytest.ExitCode.USAGE_ERROR
    said = [line for line in (ran.stdout + ran.stderr).splitlines() if "make test-fast" in line]
    assert said == [
        "Exit: tests/docs needs pytest-codeblocks, which `make run` does not install: "
        "run `make test-fast` (or `make docs`) once, which adds the docs' tools"
    ]
    assert "Traceback" not in ran.stdout + ran.stderr


def test_other_tests_run_without_the_docs_tools():
    ran = _pytest_without_docs_tools("tests/pipeline_ops/metadata/test_store.py")
    assert ran.returncode == 0, ran.stdout[-2000:]


def test_every_file_that_reads_the_first_run_is_in_its_unit(request):
    from conftest import FIRST_RUN_FILES

    reading = {
        str(item.path.relative_to(request.config.rootpath))
        for item in request.session.items
        if "first_run" in getattr(item, "fixturenames", ())
    }
    if not reading:
        pytest.skip("no test that reads first_run was collected beside this one")
    unlisted = sorted(reading - FIRST_RUN_FILES)
    assert not unlisted, f"add {unlisted} to FIRST_RUN_FILES (tests/conftest.py)"


def test_a_test_needing_a_slow_fixture_is_slow_and_left_out_of_the_fast_tests(request):
    from conftest import SLOW_FIXTURES

    needing = [
        item for item in request.session.items
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    ]  # fmt: skip
    if not needing:
        pytest.skip("no test needing a slow fixture was collected beside this one")
    unmarked = [item.nodeid for item in needing if not item.get_closest_marker("slow")]
    assert not unmarked, f"{unmarked[:3]} need {sorted(SLOW_FIXTURES)} but are not marked slow"
