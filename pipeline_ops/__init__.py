"""The operator side: what people use around runs, apart from the pipeline definition.

Rooms by job: ``metadata`` reads ML-Metadata (every lookup: runs, their reviews and
history, drift), ``session`` supports a local run (pre-flight, progress, summary),
``scoring`` scores a table with a pushed model, and ``cli`` holds the commands people
type. Kubeflow's operator side is ``kubeflow/operator/``, the dataset drafter
``drafting/``, each a room of its own. Nothing here runs inside a pipeline step, so the
container image does not ship it.
"""
