"""Scoring rows with a pushed model: rows in, scores and their skew out.

What ``wide-deep-score`` and the Kubeflow scoring pipeline's BatchScorer step share,
so a table scored on a laptop and a span scored on the cluster go through one code path.

- ``inputs``: the rows to score, from CSV (read by ExampleGen's own reader) or JSON
  lines, in blocks of text cells, and the files a folder holds.
- ``cells``: the blocks as the value lists training reads, each column of the kind the
  curated schema gives it (ExampleGen's encoder), and the cell that cannot be read.
- ``outputs``: the scored rows written as CSV, Parquet or JSON lines, whole or not at all.
- ``scorer``: which model, and the loop from blocks to written scores.
- ``parallel``: a folder scored as a Beam pipeline, a file per work item, in input order.
- ``skew``: a uniform sample of the scored rows compared with the model's training data,
  by the schema's skew comparators.
- ``artifacts``: the scoring's record in ML-Metadata, as a TFX artifact type.
"""
