"""The runner's command line: bad input (one line, exit 2), the settings it derives, its hints."""

import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import write_head

import datasets
import local_runner
from pipeline_def.config import PipelineConfig
from pipeline_def.metadata_stores import MysqlMetadata, SqliteMetadata
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR
from pipeline_ops import commands
from pipeline_ops.cli import review_run
from pipeline_ops.metadata.store import METADATA_ENV, PASSWORD_ENV, metadata_for
from pipeline_ops.session import split_sizes
from pipeline_ops.session.local_run import review_command
from pipeline_ops.session.period import Repeat

_DEFAULT_PIPELINE = datasets.load(datasets.DEFAULT).pipeline_name


@pytest.fixture
def config_of(tmp_path) -> Callable[[list[str], int, bool], PipelineConfig]:
    """The config local_runner builds for ``flags``, with an output dir of the test's own.

    The checkout's ``outputs/`` may hold the split sizes a run there kept, which a
    config built on it would take.
    """

    def build(flags: list[str], input_bytes: int, flat: bool) -> PipelineConfig:
        args = local_runner.parse_args([*flags, "--output-dir", str(tmp_path / "out")])
        paths = local_runner.run_paths(args)
        sizes = split_sizes.choose(paths.output_dir, input_bytes, args.resplit)
        return local_runner.build_config(args, paths, input_bytes, flat, sizes)

    return build


def test_an_empty_data_root_is_waited_for_not_refused(tmp_path, capsys):
    # A cron line set up before the first span lands: nothing to read yet, not bad input.
    root = tmp_path / "data"
    root.mkdir()
    code = local_runner.main(["--data-root", str(root), "--output-dir", str(tmp_path / "out")])
    out = capsys.readouterr().out.strip()
    assert code == commands.EXIT_OK
    assert out == f"data root {root} holds no span yet: nothing to read; nothing to do"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: None, "does not exist"),
        (lambda root: (root.mkdir(), (root / "notes.txt").write_text("x")), "no .csv or .csv.gz"),
        (lambda root: (root.mkdir(), (root / "a.csv").write_text("")), "is empty"),
        (lambda root: (root.mkdir(), (root / "a.csv").write_text("fare,tips\n")), "no rows"),
        (lambda root: root.write_text("fare\n1\n"), "not a directory"),
    ],
    ids=["missing", "no-csv", "empty-csv", "header-only", "a-file"],
)
def test_bad_data_root(tmp_path, capsys, make, message):
    root = tmp_path / "data"
    make(root)
    code = local_runner.main(["--data-root", str(root), "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == commands.EXIT_BAD_INPUT
    assert len(err.splitlines()) == 1
    assert message in err and str(root) in err
    assert not (tmp_path / "out").exists()


def test_non_positive_steps_are_bad_input(tmp_path, capsys, small_data_root):
    code = local_runner.main(
        [
            "--data-root",
            str(small_data_root),
            "--train-steps",
            "0",
            "--output-dir",
            str(tmp_path / "out"),
        ]
    )
    assert code == commands.EXIT_BAD_INPUT
    assert "train_steps" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "input_bytes", "expected"),
    [
        ([], 2_000_000, ()),
        ([], 200_000_000, ("--direct_running_mode=multi_processing", "--direct_num_workers=")),
        (["--beam-arg=--runner=DirectRunner"], 200_000_000, ("--runner=DirectRunner",)),
    ],
    ids=["small-in-process", "large-multi-process", "flags-win"],
)
def test_beam_arguments_by_data_size_or_flags(flags, input_bytes, expected, monkeypatch, config_of):
    monkeypatch.setattr(local_runner.os, "cpu_count", lambda: 4)
    config = config_of(flags, input_bytes, True)
    assert len(config.beam_pipeline_args) == len(expected)
    for arg, start in zip(config.beam_pipeline_args, expected, strict=True):
        assert arg.startswith(start)
    if "--direct_num_workers=" in expected:
        assert config.beam_pipeline_args[-1] == "--direct_num_workers=4"


def test_hyperparameters_from_the_command_line(small_data_root, config_of):
    config = config_of(
        ["--hparam", "dropout=0.25", "--hparam", "hidden_units=[64, 32]"], 1000, True
    )
    assert config.hparams.dropout == 0.25 and config.hparams.hidden_units == (64, 32)


@pytest.mark.parametrize(
    ("flags", "flat", "warm"),
    [([], False, True), (["--cold-start"], False, False), ([], True, False)],
    ids=["spans", "spans-cold-start", "flat-root"],
)
def test_the_trainer_takes_the_serving_model_only_where_older_spans_can_serve(
    flags, flat, warm, config_of
):
    config = config_of(flags, 1000, flat)
    assert config.warm_start is warm


@pytest.mark.parametrize(
    ("pair", "message"),
    [("dropout", "expected NAME=VALUE"), ("dropout=high", "must be JSON"),
     ("nope=1", "unknown hyperparameter"), ("dropout=[1]", "must be float")],
)  # fmt: skip
def test_bad_hyperparameters_are_bad_input(pair, message, small_data_root, tmp_path, capsys):
    code = local_runner.main(
        ["--data-root", str(small_data_root), "--output-dir", str(tmp_path / "o"), "--hparam", pair]
    )
    assert code == commands.EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("input_bytes", "held_out_share"),
    [(1_922_812, 1 / 5), (17_843_846, 0.167), (178_387_501, 0.017)],
    ids=["sample", "150k-rows", "1.5M-rows"],
)
def test_validation_and_test_are_a_fifth_each_but_at_most_about_25k_rows(
    input_bytes, held_out_share, config_of
):
    config = config_of([], input_bytes, True)
    buckets = dict(config.split_buckets)
    assert list(buckets) == ["train", "validation", "test"]
    total = sum(buckets.values())
    assert buckets["validation"] / total == pytest.approx(held_out_share)
    assert buckets["test"] / total == pytest.approx(held_out_share)


@pytest.mark.parametrize(
    "store",
    [
        SqliteMetadata("/tmp/with space/out/metadata.sqlite"),
        MysqlMetadata("db.example", 3307, "mlmd", "ml", password="s3cret"),
    ],
    ids=["sqlite", "mysql"],
)
def test_the_review_hint_names_the_store_and_run_but_no_password(store):
    command = review_command(store, "2026-11-21T12:48:37.177284", _DEFAULT_PIPELINE)
    assert "s3cret" not in command
    words = shlex.split(command)
    # This environment's console script, as the shell finds it or by its path.
    assert (
        Path(shutil.which(words[0]) or words[0]).resolve()
        == (Path(sys.executable).parent / commands.REVIEW).resolve()
    )
    args = review_run.parse_args(words[1:])
    assert args.run == "2026-11-21T12:48:37.177284"
    # The password reaches the review from the environment, as for every command.
    found = metadata_for(args.output_dir, args.metadata, env={PASSWORD_ENV: "s3cret"})
    assert found == store


@pytest.mark.parametrize(("flags", "on"), [([], False), (["--analyzer-cache"], True)])
def test_transforms_analyzer_cache_is_turned_on_by_its_flag(flags, on, config_of):
    config = config_of(flags, 1000, False)
    assert config.transform_cache is on


def test_the_output_dir_is_worked_out_once_and_handed_down(tmp_path, small_data_root, monkeypatch):
    monkeypatch.delenv(METADATA_ENV, raising=False)
    seen = {}

    def session(config, output_dir, verbose, detailed_exitcode, profile_dir):
        seen.update(config=config, output_dir=output_dir, detailed=detailed_exitcode)
        seen.update(profile_dir=profile_dir)
        return commands.EXIT_OK

    monkeypatch.setattr(local_runner, "run_session", session)
    out = tmp_path / "out"
    flags = ["--data-root", str(small_data_root), "--output-dir", str(out)]
    assert local_runner.main(flags) == commands.EXIT_OK
    assert seen["output_dir"] == out.resolve()
    assert seen["config"].pipeline_root == str(out.resolve() / "pipeline")
    assert seen["config"].serving_dir == str(out.resolve() / "serving")
    assert seen["config"].metadata == SqliteMetadata(str(out.resolve() / "metadata.sqlite"))
    assert seen["config"].data_root == str(small_data_root.resolve())
    assert seen["detailed"] is False  # a completed run exits 0, blessed or not
    assert local_runner.main([*flags, "--detailed-exitcode"]) == commands.EXIT_OK
    assert seen["detailed"] is True and seen["profile_dir"] is None
    assert local_runner.main([*flags, "--profile", str(tmp_path / "p")]) == commands.EXIT_OK
    assert seen["profile_dir"] == tmp_path / "p"


def test_another_datasets_run_keeps_to_a_folder_of_its_own(monkeypatch):
    monkeypatch.delenv(METADATA_ENV, raising=False)
    args = local_runner.parse_args(["--dataset", "credit_data"])
    paths = local_runner.run_paths(args)
    assert paths.output_dir == (DEFAULT_OUTPUT_DIR / "credit_data").resolve()
    sizes = split_sizes.choose(paths.output_dir, 1000)
    config = local_runner.build_config(args, paths, 1000, flat=True, sizes=sizes)
    assert config.pipeline_root == str(paths.output_dir / "pipeline")
    assert config.span_cache == str(paths.output_dir / "pipeline" / "encoded-spans")


@pytest.mark.parametrize(
    ("blessed", "verdict"), [(True, commands.EXIT_OK), (False, commands.EXIT_NOT_BLESSED)]
)
def test_nothing_to_do_exits_with_the_verdict_of_the_run_it_would_repeat(
    tmp_path, capsys, monkeypatch, blessed, verdict
):
    # A cron line with --detailed-exitcode: an hour with no new span still says whether
    # the model of these files was held back, not 0 as if it had been blessed.
    write_head(50, tmp_path / "data" / "span-0")
    (tmp_path / "data" / "span-0" / "_SUCCESS").touch()
    repeat = Repeat("run r1 judged these files", blessed)
    monkeypatch.setattr(local_runner, "nothing_to_do", lambda config, digest: repeat)
    monkeypatch.setattr(local_runner, "run_session", lambda *args, **kwargs: pytest.fail())
    flags = ["--data-root", str(tmp_path / "data"), "--output-dir", str(tmp_path / "out")]
    assert local_runner.main(flags) == commands.EXIT_OK
    assert local_runner.main([*flags, "--detailed-exitcode"]) == verdict
    assert capsys.readouterr().out.count("run r1 judged these files (window 0); nothing to do") == 2
