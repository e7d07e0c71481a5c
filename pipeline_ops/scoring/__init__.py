"""Scoring a table with a pushed model (``wide-deep-score``): rows in, scores out.

- ``inputs``: the rows to score, from CSV (read by ExampleGen's own reader) or JSON
  lines, in blocks of text cells, and the files a folder holds.
- ``cells``: the blocks as the model's ``tf.Example``s, each column of the kind the
  curated schema gives it (ExampleGen's encoder), and the cell that cannot be read.
- ``outputs``: the scored rows written as CSV, Parquet or JSON lines, whole or not at all.
- ``scoring``: which model, and the loop from blocks to written scores.
"""
