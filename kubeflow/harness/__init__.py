"""A local stand-in for open-source Kubeflow Pipelines, to run the compiled spec for real.

Test tooling (``make kfp-local``): nothing in the pipeline imports it. It checks the
package as KFP's API server and Argo compiler do, then executes every task of the
compiled YAML as KFP's driver and launcher do (kubeflow/pipelines,
``backend/src/v2/driver`` and ``backend/src/v2/component``), with the project
installed into a separate environment as the image installs it, artifacts in an
S3-compatible store on 127.0.0.1, and ML-Metadata recording each task.
"""


class SetupError(RuntimeError):
    """The image, the store or the package could not be made; the message says where to look."""
