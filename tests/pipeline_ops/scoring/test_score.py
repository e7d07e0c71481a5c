"""wide-deep-score on a real exported model: tables in, the model's own scores out."""

from __future__ import annotations

import io
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest
from scored_tables import cells_of, write_csv, write_jsonl

from datasets.taxi import DATASET as TAXI
from pipeline_ops import commands
from pipeline_ops.cli import score
from scoring.scorer import Scored

KEY = TAXI.prediction_key
COLUMNS = TAXI.raw_feature_columns()


@pytest.fixture
def output_dir(served_model, tmp_path):
    """An output dir whose serving folder holds the model as version 7."""
    out = tmp_path / "out"
    shutil.copytree(served_model, out / "serving" / "7")
    return out


@pytest.fixture
def rows(scored) -> list[dict]:
    """The scored sample's rows, each with a row number to keep, as a table holds them."""
    return [{**cells_of(e), "trip_id": f"t{i}"} for i, e in enumerate(scored.examples)]


def _score(capsys, *argv: object) -> tuple[int, str, str]:
    code = score.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _nothing_written(folder) -> bool:
    """Neither the output ``s.csv`` nor a partial one beside it."""
    return not (folder / "s.csv").exists() and not list(folder.glob(".s.csv.*"))


def test_a_csv_in_any_column_order_scores_as_the_model_does(
    output_dir, rows, scored, tmp_path, capsys
):
    # Columns shuffled, one the model does not read, no label, every cell quoted.
    columns = ["trip_id", *reversed(COLUMNS), "notes"]
    table = write_csv(tmp_path / "rows.csv", rows, columns)
    scores = tmp_path / "scores.parquet"
    code, out, _ = _score(capsys, table, scores, "--output-dir", output_dir, "--keep", "trip_id")
    assert code == commands.EXIT_OK
    *_, done, skew = out.splitlines()
    assert done.startswith(f"Scored {len(rows)} rows with serving version 7 in ")
    assert skew == f"Skew not measured: {len(rows)} rows are too few to judge (at least 1,000)."
    written = pq.read_table(scores).to_pydict()
    assert list(written) == ["trip_id", KEY, "predicted_label"]
    assert written["trip_id"] == [r["trip_id"] for r in rows]  # input order
    np.testing.assert_allclose(written[KEY], scored.scores, atol=1e-6)
    assert written["predicted_label"] == [int(s >= 0.5) for s in written[KEY]]


def test_json_lines_score_as_the_csv_does(output_dir, rows, tmp_path, capsys):
    table = write_csv(tmp_path / "rows.csv", rows, COLUMNS)
    lines = write_jsonl(tmp_path / "rows.jsonl", rows)
    for source, target in ((table, "a.jsonl"), (lines, "b.jsonl")):
        code, _, err = _score(capsys, source, tmp_path / target, "--output-dir", output_dir)
        assert code == commands.EXIT_OK, err
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


def test_a_missing_feature_column_names_it_and_the_file_and_writes_nothing(
    output_dir, rows, tmp_path, capsys
):
    table = write_csv(tmp_path / "rows.csv", rows, [c for c in COLUMNS if c != "fare"])
    code, _, err = _score(capsys, table, tmp_path / "s.csv", "--output-dir", output_dir)
    assert code == commands.EXIT_BAD_INPUT
    assert (
        err == f"error: {table}: no column 'fare'; the model reads it, or it was asked to be kept\n"
    )
    assert _nothing_written(tmp_path)


@pytest.mark.parametrize("in_folder", [False, True], ids=["a file", "a folder's second file"])
def test_a_cell_that_is_not_its_columns_kind_names_the_file_row_and_column(
    output_dir, rows, tmp_path, capsys, in_folder
):
    bad = [dict(r) for r in rows]
    bad[41]["trip_start_hour"] = "noon"
    folder = tmp_path / "span"
    folder.mkdir()
    if in_folder:  # scored as a Beam pipeline: the worker's error is said as the file's
        write_csv(folder / "a.csv", rows, COLUMNS)
    table = write_csv(folder / "b.csv", bad, COLUMNS)
    source = folder if in_folder else table
    code, _, err = _score(capsys, source, tmp_path / "s.csv", "--output-dir", output_dir)
    assert code == commands.EXIT_BAD_INPUT
    assert err == (
        f"error: {table}: row 42, column 'trip_start_hour': 'noon' is not an integer, "
        "as the schema reads it\n"
    )
    assert _nothing_written(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "span"]  # no parts left


def test_a_whole_float_in_an_integer_column_reads_as_training_reads_it(
    output_dir, rows, tmp_path, capsys
):
    as_pandas = [{**r, "trip_start_hour": f"{r['trip_start_hour']}.0"} for r in rows]
    for name, table in (("int", rows), ("float", as_pandas)):
        source = write_csv(tmp_path / f"{name}.csv", table, COLUMNS)
        code, _, err = _score(
            capsys, source, tmp_path / f"{name}.jsonl", "--output-dir", output_dir
        )
        assert code == commands.EXIT_OK, err
    assert (tmp_path / "int.jsonl").read_text() == (tmp_path / "float.jsonl").read_text()


def test_a_stopped_scoring_leaves_no_output_and_an_earlier_one_stays(
    output_dir, rows, tmp_path, capsys
):
    folder = tmp_path / "span"
    folder.mkdir()
    write_csv(folder / "a.csv", rows, COLUMNS)
    write_csv(folder / "b.csv", rows, [c for c in COLUMNS if c != "company"])
    earlier = tmp_path / "s.csv"
    earlier.write_text("kept\n")
    code, _, err = _score(capsys, folder, earlier, "--output-dir", output_dir)
    assert code == commands.EXIT_BAD_INPUT and "b.csv: no column 'company'" in err
    assert earlier.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "s.csv", "span"]


TWO_WORKERS = ["--beam-arg=--direct_running_mode=multi_processing",
               "--beam-arg=--direct_num_workers=2"]  # fmt: skip


@pytest.mark.parametrize(
    ("suffix", "workers"),
    # Worker processes each load TensorFlow and the model: seconds, so among the slow tests.
    [pytest.param(".csv", TWO_WORKERS, marks=pytest.mark.slow), (".parquet", []), (".jsonl", [])],
)
def test_a_folder_scored_by_beam_is_its_files_scored_one_by_one_in_order(
    output_dir, rows, tmp_path, capsys, suffix, workers
):
    folder = tmp_path / "span"
    folder.mkdir()
    parts = {"a.csv": rows[:50], "b.csv": [], "c.csv": rows[50:51], "d.csv": rows[51:]}
    for name, part in parts.items():
        write_csv(folder / name, part, ["trip_id", *COLUMNS])
    keep = ("--keep", "trip_id")
    code, out, err = _score(capsys, folder, tmp_path / f"all{suffix}", "--output-dir",
                            output_dir, *keep, *workers)  # fmt: skip
    assert code == commands.EXIT_OK, err
    assert out.splitlines()[0].startswith("Scoring 4 files as a Beam pipeline (")
    assert [line.split()[-2] for line in out.splitlines()[1:5]] == [
        "50",
        "0",
        "1",
        f"{len(rows) - 51}",
    ]
    alone = []
    for name in ("a.csv", "c.csv", "d.csv"):
        target = tmp_path / f"{name}{suffix}"
        assert _score(capsys, folder / name, target, "--output-dir", output_dir, *keep)[0] == 0
        alone.append(target)
    if suffix == ".parquet":
        whole = pq.read_table(tmp_path / "all.parquet").to_pydict()
        assert whole["trip_id"] == [r["trip_id"] for r in rows]
        assert pq.read_table(alone).to_pydict() == whole
    else:
        texts = [t.read_text() for t in alone]
        if suffix == ".csv":  # one header, the first file's
            texts[1:] = [t.split("\n", 1)[1] for t in texts[1:]]
        assert (tmp_path / f"all{suffix}").read_text() == "".join(texts)


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("header only", "rows.csv: no rows to score"),
        ("empty file", "rows.csv"),
        ("unknown version", "no version 3 under "),
        ("a folder as output", "is a folder: name a file ending in .csv, .parquet, .jsonl"),
        ("nothing serves", "no serving model under "),
        ("the input as output", "rows.csv is an input: name another file for the scores"),
        ("a Beam option misspelt", "--beam-arg: Beam knows no option --direct_num_wokers"),
    ],
)
def test_each_bad_input_is_one_line_and_exit_2(output_dir, rows, tmp_path, capsys, case, said):
    table = write_csv(tmp_path / "rows.csv", rows, COLUMNS)
    argv = [table, tmp_path / "s.csv", "--output-dir", output_dir]
    if case == "header only":
        write_csv(table, [], COLUMNS)
    elif case == "empty file":
        table.write_text("")
    elif case == "unknown version":
        argv += ["--model", "3"]
    elif case == "a folder as output":
        argv[1] = tmp_path
    elif case == "the input as output":
        argv[1] = table
    elif case == "a Beam option misspelt":
        argv += ["--beam-arg=--direct_num_wokers=2"]
    else:
        shutil.rmtree(output_dir / "serving")
    code, _, err = _score(capsys, *argv)
    assert code == commands.EXIT_BAD_INPUT
    (line,) = err.splitlines()
    assert line.startswith("error: ") and said in line
    assert _nothing_written(tmp_path)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_line_every_30_s_off_a_terminal_and_one_rewritten_on_it():
    said = [(1, 10_000), (29, 300_000), (31, 320_000), (45, 500_000), (62, 700_000)]
    log, terminal = io.StringIO(), _Terminal()
    for stream in (log, terminal):
        progress = score.Progress(stream)
        for seconds, rows in said:
            progress(Scored(rows, seconds))
    assert log.getvalue().splitlines() == [
        "  320,000 rows scored, 10,323 a second",
        "  700,000 rows scored, 11,290 a second",
    ]
    assert terminal.getvalue().count("\r") == len(said) and "\n" not in terminal.getvalue()


def test_a_few_files_are_listed_and_many_summed_up_in_a_line(capsys):
    few = {f"span/{i}.csv": 10 * i for i in range(1, 3)}
    many = {f"span/{i}.csv": 10 * i for i in range(1, 76)}
    score.say_files(Scored(30, 1.0, few))
    assert capsys.readouterr().out == "  span/1.csv  10 rows\n  span/2.csv  20 rows\n"
    score.say_files(Scored(28_500, 1.0, many))
    assert capsys.readouterr().out == "  75 files of 10 to 750 rows\n"
