"""The execution properties ExampleGen's component declares and its driver and executor read."""

from __future__ import annotations

# The execution property listing the columns the curated schema declares INT.
INT_COLUMNS_KEY = "int_columns"
# The span to process (spans.LATEST: the newest), the window of spans to train on, and
# where encoded spans are kept for later runs (see data_layout.encoded_spans).
SPAN_KEY = "requested_span"
WINDOW_KEY = "window"
SPAN_CACHE_KEY = "span_cache"
# The column whose newest value's rows form the test split ("": the test split is hashed).
TEST_PERIOD_KEY = "test_period"
# The entity's history ExampleGen adds to each row (JSON of modules.features.HistoryColumns'
# fields; "": none).
ENTITY_HISTORY_KEY = "entity_history"
# Set by the driver: the window it resolved (spans.window_json) and each span's files
# digest as it read them (JSON {span: digest}); the executor reads that window.
RESOLVED_WINDOW_KEY = "resolved_window"
SPAN_DIGESTS_KEY = "span_digests"
