"""Spans: the periods a data root holds, and which of them a run reads.

A data root holds either CSV files (a flat root, today's layout: one span, span 0, as
TFX records a pattern without ``{SPAN}``) or span folders, ``span-<N>/`` (N a
non-negative integer, leading zeros allowed: TFX's ``{SPAN}`` convention), each with
CSV files of the same columns. A run processes one span, the newest by default, and
trains on a rolling window of the newest K spans up to it; the span before it is the
reference its drift is measured against.

A span is written before it is read: where any span folder of a root holds a
``_SUCCESS`` marker (what Hadoop's FileOutputCommitter writes for a Spark job once
every file is in place, and what other writers are asked to write last), a folder
without one is still being written and is left out, as if it had not landed yet.
Without markers, the newest span folder holding no data file yet is waited for.

Resolved here from the root's listing (``read_root``), by ExampleGen's driver before
TFX looks for a cached execution, by its executor (open-source Kubeflow Pipelines
never runs the driver), and by the runner's pre-flight check, all with the same
rules. Only the standard library: the pre-flight check imports this before TFX is
loaded.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import BinaryIO, Protocol

SPAN_FOLDER = re.compile(r"^span-(\d+)$")
_READ_BYTES = 8 << 20
# The span parameter's value for "the newest span in the data root".
LATEST = -1
LATEST_TEXT = "latest"
FLAT_SPAN = 0
# The marker a writer leaves in a folder once all its files are written.
SUCCESS_MARKER = "_SUCCESS"
_HIDDEN = (".", "_")


class SpanError(ValueError):
    """The data root's spans cannot give the run it asks for; the message says why."""


class SpanNotReady(Exception):  # noqa: N818 - a state of the data, not an error of the run
    """The span to read is not there yet, or changed while it was read: wait for it.

    Not bad input: a writer is still at work, and a later run takes the span.
    """


class FileSystem(Protocol):
    """The listing calls a root is read with: ``LOCAL`` here, TFX's ``fileio`` in a step."""

    def exists(self, path: str) -> bool: ...  # noqa: D102
    def isdir(self, path: str) -> bool: ...  # noqa: D102
    def listdir(self, path: str) -> list[str]: ...  # noqa: D102


# This machine's files, for the runner's pre-flight check.
LOCAL: FileSystem = types.SimpleNamespace(
    exists=os.path.exists, isdir=os.path.isdir, listdir=os.listdir
)


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
    # Why a newer span folder was passed over (no _SUCCESS yet); "" when none was.
    unfinished: str = ""

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


def _unfinished(
    folders: dict[int, str], complete: set[int] | None, span: int
) -> tuple[dict[int, str], str]:
    """The span folders that are written, and a line naming those passed over.

    ``complete`` holds the spans whose folder has the marker (None: no folder has). A
    span asked for by number that is still being written is SpanNotReady.
    """
    if not complete:
        return folders, ""
    pending = sorted(set(folders) - complete)
    if span in pending:
        raise SpanNotReady(
            f"span {span} ({folders[span]}/) has no {SUCCESS_MARKER} yet, while other spans "
            "do: it is still being written; a later run takes it"
        )
    written = {s: f for s, f in folders.items() if s in complete}
    if not pending:
        return written, ""
    named = ", ".join(f"span {s} ({folders[s]}/)" for s in pending)
    has = "has" if len(pending) == 1 else "have"
    taking = max(written) if span == LATEST else span
    return (
        written,
        f"{named} {has} no {SUCCESS_MARKER} yet: still being written; taking span {taking}",
    )


def resolve(
    root: str,
    folders: dict[int, str],
    data_files: list[str],
    span: int,
    window: int,
    complete: set[int] | None = None,
) -> Window:
    """The spans a run of ``span`` (LATEST: the newest) with a window of ``window`` reads.

    ``folders`` are the root's span folders (``span_folders``) and ``data_files`` the
    data files lying directly in it. A root with both is refused, naming one of each.
    ``complete`` holds the spans whose folder has a ``_SUCCESS`` marker (None or empty
    when none has): the others are being written and are left out.
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
    folders, unfinished = _unfinished(folders, complete, span)
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
    return Window(span, spans, previous, reads, note=note, unfinished=unfinished)


def data_names(fs: FileSystem, folder: str, pattern: str) -> list[str]:
    """The names in ``folder`` matching ``pattern`` that are files, not folders.

    Names starting with ``.`` or ``_`` are not data, as Hadoop's readers have it:
    writers' checksums (Spark's ``.part-0.csv.crc``), copies in flight
    (``.x.csv.AbCd``) and markers.
    """
    names = [n.rstrip("/") for n in fs.listdir(folder)]
    return sorted(
        n
        for n in names
        if fnmatch.fnmatch(n, pattern)
        and not n.startswith(_HIDDEN)
        and not fs.isdir(os.path.join(folder, n))
    )


def read_root(fs: FileSystem, root: str, pattern: str, span: int, window: int) -> Window:
    """The window a run of ``span`` reads from ``root``, listed through ``fs``.

    The one listing every reader shares: span folders or loose files matching
    ``pattern``, the ``_SUCCESS`` markers, and the newest span waited for while it
    holds no data file yet. SpanError for a root that cannot give the run, SpanNotReady
    for one with nothing to read yet (an empty root, or a span still being written).
    """
    if not fs.exists(root):
        raise SpanError(f"data root {root} does not exist")
    if not fs.isdir(root):
        raise SpanError(f"data root {root} is not a directory (give the folder holding the data)")
    names = [n.rstrip("/") for n in fs.listdir(root)]
    folders = span_folders(n for n in names if fs.isdir(os.path.join(root, n)))
    loose = data_names(fs, root, pattern)
    if span == LATEST and not folders and not loose and not names:
        raise SpanNotReady(f"data root {root} holds no span yet: nothing to read")
    complete = {s for s, f in folders.items() if fs.exists(os.path.join(root, f, SUCCESS_MARKER))}
    resolved = resolve(root, folders, loose, span, window, complete)
    newest = resolved.folders[resolved.span]
    waited = span == LATEST and not complete and newest
    if waited and not data_names(fs, os.path.join(root, newest), pattern):
        raise SpanNotReady(
            f"span {resolved.span} ({newest}/) holds no data file yet: it is still being "
            "written; a later run takes it"
        )
    return resolved


def read_window(
    fs: FileSystem,
    root: str,
    window: Window,
    pattern: str,
    opener: Callable[[str], BinaryIO],
    gone: tuple[type[Exception], ...] = (OSError,),
) -> tuple[dict[int, list[str]], dict[int, str]]:
    """Each span's data files (paths, in name order) and their ``files_digest``.

    A span whose folder or files went away while listed or read (``gone``: the
    errors that say so) has neither, which ``changed_span`` reports as a change.
    """
    files, digests = {}, {}
    for span, folder in window.folders.items():
        base = os.path.join(root, folder)
        try:
            paths = [os.path.join(base, n) for n in data_names(fs, base, pattern)]
            digests[span] = files_digest(paths, base, opener)
        except gone:
            continue
        files[span] = paths
    return files, digests


def window_json(window: Window) -> str:
    """``window`` as text, for a step that reads what another resolved."""
    return json.dumps(
        {**dataclasses.asdict(window), "folders": {str(s): f for s, f in window.folders.items()}}
    )


def window_from_json(text: str) -> Window:
    """The window ``window_json`` wrote."""
    fields = json.loads(text)
    fields["spans"] = tuple(fields["spans"])
    fields["folders"] = {int(s): f for s, f in fields["folders"].items()}
    return Window(**fields)


def changed_span(before: dict[int, str], after: dict[int, str]) -> int | None:
    """The first span whose digest differs between two readings, or None."""
    return next((s for s in sorted(before) if before[s] != after.get(s)), None)


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
