"""Reading an agent log that is still being written: from where the last read stopped, whole lines only.

A followed file is read from its recorded offset. Only complete lines count (a last line without its
newline is left for the next read, however it ends); a line holding several objects written back to back
is read as each of them, and a line that is not JSON objects is skipped and counted, not fatal (a live
log is not refused for one torn line). The reader stops at checkpoints: lines after which its format's
parser holds nothing back (Codex holds a user item until it learns whether the user typed it, and a typed
prompt's event until its item comes or the model answers), so the offset it returns, and the state saved
with it (the agents' last ids and times that derived ids continue from, a Codex session), are exactly
where the next read resumes; a read goes past its line budget until it reaches one. A file whose identity
changed (another inode, different first bytes, or shorter than the offset: rewritten or rotated) is read
again from the start; its lines' ids make the store skip what it already holds.

The cost of a read is the new lines only, whatever the file's size.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.followed import FilePosition
from summarizer.ingest.containers import line_objects
from summarizer.ingest.detect import UndetectedFormat, detect
from summarizer.ingest.formats.registry import FORMATS, documents, followed
from summarizer.ingest.line_parsers import line_parser
from summarizer.ingest.lines import first_lines
from summarizer.ingest.log_folders import default_directories as default_directories
from summarizer.ingest.problems import Problem
from summarizer.ingest.reader import iter_stream_records
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes, sequence, streams_from_json, streams_json

FOLLOWED_FORMATS = tuple(f.name for f in followed())
"""Logs of lines, each new line read as it is written."""
DOCUMENT_FORMATS = tuple(f.name for f in documents())
"""Logs an agent saves as one JSON document, rewritten as it grows, or (aider) as Markdown: read whole when
they change."""
BOOKKEEPING = frozenset[str]().union(*(f.bookkeeping for f in FORMATS))
"""Line types that carry no conversation: a log of them alone so far waits for its next line."""
HEAD_BYTES = 4096
HEAD_BYTES_DOCUMENT = 1 << 20
MAX_DOCUMENT_BYTES = 64 << 20
"""The default of SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES: a larger JSON document log is refused, never read."""
MAX_LINES_PER_READ = 5000


@dataclass(slots=True)
class FollowRead:
    records: list[IngestRecord]
    position: FilePosition | None
    """Where the records end; None when there is nothing to record yet (an empty or undetected file)."""
    restarted: bool = False
    skipped_lines: int = 0
    more: bool = False
    """The read stopped at MAX_LINES_PER_READ: read again for the rest."""
    problem: str | None = None


def identity(path: Path) -> tuple[str, int]:
    stat = path.stat()
    return f"{stat.st_dev}:{stat.st_ino}", stat.st_size


def _head(stream: Any, length: int) -> str:
    stream.seek(0)
    data = stream.read(length)
    return f"{len(data)}:{hashlib.sha256(data).hexdigest()[:48]}"


def read_new(
    path: Path, position: FilePosition | None, *, fmt: str = "auto", agent: str | None = None, max_bytes: int
) -> FollowRead:
    """The records of the lines added to `path` since `position` (None: from the start). A format given
    that is no log of lines (`fmt`, not "auto") passes the file over: nothing, and no problem."""
    if fmt != "auto" and fmt not in FOLLOWED_FORMATS:
        return FollowRead([], None)
    file_id, size = identity(path)
    with path.open("rb") as stream:
        restarted = False
        if position is not None:
            length = int(position.head.split(":", 1)[0])
            if (
                file_id != position.file_id
                or size < position.offset
                or _head(stream, length) != position.head
            ):
                position, restarted = None, True
        if position is None:
            found = _format(stream, fmt, str(path), max_bytes)
            if found is None or found.startswith("!"):
                return FollowRead([], None, restarted, problem=found[1:] if found else None)
            position = FilePosition(found, file_id, _head(stream, HEAD_BYTES), 0, {})
        if size == position.offset:
            return FollowRead([], position, restarted)
        return _read_lines(stream, path, position, agent, max_bytes, restarted, file_id)


def read_document(
    path: Path,
    position: FilePosition | None,
    *,
    fmt: str = "auto",
    agent: str | None = None,
    max_bytes: int,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
) -> FollowRead:
    """The records of a JSON document log (a Gemini CLI session before 0.39, a Cline task history) when
    it changed since `position`: the whole document is read again (the agent rewrites it whole) and the
    store skips what it holds by the messages' ids. A document of no agent-log format is no log: nothing,
    and no problem (its format is told from its first bytes). A log over `max_document_bytes` is refused
    unread (a problem, and no position). A format given that is no document log is passed over too."""
    if fmt != "auto" and fmt not in DOCUMENT_FORMATS:
        return FollowRead([], None)
    file_id, size = identity(path)
    found = fmt
    if fmt == "auto":
        with path.open("rb") as stream:
            head = stream.read(HEAD_BYTES_DOCUMENT)
        told = _document_format(head, path, size)
        if told is None:
            return FollowRead([], None)
        found = told
    data = b""
    if size <= max_document_bytes:
        with path.open("rb") as stream:
            data = stream.read(max_document_bytes + 1)  # bounded: the file may have grown since
    if size > max_document_bytes or len(data) > max_document_bytes:
        return FollowRead(
            [],
            None,
            problem=f"{path}: a {found} document log of {max(size, len(data))} bytes, over the "
            f"{max_document_bytes}-byte limit (SUMMARIZER_FOLLOW_MAX_DOCUMENT_BYTES): not read",
        )
    digest = f"{len(data)}:{hashlib.sha256(data).hexdigest()[:48]}"
    if position is not None and position.file_id == file_id and position.head == digest:
        return FollowRead([], position)
    notes = ReadNotes()
    try:
        records = list(iter_stream_records(io.BytesIO(data), str(path), found, agent, max_bytes, notes=notes))
    except InvalidMessage as exc:
        return FollowRead([], None, problem=str(exc))
    restarted = position is not None and position.file_id != file_id
    new = FilePosition(found, file_id, digest, len(data), {})
    return FollowRead(records, new, restarted, notes.skipped, problem=_said(notes.warnings))


def written_as_lines(path: Path, position: FilePosition | None, fmt: str = "auto") -> bool:
    """Whether a `.json` file is a log of lines rather than a document (a VS Code Copilot agent transcript
    is JSON Lines under a `.json` name): its kept format, the one given, or else the one its first bytes
    show, is followed line by line and is no document format."""
    name = position.format if position is not None else fmt
    if name == "auto":
        with path.open("rb") as stream:
            first = stream.readline(HEAD_BYTES_DOCUMENT)
            try:
                if not first.endswith(b"\n") or not isinstance(json.loads(first), dict):
                    return False  # a document on one line, or spread over many: not one object a line
            except ValueError:
                return False
            head = first + stream.read(HEAD_BYTES_DOCUMENT - len(first))  # only a log of lines reads on
        try:
            name = detect(head, str(path)).format
        except UndetectedFormat:
            return False
    return name in FOLLOWED_FORMATS and name not in DOCUMENT_FORMATS


def _document_format(head: bytes, path: Path, size: int) -> str | None:
    """The format of a document log from its first bytes; None for a document that is no log. A document
    larger than its head is told by its opening keys (Gemini CLI's session) or its name (Cline's history),
    so a log over the size limit is still known, and refused with a warning rather than passed over."""
    if size > len(head):
        for fmt in documents():
            if fmt.large_document is not None and fmt.large_document(path, head):
                return fmt.name
    try:
        found = detect(head, str(path)).format
    except UndetectedFormat:
        return None
    return found if found in DOCUMENT_FORMATS else None


def _said(warnings: list[str], unlisted: int = 0) -> str | None:
    """What a tolerant read left out, in one line: the first thing, and how many more (`unlisted` of
    them not in the list)."""
    if not warnings:
        return None
    more = len(warnings) - 1 + unlisted
    return warnings[0] + (f" (and {more} more)" if more else "")


def _format(stream: Any, fmt: str, label: str, max_bytes: int) -> str | None:
    """The file's format, told from its first complete lines (each read whole, however long: a first line
    holding a pasted image included); None while its first line is not complete; "!reason" when it is
    unsupported."""
    if fmt != "auto":
        return fmt
    head = first_lines(stream, budget=HEAD_BYTES_DOCUMENT, line_limit=max(max_bytes, HEAD_BYTES_DOCUMENT) * 2)
    if head is None:
        return None
    try:
        found = detect(head, label).format
    except UndetectedFormat as exc:
        if _bookkeeping_only(head):
            return None  # a Claude Code 2.x session that has said nothing yet: its next line tells
        return f"!{exc}"
    if found not in FOLLOWED_FORMATS:
        return f"!{label}: {found} is not a log format that can be followed (followed: {', '.join(FOLLOWED_FORMATS)})"
    return found


def _bookkeeping_only(head: bytes) -> bool:
    """Whether every line of `head` is a bookkeeping line (a Claude Code session file opens with one)."""
    for line in head.splitlines():
        if not line.strip():
            continue
        try:
            objects = line_objects(line)
        except Problem:
            return False
        if any(obj.get("type") not in BOOKKEEPING for obj in objects):
            return False
    return True


def _read_lines(
    stream: Any,
    path: Path,
    position: FilePosition,
    agent: str | None,
    max_bytes: int,
    restarted: bool,
    file_id: str,
) -> FollowRead:
    kept = position.state
    parser = line_parser(position.format, agent, kept.get("parser") or {})
    streams = streams_from_json(kept.get("streams"))
    notes = ReadNotes()
    out: list[IngestRecord] = []
    group: list[IngestRecord] = []
    checkpoint = position.offset
    state: dict[str, Any] = dict(kept)
    offset = position.offset
    line_number = int(kept.get("lines", 0))
    stream.seek(offset)
    skipped = lines = 0
    problems: list[str] = []  # the first thing left out; the others are counted
    unlisted = 0
    ended = False
    # Past the line budget only while no checkpoint was reached: every read moves the position on.
    while lines < MAX_LINES_PER_READ or checkpoint == position.offset:
        raw = stream.readline(max_bytes + 2)
        objects: list[dict[str, Any]] = []
        bad: str | None = None
        if raw.endswith(b"\n"):
            offset += len(raw)
            try:
                objects = line_objects(raw) if raw.strip() else []
            except Problem as exc:  # not JSON objects: the line is skipped and counted
                bad = exc.reason
        elif len(raw) < max_bytes + 2:
            ended = True  # the end, or a line still being written
            break
        else:
            rest = _rest_of_line(stream)
            if rest is None:
                ended = True  # an oversized line still being written
                break
            offset += len(raw) + rest
            bad = f"a line over {max_bytes} bytes (SUMMARIZER_MAX_MESSAGE_BYTES)"
        lines += 1
        line_number += 1
        where = f"{path}:{line_number}"
        if bad is not None:
            skipped += 1
            unlisted += _note(problems, f"{where}: {bad}")
        for obj in objects:
            try:
                group.extend(parser.feed(obj, where))
            except Problem as exc:
                skipped += 1
                unlisted += _note(problems, f"{where}: {exc.reason}")
        if not parser.pending:
            try:
                out.extend(sequence(group, notes, strict_time=False, derive_ids=True, streams=streams))
            except InvalidMessage as exc:
                skipped += 1
                unlisted += _note(problems, str(exc))
            group = []
            checkpoint = offset
            state = {"streams": streams_json(streams), "parser": parser.state(), "lines": line_number}
    more = not ended
    unknown_lines, unknown_report = parser.unknown()
    skipped += unknown_lines
    new = FilePosition(position.format, file_id, _head(stream, HEAD_BYTES), checkpoint, state)
    return FollowRead(out, new, restarted, skipped, more, _said([*problems, *unknown_report], unlisted))


def _note(problems: list[str], problem: str) -> int:
    """Keep the first problem of a read; 1 for each later one, only counted (a line of a million objects
    must not keep a million reasons)."""
    if problems:
        return 1
    problems.append(problem)
    return 0


def _rest_of_line(stream: Any) -> int | None:
    """Read past the rest of an oversized line: how many bytes it had after the first read, None when the
    file ends before its newline."""
    total = 0
    while True:
        chunk = stream.readline(1 << 20)
        total += len(chunk)
        if chunk.endswith(b"\n"):
            return total
        if not chunk:
            return None
