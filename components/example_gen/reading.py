"""The spans a run reads: the window resolved, and its files' digests when the run began."""

from __future__ import annotations

import json
import os
from typing import Any

import tensorflow as tf
from tfx.dsl.io import fileio

from components.example_gen.keys import RESOLVED_WINDOW_KEY, SPAN_DIGESTS_KEY, SPAN_KEY, WINDOW_KEY
from data_layout import spans


def resolve_window(input_base: str, pattern: str, exec_properties: dict[str, Any]) -> spans.Window:
    """The spans this run reads: the window the driver resolved, else the one asked for."""
    resolved = exec_properties.get(RESOLVED_WINDOW_KEY)
    if resolved:
        return spans.window_from_json(resolved)
    span = spans.parse_span(exec_properties.get(SPAN_KEY) or spans.LATEST_TEXT)
    window = int(exec_properties.get(WINDOW_KEY) or 1)
    return spans.read_root(fileio, input_base, pattern, span, window)


def _read_bytes(path: str) -> Any:
    return fileio.open(path, "rb")


# What TFX's file layer raises for a folder or file that went away.
GONE = (OSError, tf.errors.NotFoundError)


class Reading:
    """The files a run reads, and their digests when it began (what its cache key holds)."""

    def __init__(self, root: str, window: spans.Window, pattern: str) -> None:
        self.root, self.window, self.pattern = root, window, pattern
        self.files, self.digests = self._read()
        missing = next((s for s in sorted(window.folders) if s not in self.digests), None)
        if missing is not None:
            raise self.not_ready(missing, "since this run listed it")
        self.window_digest = spans.window_digest(window, self.digests)

    def _read(self) -> tuple[dict[int, list[str]], dict[int, str]]:
        return spans.read_window(fileio, self.root, self.window, self.pattern, _read_bytes, GONE)

    def check_unchanged(self, before: dict[int, str] | None) -> None:
        """SpanNotReady naming a span whose files differ from ``before`` (None: no check)."""
        span = None if before is None else spans.changed_span(before, self.digests)
        if span is not None:
            raise self.not_ready(span, "since this run listed it")

    def changed_now(self) -> int | None:
        """The first span whose files are no longer what this reading found, or None."""
        return spans.changed_span(self.digests, self._read()[1])

    def not_ready(self, span: int, when: str) -> spans.SpanNotReady:
        """The error that says span ``span`` changed ``when``."""
        folder = os.path.join(self.root, self.window.folders[span])
        return spans.SpanNotReady(
            f"span {span} ({folder}) changed {when}: nothing was learned from it; "
            "a later run takes it"
        )


def driver_digests(exec_properties: dict[str, Any]) -> dict[int, str] | None:
    """The per-span digests the driver read (None where no driver ran, as on Kubeflow)."""
    found = exec_properties.get(SPAN_DIGESTS_KEY)
    return {int(s): d for s, d in json.loads(found).items()} if found else None
