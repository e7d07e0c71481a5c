"""A folder scored as a Beam pipeline: the progress it says, the sample it merges."""

from __future__ import annotations

import numpy as np
from scored_tables import cells_of, write_csv

from datasets.taxi import DATASET as TAXI
from scoring import parallel, scorer, skew
from scoring.outputs import ScoresWriter


def test_the_progress_ends_at_every_row_and_the_sample_holds_each_files_rows(
    served_model, scored, tmp_path
):
    rows = [cells_of(e) for e in scored.examples]
    folder = tmp_path / "span"
    folder.mkdir()
    files = [
        write_csv(folder / f"{i}.csv", part, TAXI.raw_feature_columns())
        for i, part in enumerate((rows[:30], rows[30:], rows[:5]))
    ]
    spec = scorer.ScorerSpec.of("taxi", scorer.Model(str(served_model), "7"), (), 0.5)
    said: list[int] = []
    sample = skew.RowSample()
    with ScoresWriter(tmp_path / "s.csv") as writer:
        done = parallel.score_folder(spec, files, writer, sample, (), lambda d: said.append(d.rows))
    total = len(rows) + 5
    assert done.rows == total and list(done.files.values()) == [30, len(rows) - 30, 5]
    assert said and said[-1] == total and said == sorted(said)
    assert sample.seen == total and sample.batch().num_rows == total  # all kept: few rows
    fares = np.sort(sample.batch().column("fare").flatten().to_numpy())
    expected = np.sort([float(r["fare"]) for r in (*rows, *rows[:5]) if "fare" in r])
    np.testing.assert_allclose(fares, expected, rtol=1e-6)
