"""CsvExampleGen with an Arrow CSV reader: the same examples and splits, much faster.

TFX's CsvExampleGen parses every line with Python's csv module, builds every
``tf.train.Example`` field by field in Python, then shuffles all examples through
one Beam group-by before writing: most of a large run's time and memory
(docs/decisions/arrow-example-gen.md). This executor is one Beam step per
input file (so files spread over Beam workers, on any runner): read the file in
blocks with pyarrow's CSV reader, encode each block with tfx_bsl's C++ encoder,
hash each example into its split and write one gzipped TFRecord per block and split.
Reading and encoding are ``data_layout.csv_examples``'s, which ``wide-deep-score`` reads
rows to score with. This package is the component, a module per job: the execution
properties (``keys``), the test period (``periods``), the Beam writes (``writing``), the
spans a run reads (``reading``), a window of encoded spans (``windows``), the executor,
the driver and the component.

The examples equal CsvExampleGen's, and so do the splits (TFX hashes each
example's deterministic serialization; these records are that serialization):

* column types are inferred the way CsvExampleGen infers them, over every file of
  the split: INT when every non-empty cell is a 64-bit integer, else FLOAT when
  every one is a number, else STRING; a column with no value at all has no type;
* an empty cell is an empty value list.

Where it differs, for files as people export them (``data_layout/csv_files.py``
has the rules it shares with the runner's pre-flight check):

* it reads ``.csv`` and gzipped ``.csv.gz`` files, and a byte-order mark before the
  header is not part of the first column's name;
* a column the curated schema declares INT (``int_columns``) holds integers even
  where they are written as whole floats (``10.0``, as pandas writes an integer
  column with gaps); a value that is not whole fails, naming the file, the column
  and the value;
* a file that is not UTF-8 fails with the offset of its first other byte, and a row
  with more or fewer cells than the header with the file and the row's text
  (CsvExampleGen prints the parsed cells only);
* numbers written with Python-only syntax (``1_000``) are text here; splits by a
  ``partition_feature_name`` hash that column's feature, as TFX does, and a row
  without a value in it fails naming the column (TFX's message names no file);
* a ``test_period`` column (a panel's year, say) splits alone: the rows of its newest
  value in the span go to ``test``, of the value before it to ``validation``, older
  ones to ``train``: the question production asks, how a model does on the next
  period (TFX's SplitConfig has no such rule).
"""
