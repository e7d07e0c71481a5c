"""Beam's local runs on the runner the product is tested on, and no package of TFX for them.

* **The local runner.** Since Beam 2.68 (the current stack has 2.77) the DirectRunner
  tries Prism first (apache/beam#34612), a runner in Go whose binary it downloads from
  GitHub when first asked (``apache_beam/runners/direct/direct_runner.py``,
  ``runners/portability/prism_runner.py``). That download has no timeout: on a host where
  github.com resolves but is firewalled, each Beam step waits out TCP's connect timeout.
  Where it can be fetched, the steps run on a runner this product is not tested on;
  where not, Beam logs the failure and falls back. ``local_runner`` is Beam's own
  DirectRunner kept off Prism by Beam's own switch, ``is_interactive``, which its
  InteractiveRunner calls for the same reason. It runs a pipeline on the FnApiRunner with
  the pipeline's options handed to the workers (so ``--beam_plugins`` reaches them), or
  on the BundleBasedDirectRunner where the FnApiRunner cannot: what Beam 2.60's
  DirectRunner, the legacy stack's, does. It is made Beam's default: a pipeline that
  names no runner runs on it, one that names a runner (``DirectRunner`` for Prism,
  Dataflow, Flink, Spark) runs there.
* **No package of TFX for local workers.** Given any Beam argument, each Beam step of
  TFX copies its installed package (49 MiB) into a temporary folder it never deletes and
  builds a source distribution of it for remote workers to install
  (``tfx/utils/dependency_utils.py``, ``make_beam_dependency_flags``): 2 s a step, and a
  run on 64 MiB of CSV or more, which has Beam arguments for its worker processes, left
  about 250 MiB in ``/tmp`` each time. Local workers are processes of this interpreter
  and import TFX as installed, so the package is built only for a runner that is not
  local, or for workers in an environment the arguments name (a container, say).
"""

from __future__ import annotations

import argparse
import types
from collections.abc import Callable, Sequence

from startup.after_import import when_imported

OPTIONS = "apache_beam.options.pipeline_options"
TFX_DEPENDENCIES = "tfx.utils.dependency_utils"
# Beam's runners whose workers run on this machine with this interpreter (Beam's own
# LOCAL_RUNNERS from 2.61, and this module's), lowercase, "runner" at the end dropped.
LOCAL_RUNNERS = frozenset(
    {"bundlebaseddirect", "direct", "switchingdirect", "fnapi", "prism", "testdirect"}
    | {"local_runner"}
)
# Worker environments in this process; any other (DOCKER, EXTERNAL, PROCESS, which runs
# a command it is given) is a place the arguments name, where TFX's package may be needed.
LOCAL_ENVIRONMENTS = frozenset({"LOOPBACK", "EMBEDDED"})


def local_runner() -> object:
    """Beam's DirectRunner switched off Prism (nothing to switch before Beam 2.68).

    A function Beam calls by its dotted name, as it calls a runner class, so that this
    module imports no Beam: ``startup.process.prepare()`` loads it in every process.
    """
    from apache_beam.runners.direct import direct_runner

    runner = direct_runner.DirectRunner()
    keep_off_prism = getattr(runner, "is_interactive", None)
    if keep_off_prism is not None:
        keep_off_prism()
    return runner


def run_locally() -> None:
    """Make ``local_runner`` Beam's default and TFX's package remote-only, as each loads."""
    when_imported(OPTIONS, _default_to_local)
    when_imported(TFX_DEPENDENCIES, _package_for_remote_workers)


def _default_to_local(options: types.ModuleType) -> None:
    name = f"{__name__}.{local_runner.__name__}"
    options.StandardOptions.DEFAULT_RUNNER = name
    # Beam 2.77 records the installed packages (``pip freeze``) for a runner not in this
    # list, and asks for the default's name once a portable runner has cleared its own.
    local = getattr(options.StandardOptions, "LOCAL_RUNNERS", None)
    if local is not None and local_runner.__name__ not in local:
        options.StandardOptions.LOCAL_RUNNERS = (*local, local_runner.__name__)


def _package_for_remote_workers(dependency_utils: types.ModuleType) -> None:
    if not hasattr(dependency_utils.make_beam_dependency_flags, "remote_only"):
        dependency_utils.make_beam_dependency_flags = remote_only(
            dependency_utils.make_beam_dependency_flags
        )


Flags = Callable[[list[str]], list[str]]


def remote_only(make_flags: Flags) -> Flags:
    """``make_flags``, called only for arguments whose workers are not local."""

    def flags(beam_pipeline_args: list[str]) -> list[str]:
        if runs_locally(beam_pipeline_args):
            return list(beam_pipeline_args)
        return make_flags(beam_pipeline_args)

    flags.remote_only = True
    return flags


def runs_locally(beam_pipeline_args: Sequence[str]) -> bool:
    """True when these arguments run Beam's workers as processes of this interpreter."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--runner")
    parser.add_argument("--environment_type")
    known, _ = parser.parse_known_args(list(beam_pipeline_args))
    if known.environment_type:  # where the workers run, whatever the runner
        return known.environment_type.upper() in LOCAL_ENVIRONMENTS
    # Beam matches a runner's name in any case, with or without "runner" at the end.
    runner = (known.runner or local_runner.__name__).rsplit(".", 1)[-1].lower()
    return bool({runner, runner.removesuffix("runner")} & LOCAL_RUNNERS)
