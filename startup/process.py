"""What every process of the product sets before TensorFlow loads or data is read.

Called first by each process the product starts: the commands (through
``pipeline_ops.cli.scaffold.execute``), the Kubeflow step's entry point, the harness
and the programs of ``scripts/`` and ``benchmarks/``, the tests' ``conftest``; and
Beam's worker processes, local or a distributed runner's, through the pipeline's
``--beam_plugins`` option (``startup/beam_worker.py``). The other processes these
start (a multi-worker Trainer's workers) inherit the environment. The image sets the
same variables (``Dockerfile``, ``ENV``; a test keeps the two equal) for what starts
there outside this code: Beam's workers booted by the SDK container's entrypoint.

* **Keras 2.** TF 2.16 and later resolve ``tf.keras`` to Keras 3 unless
  ``TF_USE_LEGACY_KERAS`` is set when TensorFlow is imported; TFX, TFT and TFMA need
  Keras 2 (``tf_keras``, docs/explanation/stack.md).
* **CVE-2023-47248** refused where the stack's pyarrow has it (``arrow_guard``).
* **No support notice for the legacy stack's Python**: google-api-core warns on
  import that Python 3.10 is past its upstream support; on the legacy stack, whose
  host cannot run the current one, it says nothing to act on.
* **The installed distributions listed once**: google-api-core names the distribution
  of each Google client it loads by calling ``importlib.metadata.packages_distributions()``,
  which reads every installed distribution's file list (about 0.2 s here). On the legacy
  stack (google-api-core 2.29) TFX's imports ask fifteen times, so every step and run
  paid about 3 s for the same answer (2.44, the current stack's, asks less);
  the installed distributions do not change while a process runs, so the first answer
  is kept (the stack's environment is never installed into by its own processes: the
  harness installs the image's environment with another Python).
* **Beam's pickles without a logging sweep**: the legacy stack's Beam (2.60, pickling with
  dill) sets the ``dill`` logger's level after every pickle it makes or reads
  (``apache_beam/internal/dill_pickler.py``), and each ``Logger.setLevel`` clears the
  level cache of every logger of the process (about 1,000 once TFX is loaded). A run on
  5,000 rows pickles or unpickles about 7,400 times: 2 s of a run went to setting a level
  it already had. The ``dill`` logger's level is now set only when it changes (the current
  stack's Beam pickles with cloudpickle unless told to use dill).
* **Google Cloud's AI Platform SDK loaded only if used**: ``import tfx.v1`` imports
  ``tfx.v1.extensions``, whose Vertex AI components import ``google.cloud.aiplatform``
  (thousands of generated API modules): 7 s of every process that imports TFX on
  these machines, once TensorFlow is loaded, and 12 s beside a busy neighbour; each
  Kubeflow step paid it, and each run. Nothing here uses those components, so
  ``tfx.v1.extensions`` starts as a stand-in that imports the real module when one of
  its names is first read (``OnFirstUse``).
* **Beam's question "does this DoFn keep state?" answered once per DoFn**: Beam signs
  every method of a DoFn each time it asks, about five times a DoFn: 5.8 s of a run on
  5,000 rows on the legacy stack (``startup.dofn_specs``), kept from the first answer.
* **TFMA's confusion matrices counted in arrays**: TFMA sums a slice's matrices at the
  precision-recall AUC's 10,000 thresholds one Python object at a time, 2.4 s of each
  Evaluator run on the taxi data; counted in arrays, the same floats take a tenth of
  that (``startup.tfma_matrices``).
* **Each row unpacked once per set of options in TFMA's metrics**: TFMA's combiners each
  unpack every row of every slice again (six times a row and slice in the Evaluator);
  the answer is kept for the row at hand, the same arrays, and TFMA's evaluation takes
  about a fifth less (``startup.tfma_row_inputs``).
* **Beam's local runs on the runner the product is tested on**: Beam 2.68 and later
  (the current stack) have the DirectRunner try Prism first, downloading it from GitHub
  with no timeout; a pipeline that names no runner now runs on Beam's DirectRunner kept
  off Prism, and TFX builds its package for remote workers only when the workers are
  remote, not 2 s and 49 MiB of ``/tmp`` per Beam step of a large local run
  (``startup.beam_local``).
* **TFRecords read a mebibyte at a time**: Beam reads each record of a TFRecord file
  with two small reads and checks its checksums through Python, about 50 µs a record,
  a third of StatisticsGen's time on 375,000 rows; the records are now framed from large
  reads, checked in C, the same records and errors (``startup.tfrecord_reads``).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import logging
import os
import sys
import types
import warnings

from startup import (
    arrow_guard,
    beam_local,
    dofn_specs,
    tfma_matrices,
    tfma_row_inputs,
    tfrecord_reads,
)

# The pipeline's Beam option that has each of Beam's worker processes prepared as well
# (``startup/beam_worker.py``).
BEAM_WORKER_ARG = "--beam_plugins=startup.beam_worker"
# The environment the product's processes run with; the Dockerfile's ENV repeats it.
ENVIRONMENT = {"TF_USE_LEGACY_KERAS": "1"}
# Imported by ``import tfx.v1``, used by nothing of the product: loaded on first use.
LOADED_ON_FIRST_USE = ("tfx.v1.extensions",)


class ImportOrderError(RuntimeError):
    """TensorFlow was imported before the process was prepared, with another Keras."""


def prepare() -> None:
    """Keras 2 first; Arrow guard, notices, distributions, dill, Beam, TFX, TFMA, deferred modules.

    Raises ImportOrderError when TensorFlow is already imported without Keras 2: the
    choice can no longer take effect, and the caller must call this first.
    """
    unset = {k: v for k, v in ENVIRONMENT.items() if os.environ.get(k) != v}
    if unset and "tensorflow" in sys.modules:
        raise ImportOrderError(
            f"TensorFlow was imported before startup.process.prepare() could set {unset}: "
            "call it before anything imports TensorFlow"
        )
    os.environ.update(ENVIRONMENT)
    warnings.filterwarnings(
        "ignore",
        message="You are using a non-supported Python version",
        category=FutureWarning,
        module=r"google\.api_core\._python_version_support",
    )
    arrow_guard.close()
    _list_distributions_once()
    _set_dill_level_on_change()
    dofn_specs.keep_answers()
    beam_local.run_locally()
    tfrecord_reads.read_in_buffers()
    tfma_matrices.count_in_arrays()
    tfma_row_inputs.unpack_once()
    for name in LOADED_ON_FIRST_USE:
        if name not in sys.modules:
            sys.modules[name] = OnFirstUse(name)


def _list_distributions_once() -> None:
    """Keep ``importlib.metadata.packages_distributions()``'s first answer for the process."""
    listing = importlib.metadata.packages_distributions
    if not hasattr(listing, "cache_info"):
        importlib.metadata.packages_distributions = functools.cache(listing)


def _set_dill_level_on_change() -> None:
    """Make the ``dill`` logger's ``setLevel`` do nothing when the level is the one it has."""
    logger = logging.getLogger("dill")  # the logger dill itself takes when it loads
    if "setLevel" in vars(logger):
        return
    set_level = logger.setLevel

    def set_on_change(level: int | str) -> None:
        if level != logger.level:
            set_level(level)

    logger.setLevel = set_on_change


class OnFirstUse(types.ModuleType):
    """A stand-in in ``sys.modules`` that imports the real module when a name is read from it.

    The import system finds the stand-in and its parent binds it, so nothing is
    loaded while the parent imports; the first name read from it imports the real
    module and puts that in the stand-in's places (``sys.modules`` and the parent).
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # No file: ``inspect.getmodule``, which reads every module's, passes it by.
        self.__file__ = None

    def __getattr__(self, name: str) -> object:
        """The real module's ``name``, the real module imported the first time."""
        return getattr(self.load(), name)

    def load(self) -> types.ModuleType:
        """Import the real module in the stand-in's place; the real module."""
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        module = importlib.import_module(self.__name__)
        parent, _, child = self.__name__.rpartition(".")
        if getattr(sys.modules.get(parent), child, None) is self:
            setattr(sys.modules[parent], child, module)
        return module
