"""The operator side: what people use around runs, apart from the pipeline definition.

Rooms by job: ``metadata`` reads ML-Metadata, ``session`` supports a local run
(pre-flight, progress, summary), ``report`` reviews a run's evaluation, ``kubeflow``
deploys, schedules and follows runs on Kubeflow Pipelines, and ``cli``
holds the commands people type. Nothing here runs inside a pipeline step, so the
container image does not ship it.
"""
