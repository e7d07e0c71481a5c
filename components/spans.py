"""Spans: the periods a data root holds, and which of them a run reads.

A data root holds either CSV files (a flat root, today's layout: one span, span 0, as
TFX records a pattern without ``{SPAN}``) or span folders, ``span-<N>/`` (N a
non-negative integer, leading zeros allowed: TFX's ``{SPAN}`` convention), each with
CSV files of the same columns. A run processes one span, the newest by default, and
trains on a rolling window of the newest K spans up to it; the span before it is the
reference its drift is measured against.

Resolved here from the root's listing, inside the ExampleGen step (open-source
Kubeflow Pipelines never runs TFX's driver, which resolves ``{SPAN}`` elsewhere), and
by the runner's pre-flight check with the same rules. Only the standard library: the
pre-flight check imports this before TFX is loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import BinaryIO

SPAN_FOLDER = re.compile(r"^span-(\d+)$")
_READ_BYTES = 8 << 20
# The span parameter's value for "the newest span in the data root".
LATEST = -1
LATEST_TEXT = "latest"
FLAT_SPAN = 0


class SpanError(ValueError):
    """The data root's spans cannot give the run it asks for; the message says why."""


@dataclass(frozen=True)
class Window:
    """The spans one run reads: the run's span, the window trained on, the reference.

    ``folders`` maps each span the run reads (window and previous) to its folder under
    the data root ("" for a flat root, whose files are the span). ``note`` says why the
    window is shorter than asked, "" when it is not.
    """

    span: int
    spans: tuple[int, ...]  # oldest first; the last is ``span``
    previous: int | None  # the span before ``span``, for drift; None when there is none
    folders: dict[int, str]
    note: str = ""

    @property
    def flat(self) -> bool:
        """Whether the data root holds files, not span folders."""
        return self.folders == {FLAT_SPAN: ""}


def parse_span(text: str) -> int:
    """A span as people and run-time parameters write it: a number, or "latest"."""
    text = str(text).strip()
    if text == LATEST_TEXT:
        return LATEST
    if not text.isdigit():
        raise SpanError(f"a span is a number >= 0 or '{LATEST_TEXT}', got {text!r}")
    return int(text)


def span_text(span: int) -> str:
    """``span`` as ``parse_span`` reads it."""
    return LATEST_TEXT if span == LATEST else str(span)


def span_folders(names: Iterable[str]) -> dict[int, str]:
    """The span folders among ``names`` (a root's entries), by span number.

    SpanError when two names are the same span (``span-1`` and ``span-01``).
    """
    found: dict[int, str] = {}
    for name in sorted(n.rstrip("/") for n in names):
        match = SPAN_FOLDER.match(name)
        if not match:
            continue
        span = int(match.group(1))
        if span in found:
            raise SpanError(f"{found[span]} and {name} are both span {span}: keep one")
        found[span] = name
    return found


def resolve(
    root: str, folders: dict[int, str], data_files: list[str], span: int, window: int
) -> Window:
    """The spans a run of ``span`` (LATEST: the newest) with a window of ``window`` reads.

    ``folders`` are the root's span folders (``span_folders``) and ``data_files`` the
    data files lying directly in it. A root with both is refused, naming one of each.
    """
    if window < 1:
        raise SpanError(f"the window must be at least 1 span, got {window}")
    if folders and data_files:
        raise SpanError(
            f"data root {root} mixes span folders and data files ({folders[min(folders)]}/ "
            f"and {sorted(data_files)[0]}): put every file in a span folder, or none"
        )
    if not folders:
        if span not in (LATEST, FLAT_SPAN):
            raise SpanError(
                f"data root {root} has no span folders (span-<N>/), so no span {span}: "
                "it is one span of files"
            )
        return Window(FLAT_SPAN, (FLAT_SPAN,), None, {FLAT_SPAN: ""})
    available = sorted(folders)
    if span == LATEST:
        span = available[-1]
    if span not in folders:
        raise SpanError(
            f"data root {root} has no span {span}: it holds spans {', '.join(map(str, available))}"
        )
    upto = available[: available.index(span) + 1]
    spans = tuple(upto[-window:])
    previous = upto[-2] if len(upto) > 1 else None
    note = ""
    if len(spans) < window:
        note = (
            f"a window of {window} spans was asked; {len(spans)} exist up to span {span}, "
            f"training on {', '.join(map(str, spans))}"
        )
    reads = {s: folders[s] for s in (*spans, *([previous] if previous is not None else []))}
    return Window(span, spans, previous, reads, note=note)


def files_digest(paths: Iterable[str], base: str, opener: Callable[[str], BinaryIO]) -> str:
    """SHA-256 of the files' names (relative to ``base``) and bytes, in name order.

    ``opener`` opens a path for reading bytes: ``open`` here, TFX's fileio in a step.
    """
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(os.path.relpath(path, base).encode() + b"\0")
        with opener(path) as f:
            while chunk := f.read(_READ_BYTES):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def window_digest(window: Window, span_digests: dict[int, str]) -> str:
    """What a run of ``window`` learns from: its spans, their files' digests, the reference."""
    read = {"span": window.span, "spans": window.spans, "previous": window.previous}
    read["files"] = {str(s): span_digests[s] for s in sorted(span_digests)}
    return hashlib.sha256(json.dumps(read, sort_keys=True).encode()).hexdigest()
