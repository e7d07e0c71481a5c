"""Where KFP's launcher puts an artifact's local copy, for the step and for the harness.

kubeflow/pipelines ``backend/src/v2/component/launcher_v2.go``, LocalPathForURI:
``gs://b/k`` is ``/gcs/b/k``, ``minio://b/k`` is ``/minio/b/k``, ``s3://b/k`` is
``/s3/b/k``. The launcher downloads each input artifact there before the step and
uploads each output artifact from there after it.
"""

from __future__ import annotations

import os

# Where the local paths are rooted: "/" in a pod. `make kfp-local` runs each task in a
# folder of its own, and names it to the step in this variable.
POD_ROOT_ENV = "WIDE_DEEP_POD_ROOT"
_LOCAL_FOLDERS = {"gs": "gcs", "minio": "minio", "s3": "s3"}


class UnsupportedSchemeError(ValueError):
    """A URI the launcher keeps no local copy of."""


def local_path(uri: str, pod_root: str = "/") -> str:
    """The launcher's local path of ``uri`` under ``pod_root``."""
    scheme, _, rest = uri.partition("://")
    if scheme not in _LOCAL_FOLDERS or not rest:
        raise UnsupportedSchemeError(f"unsupported storage scheme: {uri}")
    return os.path.join(pod_root, _LOCAL_FOLDERS[scheme], rest)
