"""The stack a run names: read from the installed distributions, none imported."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

from pipeline_def import stack as stack_module
from pipeline_def.stack import NOT_INSTALLED, stack, stack_line


def test_the_stack_is_this_environments_distributions_and_c_library():
    found = stack()
    assert list(found) == ["python", "tfx", "tensorflow", "apache_beam", "kfp", "libc"]
    assert found["tfx"] == importlib.metadata.version("tfx")
    assert found["libc"].startswith("glibc ")


def test_reading_the_stack_imports_none_of_it():
    code = "import sys; from pipeline_def.stack import stack; stack(); print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    assert "'tensorflow'" not in loaded and "'tfx'" not in loaded


def test_a_distribution_not_installed_is_named_none(monkeypatch):
    monkeypatch.setattr(stack_module, "_DISTRIBUTIONS", {"kfp": "no-such-distribution"})
    assert stack()["kfp"] == NOT_INSTALLED


def test_the_line_people_read_keeps_the_order():
    line = stack_line({"python": "3.10.13", "tfx": "1.16.0", "libc": "glibc 2.36"})
    assert line == "python 3.10.13, tfx 1.16.0, libc glibc 2.36"
