"""The entry point: a path (or "-" for stdin) and a format in, validated records out.

Reading is tolerant by default: a line that is not JSON, an item or event a reader cannot use, a repeated
call id are skipped, and a tool result whose call is not in the input is kept as `tool` activity; each is
counted and named (`FILE:LINE: what`) in the notes. With `strict` the first of them is an error and
nothing is returned (all or nothing). `read_records` returns nothing until the whole input has been read;
`iter_records` streams for callers that stage records inside a transaction they can roll back.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO, cast

from summarizer.domain.errors import InvalidMessage, SummarizerError
from summarizer.ingest.detect import HEAD_BYTES, UndetectedFormat, detect
from summarizer.ingest.formats.base import Guard, Reading, ReadOptions
from summarizer.ingest.formats.registry import LISTED, UnknownFormatName, choices, format_named
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.sequencing import ReadNotes, sequence

__all__ = [
    "STDIN",
    "InputFormat",
    "ReadOptions",
    "UnknownFormat",
    "iter_records",
    "iter_stream_records",
    "parse_format",
    "read_records",
]

STDIN = "-"
DEFAULT_OPTIONS = ReadOptions()


InputFormat = StrEnum(  # type: ignore[misc]  # its members are the registry's formats
    "InputFormat", [("AUTO", "auto"), *((f.name.upper().replace("-", "_"), f.name) for f in LISTED)]
)
"""`auto` (detected from the content: ingest/detect.py), then every format's name."""


class UnknownFormat(SummarizerError, ValueError):
    """The requested input format does not exist; the message lists those that do."""


def parse_format(value: str | InputFormat) -> InputFormat:
    """The format a `--format` value (a name or an alias, in any case) names."""
    name = value.strip().lower() if isinstance(value, str) else str(value)
    try:
        return InputFormat(name if name == "auto" else format_named(name).name)
    except UnknownFormatName:
        expected = ", ".join(("auto", *choices()))
        raise UnknownFormat(f"unknown input format {value!r} (expected one of: {expected})") from None


def read_records(
    path: str | Path,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions = DEFAULT_OPTIONS,
    notes: ReadNotes | None = None,
) -> list[IngestRecord]:
    """Every record of the input, or InvalidMessage for the first problem and no records at all."""
    return list(iter_records(path, fmt, default_agent, max_message_bytes, options, notes))


def iter_records(
    path: str | Path,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions = DEFAULT_OPTIONS,
    notes: ReadNotes | None = None,
) -> Iterator[IngestRecord]:
    """Records one at a time, reading the input lazily; raises InvalidMessage when it reaches a problem."""
    input_format = parse_format(fmt)
    args = (input_format, default_agent, max_message_bytes, options, notes)
    if str(path) == STDIN:
        yield from iter_stream_records(sys.stdin.buffer, STDIN, *args)
        return
    try:
        stream = Path(path).open("rb")  # noqa: SIM115 (closed by the `with` below)
    except OSError as exc:
        raise InvalidMessage(f"cannot read the input: {exc.strerror or exc}", str(path)) from None
    with stream:
        yield from iter_stream_records(stream, str(path), *args)


def iter_stream_records(
    stream: BinaryIO,
    label: str,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions = DEFAULT_OPTIONS,
    notes: ReadNotes | None = None,
) -> Iterator[IngestRecord]:
    """Records from an open binary stream; `label` names it in errors ("FILE:LINE")."""
    input_format = parse_format(fmt)
    notes = notes if notes is not None else ReadNotes()
    if input_format == "auto":
        head = stream.read(HEAD_BYTES)
        try:
            found = detect(head, label)
        except UndetectedFormat as exc:
            raise InvalidMessage(str(exc)) from None
        input_format = InputFormat(found.format)
        notes.detected = f"{found.format} ({found.reason})"
        stream = cast(BinaryIO, _Rewound(head, stream))
    reader = LineReader(stream, label)
    records = _parsed(reader, input_format, default_agent, max_message_bytes, options, notes)
    yield from sequence(
        records,
        notes,
        strict_time=options.strict_time,
        derive_ids=options.derive_ids,
        strict=options.strict,
    )
    notes.partial_lines += reader.partial_lines


class _Rewound:
    """`head` (already read for detection), then the rest of the stream: what LineReader reads."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = io.BytesIO(head)
        self._rest = rest

    def readline(self, limit: int = -1) -> bytes:
        line = self._head.readline(limit)
        if line.endswith(b"\n") or (limit >= 0 and len(line) >= limit):
            return line
        return line + self._rest.readline(-1 if limit < 0 else limit - len(line))

    def read(self) -> bytes:
        """Everything left (LineReader.read_rest reads the rest whole)."""
        return self._head.read() + self._rest.read()


def _parsed(
    reader: LineReader,
    input_format: InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions,
    notes: ReadNotes,
) -> Iterator[IngestRecord]:
    if max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be at least 1, got {max_message_bytes}")
    if default_agent is not None and not default_agent.strip():
        raise InvalidMessage("the default agent (--agent) must not be empty")
    reading = Reading(default_agent, max_message_bytes, options, Guard(options.strict, notes))
    yield from format_named(input_format).read(reader, reading)
