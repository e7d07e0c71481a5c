"""The documentation site builds, strictly: a broken link or a page left out fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import ROOT
from test_import_direction import SOURCES


@pytest.mark.slow  # builds the whole site
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        # mkdocs-material's banner about MkDocs 2.0: mkdocs is pinned to 1.6.1.
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert build.returncode == 0, build.stderr
    assert (site / "index.html").is_file()
    assert (site / "explanation" / "stack" / "index.html").is_file()


def test_the_readme_links_to_files_that_exist() -> None:
    # The README is read on GitHub and in the checkout, outside the site mkdocs checks.
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert targets
    missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_every_docs_page_the_code_names_exists() -> None:
    # Code keeps one line of why and points to the page with the figures: a renamed or
    # moved page must not leave the pointer dangling.
    named = {
        (path.relative_to(ROOT), page)
        for folder in SOURCES
        for path in (ROOT / folder).rglob("*.py")
        for page in re.findall(r"docs/[\w./-]+?\.md", path.read_text())
    }
    assert named, "no code names a docs page: the pattern is wrong"
    missing = sorted(f"{source}: {page}" for source, page in named if not (ROOT / page).is_file())
    assert not missing, missing
