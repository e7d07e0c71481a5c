"""The image, without a container engine: the project installed as the Dockerfile does.

The environment is a virtualenv filled by ``scripts/install_image.sh``, the script
the Dockerfile runs: the locked dependencies, then the project as a package (a copy,
not a link to the checkout). Steps run its Python with the image's environment
variables and from a folder outside the checkout, so they import what the image
would hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kubeflow.harness import SetupError
from pipeline_def import stack
from pipeline_def.code_digest import STEP_PACKAGES, package_folder
from pipeline_def.project_paths import PROJECT_ROOT

# What the image is built from: a change to any of it makes another image.
IMAGE_SOURCES = (
    "requirements/current.lock",
    "requirements/legacy.lock",
    "pyproject.toml",
    *(package_folder(p).as_posix() for p in STEP_PACKAGES),
)


_STACK_OF_IMAGE = "import json; from pipeline_def.stack import stack; print(json.dumps(stack()))"


@dataclass(frozen=True)
class ImageEnv:
    """An installed image: its Python, its environment and its tag."""

    folder: Path
    tag: str

    @property
    def python(self) -> Path:
        """The image's interpreter."""
        return self.folder / "bin" / "python"

    def stack(self) -> dict[str, str]:
        """What the image's steps run on (``pipeline_def.stack``), asked of its Python."""
        asked = subprocess.run(
            [str(self.python), "-c", _STACK_OF_IMAGE], env=self.variables(),
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return json.loads(asked.stdout)

    def variables(self) -> dict[str, str]:
        """A step's environment: the image's variables and its Python first on PATH."""
        path = f"{self.folder / 'bin'}{os.pathsep}/usr/local/bin:/usr/bin:/bin"
        base = {"PATH": path, "HOME": str(Path.home()), "LANG": "C.UTF-8"}
        return {**base, **image_variables(PROJECT_ROOT / "Dockerfile")}


def image_variables(dockerfile: Path) -> dict[str, str]:
    """The variables the Dockerfile's ENV lines set, continued lines included."""
    text = dockerfile.read_text().replace("\\\n", " ")
    found = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "ENV":
            found.update(word.split("=", 1) for word in words[1:] if "=" in word)
    return found


def image_tag() -> str:
    """A tag naming the image's content, as a registry tag would (KFP caches by image).

    The stack is part of it: the harness installs the image on the stack it runs on,
    and a step cached on one stack is not the other's.
    """
    digest = hashlib.sha256(stack.name().encode())
    for name in IMAGE_SOURCES:
        path = PROJECT_ROOT / name
        files = (
            sorted(path.rglob("*.py")) + sorted(path.rglob("*.pbtxt")) if path.is_dir() else [path]
        )
        for file in files:
            digest.update(file.relative_to(PROJECT_ROOT).as_posix().encode() + file.read_bytes())
    return f"kfp-local/wide-deep-tfx:{digest.hexdigest()[:12]}"


def build_context(dockerfile: Path, context: Path) -> None:
    """Copy into ``context`` what the Dockerfile's COPY lines take from the checkout."""
    for line in dockerfile.read_text().splitlines():
        words = line.split()
        # COPY --from copies out of another image (Beam's harness), not the checkout.
        if not words or words[0] != "COPY" or words[1].startswith("--from="):
            continue
        *sources, target = words[1:]
        for source in sources:
            origin = PROJECT_ROOT / source
            destination = (
                context
                / target
                / (origin.name if target.endswith("/") and origin.is_file() else "")
            )
            if origin.is_dir():
                shutil.copytree(origin, destination, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, destination)


def folder_in(out: Path) -> Path:
    """Where a harness run on output dir ``out`` installs the image environment."""
    # One per stack: an environment's interpreter is its stack's (Python 3.13 or 3.10).
    return out / f"image-env-{stack.name()}"


# In an installed environment: the digest of the build context it was installed from.
INSTALLED_FROM = ".installed-from"


def context_digest(context: Path) -> str:
    """What an install reads: each file of the build context (path and bytes), the Python."""
    digest = hashlib.sha256(sys.version.encode())
    for file in sorted(path for path in context.rglob("*") if path.is_file()):
        digest.update(file.relative_to(context).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def install(folder: Path, log: Path) -> bool:
    """Create or refresh the image environment in ``folder`` as the Dockerfile builds it.

    The project is installed from a copy of the Dockerfile's build context, by the
    Dockerfile's install script: what the image would hold, nothing more. An
    environment installed from the same context is left as it is, as a container
    engine reuses an image built from an unchanged context. True when it installed.
    """
    stamp = folder / INSTALLED_FROM
    with log.open("w") as out, tempfile.TemporaryDirectory(prefix="kfp-local-image-") as context:
        build_context(PROJECT_ROOT / "Dockerfile", Path(context))
        digest = context_digest(Path(context))
        python = folder / "bin" / "python"
        if python.exists() and stamp.is_file() and stamp.read_text() == digest:
            out.write(f"{folder} holds this build context already ({digest}): not installed\n")
            return False
        # An install stopped half-way must not leave the old stamp claiming its context.
        stamp.unlink(missing_ok=True)
        if not python.exists():
            _create_venv(folder, out)
        subprocess.run(
            [str(Path(context) / "scripts" / "install_image.sh"), str(python)],
            stdout=out,
            stderr=out,
            check=True,
        )
    _check_installed(ImageEnv(folder, image_tag()))
    # A new file renamed into place: an environment of hard links (the tests' copies of
    # one install) never has its stamp written through to the others.
    written = folder / f"{INSTALLED_FROM}.new"
    written.unlink(missing_ok=True)
    written.write_text(digest)
    written.replace(stamp)
    return True


def _create_venv(folder: Path, out: TextIO) -> None:
    """A virtualenv in ``folder`` on a Python of the running one's version."""
    python = subprocess.run(
        [
            str(PROJECT_ROOT / "scripts" / "find_python.sh"),
            f"{sys.version_info.major}.{sys.version_info.minor}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run([python, "-m", "venv", str(folder)], stdout=out, stderr=out, check=True)


def _check_installed(env: ImageEnv) -> None:
    """Fail unless the image's Python imports the project from its own site-packages."""
    names = ", ".join(STEP_PACKAGES)
    probe = f"import {names}; print(' '.join(m.__file__ for m in ({names},)))"
    with tempfile.TemporaryDirectory() as outside:
        found = subprocess.run(
            [str(env.python), "-c", probe],
            cwd=outside,
            env=env.variables(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    sources = [PROJECT_ROOT / package_folder(package) for package in STEP_PACKAGES]
    inside = [f for f in found if any(Path(f).resolve().is_relative_to(s) for s in sources)]
    if inside:
        raise SetupError(f"the image imports the checkout, not its own copy: {inside}")
