"""Beam's worker processes prepared as the product's own: Beam imports this module in each.

The DirectRunner's worker processes (a local run on 64 MiB of CSV or more) and a
distributed runner's workers (Dataflow, Flink, Spark) are started by Beam, not by the
product, so they ran none of ``startup.process.prepare()``: TFMA, Beam and dill as they
ship, where the bulk of a large run's rows are counted. Beam imports every module the
pipeline option ``--beam_plugins`` names in each worker before it runs any work
(``apache_beam/runners/worker/sdk_worker_main.py``, ``_import_beam_plugins``), and the
pipeline passes this one (``startup.process.BEAM_WORKER_ARG``) whenever it has Beam
arguments: without any, Beam runs in the step's own process, prepared already.
"""

from __future__ import annotations

from startup import process

process.prepare()
