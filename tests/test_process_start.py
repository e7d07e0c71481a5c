"""Every program of the product makes the Keras choice before TensorFlow loads.

Each file that runs as a program (``if __name__ == "__main__"``) is loaded in a fresh
process whose environment lacks the choice, as a user's shell does; what it imports
on load must not bring TensorFlow in before ``startup.process.prepare`` has run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_import_direction import SOURCES

from startup.process import ENVIRONMENT

PROJECT = Path(__file__).resolve().parent.parent
_FOLDERS = (*SOURCES, "tests")
# Programs that are not the product's processes: the model server's stand-in imports
# nothing of the project, as a model server does, and loads a SavedModel of no Keras.
_APART = (PROJECT / "serving" / "standin_server.py",)
# Loads the program; at its first import of TensorFlow, says whether the choice was
# made and stops there (TensorFlow itself is never loaded: seconds saved per program).
_LOAD = """
import os, runpy, sys

class _AtTensorFlow:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "tf_keras"):
            print("tensorflow", os.environ.get("TF_USE_LEGACY_KERAS"), flush=True)
            os._exit(0)

sys.meta_path.insert(0, _AtTensorFlow())
sys.path.insert(0, os.path.dirname(sys.argv[1]))
runpy.run_path(sys.argv[1], run_name="loaded")
print("no-tensorflow", None)
"""


def programs() -> list[Path]:
    """The files of the house that run as programs."""
    found = [PROJECT / "local_runner.py", PROJECT / "kubeflow_runner.py"]
    for folder in _FOLDERS:
        found += [
            p for p in sorted((PROJECT / folder).rglob("*.py"))
            if '__name__ == "__main__"' in p.read_text() and p != Path(__file__)
            and p not in _APART
        ]  # fmt: skip
    return found


def test_the_model_servers_stand_in_imports_nothing_of_the_project():
    # Loaded in isolated mode (as the serving check runs it): the project is not on the path.
    (standin,) = _APART
    imports = [
        line.split()[1].split(".")[0] for line in standin.read_text().splitlines()
        if line.startswith(("import ", "from "))
    ]  # fmt: skip
    assert set(imports) <= {"__future__", "argparse", "base64", "json", "re", "sys",
                            "http", "pathlib", "typing", "tensorflow"}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=lambda p: str(p.relative_to(PROJECT)))
def test_a_program_loads_tensorflow_only_after_the_keras_choice(program):
    env = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    loaded = subprocess.run(
        [sys.executable, "-c", _LOAD, str(program)],
        env=env, cwd=PROJECT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    reached, choice = loaded.stdout.split()[-2:]
    assert reached == "no-tensorflow" or choice == ENVIRONMENT["TF_USE_LEGACY_KERAS"], (
        f"{program.name} imports TensorFlow before the Keras choice"
    )


def test_every_program_makes_the_choice_first():
    # What a program imports later, in its main, is not loaded above: each calls
    # prepare() itself, or runs through the commands' scaffold, which does.
    missing = [
        str(p.relative_to(PROJECT)) for p in programs()
        if "process.prepare()" not in p.read_text() and "execute(" not in p.read_text()
    ]  # fmt: skip
    assert missing == []


def test_the_image_sets_what_prepare_sets():
    dockerfile = (PROJECT / "Dockerfile").read_text()
    for name, value in ENVIRONMENT.items():
        assert f"{name}={value}" in dockerfile
