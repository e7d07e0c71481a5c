"""``make kfp-local``: compile the Kubeflow package, then run every task of it here as KFP would.

    python -m kubeflow.harness [--dataset NAME] [--output-dir DIR] [--data-root DIR] [--span N]
                        [--train-steps N] [--min-auc X] [--only training|scoring]
                        [--until TASK]

Installs the project into an image environment (``scripts/install_image.sh``, as the
Dockerfile does), starts an S3 store on 127.0.0.1 and uploads the data, compiles the
package with the user's ``kubeflow_runner`` from a folder outside the checkout, checks
it as KFP's API server and Argo compiler do, and runs its tasks in dependency order as
KFP's driver and launcher do. Then the scoring package (``kubeflow_runner --scoring``) is
compiled and run the same way, where a model serves: the serving model scores the same
span (``--only`` runs one of the two). ``--dataset`` picks a declared dataset as the local
runner does (the taxi by default; the image holds every one in ``datasets/``);
the data root defaults to its folder (``data/<dataset>/``), the output dir to
``outputs/kfp-local`` (``outputs/<dataset>/kfp-local`` for another dataset, so that no
model is judged against another table's). ``--span``, ``--train-steps`` and
``--min-auc`` are given as run-time parameters of the run, not compiled in. ``--until
TASK`` runs the training pipeline's TASK and the tasks it needs, and stops there (no
scoring run): to try one step, or check what a step wrote, without the rest. One line
per task, then the run's summary; ``run_summary.json`` (the local runner's format), the
package, each task's log, the store's content and ML-Metadata stay under the output
dir, so a second run on the same dir is compared with the model the first one pushed.
Exit codes: 0 every task succeeded, 1 a task failed, 2 the package or input was refused.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import yaml

import datasets
from data_layout import spans
from kubeflow.harness import SetupError, backend_rules, image_env, object_store, tasks
from kubeflow.harness.metadata import KfpMetadata, session_info
from pipeline_def import node_ids
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR, data_root_of, output_dir_for
from pipeline_ops.cli.run_options import span_value
from pipeline_ops.cli.scaffold import add_dataset_option
from pipeline_ops.session.data_check import DataRootError, check_spans
from pipeline_ops.session.progress import format_component_line, logs_to_file
from startup import process

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
PREFIX = "kfp-local"  # the run's keys in the bucket, and the default output dir's name
TRAINING, SCORING = "training", "scoring"
SECRET = "kfp-local-s3"  # the Kubernetes secret the steps' S3 keys come from


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, with the dataset's own data root and output dir where none is given."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dataset_option(parser)
    parser.add_argument("--output-dir", type=Path, help="default: outputs/[<dataset>/]kfp-local")
    parser.add_argument("--data-root", type=Path, help="default: data/<dataset>/")
    parser.add_argument("--span", type=span_value, help="run-time parameter span")
    parser.add_argument("--train-steps", type=int, help="run-time parameter train_steps")
    parser.add_argument("--min-auc", type=float, help="run-time parameter min_auc")
    parser.add_argument(
        "--only", choices=(TRAINING, SCORING), help="run one pipeline (default: both, in turn)"
    )
    parser.add_argument(
        "--until",
        metavar="TASK",
        help="run the training pipeline's TASK and the tasks it needs, then stop",
    )
    args = parser.parse_args(argv)
    if args.until and args.only == SCORING:
        parser.error("--until stops the training pipeline: it cannot go with --only scoring")
    args.data_root = args.data_root or data_root_of(args.dataset)
    args.output_dir = args.output_dir or output_dir_for(args.dataset, DEFAULT_OUTPUT_DIR) / PREFIX
    return args


def _compile(
    image: image_env.ImageEnv,
    store: object_store.ObjectStore,
    dataset: str,
    output: Path,
    scoring: bool = False,
) -> Path:
    """Compile as a user does: this environment's kubeflow_runner, run from outside the checkout.

    The image holds only what steps import (modules, components, pipeline_def); the
    runner and the operator tools stay on the user's machine. ``scoring``: the scoring
    pipeline's package.
    """
    package = output / ("scoring.yaml" if scoring else "pipeline.yaml")
    with tempfile.TemporaryDirectory() as outside:
        subprocess.run(
            [
                sys.executable, "-m", "kubeflow_runner", "--dataset", dataset, "--image", image.tag,
                "--pipeline-root", store.uri(f"{PREFIX}/root"),
                "--data-root", store.uri(f"{PREFIX}/data"),
                "--serving-dir", store.uri(f"{PREFIX}/serving"),
                "--s3-endpoint", store.endpoint, "--s3-secret", SECRET,
                "--output", str(package), *(["--scoring"] if scoring else []),
            ],
            cwd=outside, check=True, capture_output=True, text=True,
        )  # fmt: skip
    return package


def unknown_task(spec: dict[str, Any], name: str) -> str:
    """What to say of ``--until name`` where the package has no task ``name``."""
    return f"--until {name}: the pipeline has no such task; it has {', '.join(tasks.order(spec))}"


def _problems(spec: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """Why KFP would refuse the package or the run, or the harness could not run it."""
    return (
        backend_rules.upload_problems(spec)
        + backend_rules.compile_problems(spec)
        + backend_rules.run_parameter_problems(spec, values)
        + tasks.unsupported(spec)
    )


def _execute(
    run: tasks.Run, people: TextIO, until: str | None = None
) -> tuple[dict[str, tasks.TaskResult], str | None]:
    """Run the tasks in order until one fails (or ``until`` and what it needs are done).

    The results and the failed task.
    """
    results = {}
    needed = tasks.upstream(run.spec, until) if until else None
    for name in tasks.order(run.spec):
        if needed is not None and name not in needed:
            continue
        results[name] = result = tasks.run_task(run, name)
        print(format_component_line(name, result.state, result.seconds), flush=True)
        if result.state == tasks.FAILED:
            print(f"error: {name} failed (exit {result.exit_code}): see {result.log}", file=people)
            return results, name
    return results, None


def _run(args: argparse.Namespace, out: Path, people: TextIO) -> int:
    """Install, then run the pipelines asked for in turn; the exit code."""
    image = _install(out, out / "logs")
    with object_store.running_store(out / "bucket", out / "logs" / "s3-server.log") as store:
        store.replace_folder(args.data_root, f"{PREFIX}/data")
        stage = Stage(args, out, image, store, run_parameters(args), people)
        code = EXIT_OK if args.only == SCORING else _train(stage)
        if code == EXIT_OK and args.only != TRAINING and not args.until:
            code = _score(stage)
    return code


@dataclass(frozen=True)
class Stage:
    """What the runs of both pipelines share: the command line, the image and the store."""

    args: argparse.Namespace
    out: Path
    image: image_env.ImageEnv
    store: object_store.ObjectStore
    values: dict[str, Any]  # the run-time parameters given
    people: TextIO


def _run_package(
    stage: Stage, scoring: bool
) -> tuple[tasks.Run, dict[str, tasks.TaskResult], str | None] | int:
    """Compile, check and run one package: its run, results and failed task; or an exit code."""
    try:
        package = _compile(stage.image, stage.store, stage.args.dataset, stage.out, scoring)
    except subprocess.CalledProcessError as err:
        # The runner logs to <package>.log once it starts; what stopped it sooner is on stderr.
        said = (err.stderr or "").strip().splitlines()[-1:] or ["no error printed"]
        name = "scoring" if scoring else "pipeline"
        raise SetupError(
            f"compiling the package failed ({said[0]}): see {stage.out / name}.log"
        ) from err
    spec, *platform = yaml.safe_load_all(package.read_text())
    problems = _problems(spec, stage.values)
    if problems:
        print(f"error: KFP would refuse {package}: {' | '.join(problems)}", file=stage.people)
        return EXIT_BAD_INPUT
    until = None if scoring else stage.args.until
    if until and until not in spec["root"]["dag"]["tasks"]:
        print(f"error: {unknown_task(spec, until)}", file=stage.people)
        return EXIT_BAD_INPUT
    run_id = time.strftime("run-%Y%m%d-%H%M%S")
    print(f"Pipeline {spec['pipelineInfo']['name']}: run {run_id} of {package}", flush=True)
    with tempfile.TemporaryDirectory(prefix="kfp-local-pods-") as pods:
        # The scoring run's task logs apart: its ServingBaseline's would replace training's.
        logs = stage.out / "logs" / (SCORING if scoring else "")
        logs.mkdir(exist_ok=True)
        run = _task_run(spec, platform, stage, run_id, (Path(pods), logs))
        results, failed = _execute(run, stage.people, until)
    return run, results, failed


def _train(stage: Stage) -> int:
    """The training pipeline's run, its summary written and said; the exit code."""
    # Imported here: TensorFlow's import chatter goes to the log file.
    from kubeflow.harness.run_summary import summarize
    from pipeline_ops.session.summary import FAILED, STOPPED, print_closing, write_json

    started = time.monotonic()
    ran = _run_package(stage, scoring=False)
    if isinstance(ran, int):
        return ran
    run, results, failed = ran
    summary = summarize(run, results, failed, stage.store)
    summary.stack = stage.image.stack()
    run.metadata.record_stack(summary.stack)
    summary.seconds = round(time.monotonic() - started, 2)
    summary.log_file = str(stage.out / "logs")
    if stage.args.until and not failed:
        summary.status, summary.failed_component = STOPPED, stage.args.until
    write_json(summary, stage.out)
    print_closing(summary, sys.stdout)
    return EXIT_FAILED if summary.status == FAILED else EXIT_OK


def _score(stage: Stage) -> int:
    """The scoring pipeline's run, where a model serves; the exit code."""
    from kubeflow.harness.scoring_run import closing_lines

    if not stage.store.holds(f"{PREFIX}/serving"):
        print("\nScoring: no model serves yet, so there is nothing to score with.")
        return EXIT_OK
    print(flush=True)
    started = time.monotonic()
    ran = _run_package(stage, scoring=True)
    if isinstance(ran, int):
        return ran
    run, _, failed = ran
    if failed:
        print(f"\nScoring run {run.metadata.run.name} FAILED in {failed}.")
        return EXIT_FAILED
    print("\n".join(closing_lines(run, stage.store, time.monotonic() - started)))
    return EXIT_OK


def _install(out: Path, logs: Path) -> image_env.ImageEnv:
    """The image environment, installed under ``out``; SetupError naming its log if it fails."""
    folder = image_env.folder_in(out)
    print(f"Image environment {folder}: ", end="", flush=True)
    try:
        installed = image_env.install(folder, logs / "install.log")
    except subprocess.CalledProcessError as err:
        print("install failed")
        raise SetupError(
            f"installing the image failed ({err}): see {logs / 'install.log'}"
        ) from err
    except SetupError:
        print("install failed")
        raise
    print("installed" if installed else "reused (its build context has not changed)")
    return image_env.ImageEnv(folder, image_env.image_tag())


def _task_run(
    spec: dict[str, Any],
    platform: list[dict[str, Any]],
    stage: Stage,
    run_id: str,
    folders: tuple[Path, Path],
) -> tasks.Run:
    """What the tasks of run ``run_id`` share: its spec, parameters, store, metadata, image.

    ``platform`` is the package's documents after the spec: its Kubernetes settings, if
    any; ``folders``: where the tasks' working directories are made, and their logs.
    """
    declared = spec["root"].get("inputDefinitions", {}).get("parameters", {})
    store = stage.store
    return tasks.Run(
        spec=spec,
        platform=platform[0]["platforms"]["kubernetes"] if platform else {},
        root=store.uri(f"{PREFIX}/root"),
        parameters={k: stage.values.get(k, p.get("defaultValue")) for k, p in declared.items()},
        metadata=KfpMetadata(
            stage.out / "metadata.sqlite",
            spec["pipelineInfo"]["name"],
            run_id,
            session_info(store.endpoint),
        ),
        image_env=stage.image.variables(),
        secrets={SECRET: dict(zip(("accesskey", "secretkey"), store.keys(), strict=True))},
        pods=folders[0],
        logs=folders[1],
        upload=store.upload_to_uri,
        download=store.download_uri,
    )


def run_parameters(args: argparse.Namespace) -> dict[str, Any]:
    """The run-time parameters the flags set, as the spec declares them (the span as text)."""
    given = {
        node_ids.SPAN: None if args.span is None else spans.span_text(args.span),
        node_ids.TRAIN_STEPS: args.train_steps,
        node_ids.MIN_AUC: args.min_auc,
    }
    return {name: value for name, value in given.items() if value is not None}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check the input, then install, compile, check and run."""
    process.prepare()
    args = parse_args(argv)
    try:
        datasets.load(args.dataset)
    except datasets.UnknownDatasetError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        check_spans(args.data_root, spans.LATEST if args.span is None else args.span, 1)
    except DataRootError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except spans.SpanNotReady as waiting:
        print(f"{waiting}; nothing to do")
        return EXIT_OK
    out = args.output_dir.resolve()
    logs = out / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    with logs_to_file(logs / "harness.log", verbose=False) as people:
        try:
            return _run(args, out, people)
        except SetupError as err:
            print(f"error: {err}", file=people)
            return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
