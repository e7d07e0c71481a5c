"""Kubeflow Pipelines: everything of the pipeline that concerns KFP, split by where it runs.

- ``step/``: what a step's container runs around its executor, so what the image holds:
  the entry point every task's command names (``entrypoint.py``), the launcher's local
  paths for remote URIs (``launcher_paths.py``), ``s3://`` for TFX's file I/O through
  boto3 (``s3_fileio.py``) and the artifact types KFP's UI draws (``ui.py``).
- ``operator/``: what an operator's machine runs: the definition compiled into a KFP v2
  package (``spec.py``), the cluster's API and its credentials, versions, runs and
  recurring runs (``deploy.py`` ties them), and the command's cluster options
  (``options.py``); ``wide-deep-kubeflow`` (``kubeflow_runner.py``) is its command.
- ``harness/``: the cluster played on this machine (``make kfp-local``): the compiled
  package checked as KFP's API server checks it, and every task run as KFP's driver and
  launcher run it, in an environment installed as the image is.
"""
