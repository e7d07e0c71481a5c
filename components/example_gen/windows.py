"""A window of span folders: each span encoded once into the cache, then assembled into splits."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import Any

import apache_beam as beam

from components.example_gen.periods import PeriodWindow, with_newest
from components.example_gen.writing import encode_span
from data_layout import csv_files, encoded_spans, entity_history, spans
from data_layout.csv_examples import (
    ColumnKind,
    file_kinds,
    merge_kinds,
    read_header,
)
from data_layout.split_router import SplitRouter
from data_layout.splits import NEWEST_SPAN, PREVIOUS_SPAN, TEST, TRAIN
from modules.features import HistoryColumns


class WindowedSpans:
    """A window of span folders: each encoded once into the cache, then assembled.

    The run's Examples hold: ``train``, ``validation`` and ``test`` (``parts`` says which
    span's rows each holds);
    ``newest_span`` and ``previous_span``, all rows of the run's span and of the one
    before it, for the validator's drift check between periods.
    """

    def __init__(
        self,
        root: str,
        window: spans.Window,
        files: dict[int, list[str]],
        router: SplitRouter,
        cache: str,
        history: HistoryColumns | None = None,
    ) -> None:
        self.root, self.window, self.router, self.cache = root, window, router, cache
        # The entity history to add to each row, from the whole window's rows.
        self.history = history
        self.folders = {s: os.path.join(root, f) for s, f in window.folders.items()}
        self.files = {}
        for span, found in files.items():
            if not found:
                raise spans.SpanError(f"span {span} ({self.folders[span]}) holds no CSV files")
            self.files[span] = csv_files.data_files(found)
        self.names = self._columns()
        router.check_columns(self.files[window.span][0], self.names)
        self.encoded: dict[int, encoded_spans.EncodedSpan] = {}
        # Set by encode: each span's kinds key, and the spans encoded in this run.
        self.kinds_keys: dict[int, str] = {}
        self.encoded_now: set[int] = set()
        # The routers the spans were encoded with (a test period's newest values found),
        # and the columns read as integers (set by encode).
        self.routers: dict[int, SplitRouter] = {}
        self.int_columns: list[str] = []
        self._period_window: PeriodWindow | None = None

    @property
    def split_names(self) -> list[str]:
        """The Examples' splits."""
        extra = [NEWEST_SPAN] + ([PREVIOUS_SPAN] if self.window.previous is not None else [])
        return [*self.router.names, *extra]

    def _columns(self) -> list[str]:
        """The columns every span shares; SpanError naming a span whose columns differ."""
        newest = read_header(self.files[self.window.span][0])
        for span, files in sorted(self.files.items()):
            header = read_header(files[0])
            if header != newest:
                missing = sorted(set(newest) - set(header))
                extra = sorted(set(header) - set(newest))
                raise spans.SpanError(
                    f"span {span} ({files[0]}) has other columns than span "
                    f"{self.window.span}: missing {missing or 'none'}, extra {extra or 'none'}"
                    + ("; same columns in another order" if not missing and not extra else "")
                )
        return newest

    def encode(
        self,
        make_pipeline: Callable[[], beam.Pipeline],
        int_columns: list[str],
        digests: dict[int, str],
    ) -> tuple[dict[int, int], list[int]]:
        """Encode the spans the cache lacks; each span's rows, and the spans reused.

        ``digests`` are the spans' files digests (``spans.read_window``).
        """
        self.int_columns = int_columns
        self.kinds_keys = {
            span: encoded_spans.encoding_key(digests[span], [], [("int_columns", int_columns)])
            for span in self.files
        }
        kinds = self._window_kinds(int_columns)
        buckets: list[tuple[str, int | str]] = list(
            zip(self.router.names, self.router.buckets, strict=True)
        )
        if self.router.partition:  # another key, other splits: not the cached encoding
            buckets.append(("partition", self.router.partition))
        if self.router.period:  # the newest value tests, the one before it validates
            buckets.append(("test_period", self.router.period))
            buckets.append(("period_splits", "newest test, previous validation, older train"))
        if self.history:  # read from every span of the window: their files are in the key
            window_files = json.dumps([digests[s] for s in sorted(digests)])
            buckets.append(("entity_history", self.history.to_json()))
            buckets.append(("history_of", window_files))
        for span, digest in digests.items():
            key = encoded_spans.encoding_key(digest, kinds[span], buckets)
            self.encoded[span] = encoded_spans.lookup(self.cache, span, key)
        missing = [s for s, e in sorted(self.encoded.items()) if e.rows is None]
        self.encoded_now = set(missing)
        if missing:
            self._encode_missing(make_pipeline, missing, kinds, int_columns)
        rows = {s: sum(e.rows.values()) for s, e in self.encoded.items()}
        return rows, [s for s in sorted(self.encoded) if s not in missing]

    def _window_kinds(self, int_columns: list[str]) -> dict[int, tuple[ColumnKind, ...]]:
        """Each span's column kinds: the window's widest, where the span has values."""
        # Each span's own kinds are inferred once per content; the window takes the widest.
        own = {
            span: encoded_spans.cached_kinds(
                self.cache,
                span,
                self.kinds_keys[span],
                lambda files=files: merge_kinds(
                    file_kinds(path, self.names, int_columns) for path in files
                ),
            )
            for span, files in self.files.items()
        }
        widest = merge_kinds(own.values())
        # A column with no value in a span is written the same whatever its kind: it
        # stays untyped there, so the span's encoding does not depend on its window.
        return {
            span: tuple(ColumnKind(w if o else o) for o, w in zip(own[span], widest, strict=True))
            for span in own
        }

    def _encode_missing(
        self,
        make_pipeline: Callable[[], beam.Pipeline],
        missing: list[int],
        kinds: dict[int, tuple[ColumnKind, ...]],
        int_columns: list[str],
    ) -> None:
        """Encode the ``missing`` spans in one Beam pipeline into the cache; look them up again.

        A test period's two newest values are each span's own.
        """
        history = None
        if self.history is not None:
            every = [path for span in sorted(self.files) for path in self.files[span]]
            history = entity_history.of_files(self.history, every, self.names)
            kinds = {s: (*k, *entity_history.KINDS) for s, k in kinds.items()}
        with make_pipeline() as pipeline:
            for span in missing:
                router = with_newest(self.router, self.files[span], self.names, int_columns)
                self.routers[span] = router
                encode_span(
                    pipeline, span, self.files[span], self.names, kinds[span],
                    router, self.encoded[span].uri, history,
                )  # fmt: skip
        for span in missing:
            e = self.encoded[span]
            self.encoded[span] = encoded_spans.lookup(self.cache, span, os.path.basename(e.uri))
            if self.encoded[span].rows is None:
                # Beam's workers wrote it somewhere this process does not read: their own
                # disks, when a remote runner was given a local cache.
                raise RuntimeError(
                    f"span {span} was encoded, but its encoding is not at {e.uri}: with a "
                    "Beam runner on other machines the pipeline root must be on a store "
                    "every worker reaches (gs://, s3://)"
                )

    def span_router(self, span: int) -> SplitRouter:
        """The router ``span`` was encoded with: its period's newest values found.

        The one it was encoded with in this run; for a span reused from the cache, the
        values its encoding kept (read from its files where an older encoding kept none).
        """
        kept = self.encoded[span].periods if span in self.encoded else None
        if span not in self.routers and kept is not None:
            self.routers[span] = self.router.with_newest(*kept)
        if span not in self.routers:
            self.routers[span] = with_newest(
                self.router, self.files[span], self.names, self.int_columns
            )
        return self.routers[span]

    def newest_router(self) -> SplitRouter:
        """The router of the run's span: what its test split is."""
        return self.span_router(self.window.span)

    def period_window(self) -> PeriodWindow | None:
        """Where each span's period parts go (None: no test period); checked once, kept."""
        if not self.router.period:
            return None
        if self._period_window is None:
            periods = {
                span: (self.span_router(span).newest, self.span_router(span).previous)
                for span in self.window.spans
            }
            self._period_window = PeriodWindow(self.router.period, periods, self.window.span)
        return self._period_window

    def validation_period(self) -> int | str | None:
        """The window's validation period (None: no test period, or no value before it)."""
        found = self.period_window()
        return None if found is None else found.validation

    def forget(self, span: int) -> None:
        """Drop what this run made of ``span``: its kinds, and its encoding if made now."""
        if span not in self.kinds_keys:  # the run stopped before reading the span
            return
        encoding = self.encoded[span].uri if span in self.encoded_now else None
        encoded_spans.forget(self.cache, span, self.kinds_keys[span], encoding)

    def parts(self) -> dict[str, list[tuple[int, str]]]:
        """Each Examples split (train, validation, test) as the (span, encoded split)s it holds.

        Without a test period: every window span's train rows, and the older spans'
        held-out rows too, but for those an entity keys (an entity is held out in every
        span alike, the same hash, and its older rows in train would teach the model the
        entities the run's span holds out); validation and test the run's span's alone.
        With one: each part goes by its period (``PeriodWindow.target``).
        """
        periods = self.period_window()
        found: dict[str, list[tuple[int, str]]] = {name: [] for name in self.router.names}
        for span in self.window.spans:
            for split in self.router.names:
                target = (
                    periods.target(span, split)
                    if periods is not None
                    else split if span == self.window.span
                    else TRAIN if split == TRAIN or not self.router.partition
                    else None
                )  # fmt: skip
                if target is not None:
                    found[target].append((span, split))
        return found

    def check_period_splits(self) -> None:
        """SpanError where a test period leaves train or validation without a row."""
        periods = self.period_window()
        if periods is None:
            return
        for split, parts in self.parts().items():
            if split != TEST and not sum(self.encoded[s].rows[p] for s, p in parts):
                raise spans.SpanError(
                    f"the window's spans ({self.window.spans}) leave the {split} split "
                    f"without a row: test period {periods.column} = {periods.test}, "
                    f"validation period {periods.validation}; a test period needs three "
                    "periods in the window (a wider --window, or spans of several periods)"
                )

    def train_parts(self) -> list[dict[str, Any]]:
        """The encoded splits the train split is made of: span, split and encoding key.

        Transform analyzes each part on its own, its analyzer cache keyed by the
        encoding key.
        """
        return [
            {"span": span, "split": split, "key": os.path.basename(self.encoded[span].uri)}
            for span, split in self.parts()[TRAIN]
        ]

    def assemble(self, uri: str) -> None:
        """Copy the window's encoded files into the Examples' splits at ``uri``."""
        split_dir = functools.partial(os.path.join, uri)
        for target, parts in self.parts().items():
            for span, split in parts:
                encoded_spans.copy_into(self.encoded[span], split, split_dir(f"Split-{target}"))
        newest = self.encoded[self.window.span]
        for split in self.router.names:
            encoded_spans.copy_into(newest, split, split_dir(f"Split-{NEWEST_SPAN}"))
            if self.window.previous is not None:
                encoded_spans.copy_into(
                    self.encoded[self.window.previous], split, split_dir(f"Split-{PREVIOUS_SPAN}")
                )
