"""The runner's answers to bad input: one line naming the path, exit code 2."""

import pytest

import local_runner


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: None, "does not exist"),
        (lambda root: root.mkdir(), "it is empty"),
        (lambda root: (root.mkdir(), (root / "notes.txt").write_text("x")), "no *.csv files"),
        (lambda root: (root.mkdir(), (root / "a.csv").write_text("")), "is empty"),
        (lambda root: (root.mkdir(), (root / "a.csv").write_text("fare,tips\n")), "no rows"),
        (lambda root: root.write_text("fare\n1\n"), "not a directory"),
    ],
    ids=["missing", "empty-dir", "no-csv", "empty-csv", "header-only", "a-file"],
)
def test_bad_data_root(tmp_path, capsys, make, message):
    root = tmp_path / "data"
    make(root)
    code = local_runner.main(["--data-root", str(root), "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == local_runner.EXIT_BAD_INPUT
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
    assert code == local_runner.EXIT_BAD_INPUT
    assert "train_steps" in capsys.readouterr().err
