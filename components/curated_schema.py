"""CuratedSchema: the schema that ships with the project, as the run's Schema artifact.

TFX's Importer would register the shipped file where it lies, but open-source
Kubeflow Pipelines imports only object-store URIs (``gs://``, ``s3://``,
``minio://``): its importer launcher fails on a path inside the image with "no
provider scheme found in artifact URI" (kubeflow/pipelines,
``backend/src/v2/component/importer_launcher.go``). This step copies the file into
its output, wherever the pipeline root is. The file's SHA-256, taken when the
pipeline is compiled, is a parameter: the step is cached while the content is
unchanged, and it fails when the image ships another schema than the one compiled.
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
import hashlib
import os
from pathlib import Path

from tfx import v1 as tfx
from tfx.v1.dsl.components import OutputArtifact, Parameter

SCHEMA_FILE = "schema.pbtxt"
# The folder holding the project's packages, in the checkout or in site-packages.
PACKAGES_ROOT = Path(__file__).resolve().parent.parent


def sha256_of(path: Path) -> str:
    """The hex SHA-256 of the file at ``path``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@tfx.dsl.components.component
def CuratedSchema(  # noqa: N802 - TFX names the component after the function
    source: Parameter[str],
    sha256: Parameter[str],
    schema: OutputArtifact[tfx.types.standard_artifacts.Schema],
) -> None:
    """Copy the shipped schema file ``source`` (relative to the packages) into ``schema``."""
    path = PACKAGES_ROOT / source
    if not path.is_file():
        raise FileNotFoundError(f"the curated schema {path} is not installed with the project")
    found = sha256_of(path)
    if found != sha256:
        raise ValueError(
            f"the curated schema {path} has SHA-256 {found[:12]}, the pipeline was compiled "
            f"with {sha256[:12]}: rebuild the image from the checkout that compiled it"
        )
    tfx.dsl.io.fileio.makedirs(schema.uri)
    tfx.dsl.io.fileio.copy(str(path), os.path.join(schema.uri, SCHEMA_FILE), overwrite=True)
