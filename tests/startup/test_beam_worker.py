"""Beam's worker processes prepared as the product's own, through the pipeline's Beam option."""

from __future__ import annotations

import pytest
from fresh_process import printed_by

from startup import process, tfma_row_inputs

# A pipeline on the DirectRunner's worker processes, with or without the option: each
# worker loads TFMA's metric_util and writes its process id and the function TFMA's
# metrics unpack rows with into a file of the folder; prints this process's id, then
# what each worker wrote.
_PROBE = """
import os, pathlib, sys, tempfile
from startup import process
process.prepare()
import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

folder = tempfile.mkdtemp()

def probe(_, folder):
    import importlib, os, pathlib
    util = importlib.import_module("tensorflow_model_analysis.metrics.metric_util")
    found = util.to_label_prediction_example_weight.__name__
    pathlib.Path(folder, str(os.getpid())).write_text(f"{{os.getpid()}}:{{found}}")

args = ["--direct_running_mode=multi_processing", "--direct_num_workers=2", *{extra}]
with beam.Pipeline(options=PipelineOptions(args)) as pipeline:
    _ = pipeline | beam.Create(range(8)) | beam.Map(probe, folder)
print(os.getpid(), *sorted(p.read_text() for p in pathlib.Path(folder).iterdir()))
"""


def _workers(extra: list[str]) -> tuple[str, set[str]]:
    """This process's id, and each worker's ``pid:function``."""
    driver, *found = printed_by(_PROBE.format(extra=extra))
    return driver, set(found)


@pytest.mark.slow  # Beam's worker processes each import TFMA
def test_each_worker_runs_the_start_up_only_with_the_pipeline_s_option():
    driver, prepared = _workers([process.BEAM_WORKER_ARG])
    _, as_shipped = _workers([])

    unpacked = tfma_row_inputs.unpacked_once.__name__
    assert prepared and all(f.endswith(f":{unpacked}") for f in prepared), prepared
    assert driver not in {f.split(":")[0] for f in prepared}  # the work ran in workers
    assert as_shipped and not any(f.endswith(f":{unpacked}") for f in as_shipped), as_shipped
