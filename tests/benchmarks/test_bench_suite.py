"""The benchmark suite's logic: its tables as a user's CSV, the gap's interval, the verdict.

On tiny frames and scores made here; the suite's own tables are never read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "suite.md"


@pytest.fixture(scope="module")
def suite(load_script):
    return load_script("bench_suite")


@pytest.fixture
def table(suite):
    return suite.SuiteTable("tiny", "pkg", "Tiny", "outcome", "yes", drop=("caseid",))


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rownames": [1, 2, 3, 4],
            "caseid": ["a", "b", "c", "d"],
            "year": [1995.0, None, 2001.0, 1998.0],
            "ratio": [0.5, 1.25, None, 2.0],
            "kind": pd.Categorical(["x", "y", None, "x"]),
            "outcome": ["yes", "no", "no", None],
        }
    )


def test_a_table_becomes_the_csv_a_user_would_export(suite, table, tmp_path):
    prepared = suite.prepare(_frame(), table)
    path = tmp_path / "tables" / "tiny.csv"
    suite.write_csv(prepared, path)
    # Row numbers and the dropped columns go, the unlabelled row goes, whole numbers are
    # integers even beside a gap, decimals stay decimals, missing cells are empty.
    assert path.read_text().splitlines() == [
        "year,ratio,kind,outcome",
        "1995,0.5,x,yes",
        ",1.25,y,no",
        "2001,,,no",
    ]
    assert [p.name for p in path.parent.iterdir()] == ["tiny.csv"]
    assert suite.positive_share(prepared, table) == pytest.approx(1 / 3)


def test_a_positive_value_is_matched_as_text(suite):
    numeric = suite.SuiteTable("deaths", "pkg", "D", "death", "1")
    frame = pd.DataFrame({"age": [50, 60, 70], "death": [0, 1, 0]})
    assert suite.positive_share(suite.prepare(frame, numeric), numeric) == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "status"}, "tiny: no column status"),
        ({"drop": ("caseid", "notes")}, "tiny: no column notes"),
        ({"positive": "Yes"}, "tiny: outcome is never 'Yes'"),
    ],
)
def test_a_table_that_does_not_fit_its_record_is_named(suite, table, change, message):
    wrong = table._replace(**change)
    with pytest.raises(ValueError, match=f"^{message}$"):
        suite.prepare(_frame(), wrong)


def test_tables_are_chosen_by_name_in_the_suites_order(suite):
    names = [t.name for t in suite.TABLES]
    assert [t.name for t in suite.select_tables(f"{names[3]}, {names[0]}")] == [names[0], names[3]]
    assert suite.select_tables(None) == suite.TABLES
    with pytest.raises(ValueError, match="^no table nope in the suite"):
        suite.select_tables(f"{names[0]},nope")


def test_the_held_out_tables_are_their_own_pool(suite):
    assert not {t.name for t in suite.TABLES} & {t.name for t in suite.HELD_OUT}
    first, last = suite.HELD_OUT[0].name, suite.HELD_OUT[-1].name
    assert suite.select_tables(f"{last},{first}", suite.HELD_OUT) == [
        suite.HELD_OUT[0],
        suite.HELD_OUT[-1],
    ]
    with pytest.raises(ValueError, match=f"^no table {first} in the suite"):
        suite.select_tables(first)


def test_each_panel_is_run_with_its_entity_and_without(suite):
    pools = [suite.TABLES, suite.HELD_OUT, suite.PANELS]
    names = [t.name for pool in pools for t in pool]
    assert len(names) == len(set(names))
    drafted = {t.name: t.draft_args for t in suite.PANELS}
    for name, args in drafted.items():
        if not name.endswith("_rows"):
            assert args == ()
            assert drafted[f"{name}_rows"] == ("--no-entity",)
    assert suite.POOLS["panels"] is suite.PANELS


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--folds", "2"], "--folds needs at least 3 (score, choose, train), got 2"),
        (["--held-out", "--panels"], "--held-out and --panels are two pools: one at a time"),
        (["--panels", "--tables", "hmda"], "no table hmda in the suite"),
        (["--tables", "nope"], "no table nope in the suite"),
        (["--held-out", "--tables", "mlc_churn"], "no table mlc_churn in the suite"),
    ],
)
def test_bad_arguments_exit_2_before_any_work(suite, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        suite.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_docs_list_the_same_tables_with_the_same_labels(suite):
    # The list of tables, not the results tables below it: its rows name their source.
    rows = [line for line in DOCS.read_text().splitlines() if line.startswith("| ") and "`" in line]
    listed = {line.split("|")[1].strip(): line for line in rows}
    for t in [*suite.TABLES, *suite.HELD_OUT, *suite.PANELS]:
        if t.draft_args:  # the same table drafted another way
            continue
        assert t.name in listed, t.name
        assert f'`"{t.package}", "{t.item}"`' in listed[t.name]
        assert f"`{t.label} == {t.positive}`" in listed[t.name]
        for column in t.drop:
            assert f"`{column}`" in listed[t.name]


def _fold(rng: np.random.Generator, rows: int, pipeline_noise: float, trees_noise: float):
    labels = rng.integers(0, 2, rows)
    return {
        "labels": labels,
        "pipeline": labels + rng.normal(0, pipeline_noise, rows),
        "trees": labels + rng.normal(0, trees_noise, rows),
    }


def test_the_gap_draws_are_paired_per_fold_and_centred_on_the_mean_gap(suite):
    from modules.exact_auc import auc

    rng = np.random.default_rng(1)
    folds = [_fold(rng, 300, 0.6, 1.0), _fold(rng, 300, 0.8, 0.8)]
    draws = suite.fold_gap_draws(folds, rounds=400)
    gaps = [auc(f["labels"], f["pipeline"]) - auc(f["labels"], f["trees"]) for f in folds]
    assert len(draws) == 400
    assert np.mean(draws) == pytest.approx(np.mean(gaps), abs=0.01)
    low, high = suite.interval(draws)
    assert low < np.mean(gaps) < high
    # The same scores on both sides: every draw's difference is 0, whatever rows it drew.
    same = [{**f, "trees": f["pipeline"]} for f in folds]
    assert np.all(suite.fold_gap_draws(same, rounds=50) == 0)
    # Seeded: a rerun gives the same interval.
    assert np.array_equal(suite.fold_gap_draws(folds, rounds=400), draws)


def _result(name: str, gap: float, draws: list[float]) -> dict:
    return {"table": name, "gap": gap, "gap_draws": draws}


def test_the_suite_verdict_names_the_tables_more_than_a_hundredth_behind(suite):
    results = [
        _result("ahead", 0.02, [0.01, 0.02, 0.03]),
        _result("level", -0.01, [-0.02, -0.01, 0.0]),
        _result("behind", -0.0101, [-0.02, -0.01, 0.0, 0.5]),  # its 4th draw is cut
    ]
    summary = suite.summarize(results)
    assert summary["mean_gap"] == round((0.02 - 0.01 - 0.0101) / 3, 4)
    assert summary["behind"] == ["behind"]
    assert summary["holds"] is False
    # The mean's draws are the means of the tables' draws k: -0.01, 0, +0.01.
    assert summary["mean_gap_interval_95"] == suite.interval([-0.01, 0.0, 0.01])

    summary = suite.summarize(results[:2])
    assert (summary["mean_gap"], summary["behind"], summary["holds"]) == (0.005, [], True)
    assert not suite.summarize([_result("under", -0.001, [0.0])])["holds"]


def test_the_draft_digest_changes_with_the_declaration_or_its_schema(suite, tmp_path):
    folder = tmp_path / "suite_tiny"
    folder.mkdir()
    (folder / "__init__.py").write_text("DATASET = 1\n")
    (folder / "schema.pbtxt").write_text("feature {}\n")
    first = suite.draft_digest("suite_tiny", tmp_path)
    assert first == suite.draft_digest("suite_tiny", tmp_path)
    (folder / "schema.pbtxt").write_text("feature { name: 'x' }\n")
    assert suite.draft_digest("suite_tiny", tmp_path) != first
    assert len(first) == 16 and set(first) <= set("0123456789abcdef")
