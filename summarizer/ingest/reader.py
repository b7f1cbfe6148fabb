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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import BinaryIO, cast

from summarizer.domain.errors import InvalidMessage, SummarizerError
from summarizer.ingest.aider import AiderHistory, aider_items
from summarizer.ingest.anthropic_format import parse_anthropic, parse_anthropic_system
from summarizer.ingest.canonical import parse_canonical
from summarizer.ingest.claude_code import ClaudeCodeOptions, ClaudeCodeReader, Sidechains, in_prompt_order
from summarizer.ingest.cline import LAYOUT as CLINE_LAYOUT
from summarizer.ingest.cline import ClineTask
from summarizer.ingest.codex import CodexRollout
from summarizer.ingest.containers import Item, Layout, OnBadLine, iter_chat_items, iter_jsonl
from summarizer.ingest.copilot import CopilotEvents
from summarizer.ingest.detect import HEAD_BYTES, UndetectedFormat, detect
from summarizer.ingest.gemini_cli import LAYOUT as GEMINI_LAYOUT
from summarizer.ingest.gemini_cli import GeminiSession
from summarizer.ingest.lines import LineReader
from summarizer.ingest.openai_format import parse_openai
from summarizer.ingest.opencode import LAYOUT as OPENCODE_LAYOUT
from summarizer.ingest.opencode import OpencodeSession
from summarizer.ingest.openhands import LAYOUT as OPENHANDS_LAYOUT
from summarizer.ingest.openhands import OpenHandsEvents
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.responses_format import parse_responses_instructions, parse_responses_item
from summarizer.ingest.sequencing import ReadNotes, sequence
from summarizer.ingest.sharegpt_format import parse_sharegpt
from summarizer.ingest.swe_agent import LAYOUT as SWE_AGENT_LAYOUT
from summarizer.ingest.swe_agent import Trajectory

STDIN = "-"


class InputFormat(StrEnum):
    AUTO = "auto"
    """Detected from the content (ingest/detect.py)."""
    CANONICAL = "canonical"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    RESPONSES = "responses"
    SHAREGPT = "sharegpt"
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI_CLI = "gemini-cli"
    SWE_AGENT = "swe-agent"
    OPENHANDS = "openhands"
    OPENCODE = "opencode"
    CLINE = "cline"
    AIDER = "aider"
    COPILOT = "copilot"


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How to read: `strict_time` refuses timestamps that go back instead of raising them; `derive_ids`
    gives messages without an id a stable one (see `sequencing`); `sidechains` says what happens to a
    Claude Code sub-agent's events; `strict` makes any line or item that cannot be read an error."""

    strict_time: bool = False
    derive_ids: bool = True
    sidechains: Sidechains = Sidechains.SKIP
    strict: bool = False


_LAYOUTS: dict[InputFormat, Layout] = {
    InputFormat.OPENAI: Layout(),
    InputFormat.ANTHROPIC: Layout(system_key="system"),
    InputFormat.RESPONSES: Layout(
        array_keys=("input", "output"), system_key="instructions", string_input=True
    ),
    InputFormat.SHAREGPT: Layout(array_keys=()),
}


class UnknownFormat(SummarizerError, ValueError):
    """The requested input format does not exist; the message lists those that do."""


def parse_format(value: str | InputFormat) -> InputFormat:
    try:
        return InputFormat(value.strip().lower() if isinstance(value, str) else value)
    except ValueError:
        names = ", ".join(f.value for f in InputFormat)
        raise UnknownFormat(f"unknown input format {value!r} (expected one of: {names})") from None


def read_records(
    path: str | Path,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions = ReadOptions(),
    notes: ReadNotes | None = None,
) -> list[IngestRecord]:
    """Every record of the input, or InvalidMessage for the first problem and no records at all."""
    return list(iter_records(path, fmt, default_agent, max_message_bytes, options, notes))


def iter_records(
    path: str | Path,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions = ReadOptions(),
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
    options: ReadOptions = ReadOptions(),
    notes: ReadNotes | None = None,
) -> Iterator[IngestRecord]:
    """Records from an open binary stream; `label` names it in errors ("FILE:LINE")."""
    input_format = parse_format(fmt)
    notes = notes if notes is not None else ReadNotes()
    if input_format is InputFormat.AUTO:
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
    guard = _Guard(options.strict, notes)
    if input_format is InputFormat.CANONICAL:
        for item in iter_jsonl(reader, max_message_bytes, guard.on_bad):
            yield from guard(item, lambda i: _parse_item(i, input_format, default_agent))
        return
    if input_format in _AGENT_LOGS:
        yield from _agent_log(reader, input_format, default_agent, max_message_bytes, options, guard)
        return
    items = iter_chat_items(reader, max_message_bytes, _LAYOUTS[input_format], guard.on_bad)
    if input_format is InputFormat.SHAREGPT:
        for position, item in enumerate(items, start=1):
            yield from guard(item, partial(_sharegpt, default_agent=default_agent, position=position))
        return
    yield from _with_system_prompt(items, input_format, default_agent, guard)


class _Guard:
    """Where an unreadable line or item goes: an error (`strict`), or skipped, counted and named."""

    def __init__(self, strict: bool, notes: ReadNotes) -> None:
        self.strict = strict
        self.notes = notes
        self.on_bad: OnBadLine | None = None if strict else self._skip

    def __call__(self, item: Item, parse: Callable[[Item], list[IngestRecord]]) -> list[IngestRecord]:
        try:
            return parse(item)
        except Problem as problem:
            if self.strict:
                raise InvalidMessage(problem.reason, item.where) from None
            self._skip(InvalidMessage(problem.reason, item.where))
        except InvalidMessage as exc:
            if self.strict:
                raise
            self._skip(exc)
        return []

    def _skip(self, exc: InvalidMessage) -> None:
        self.notes.skipped += 1
        self.notes.warn(exc.where, f"{exc.reason}; skipped")

    def unknown(self, where: str, count: int, what: str) -> None:
        """Lines or items of a type the reader does not know (`what`, "... skipped"): an error under
        `strict`, otherwise named, and `count` of them added to the skipped ones."""
        if self.strict:
            reason = what.removesuffix(" skipped")
            raise InvalidMessage(f"{reason} (--strict reads no type it does not know)", where)
        self.notes.skipped += count
        self.notes.warn(where, what)


_AGENT_LOGS = frozenset(
    {
        InputFormat.CLAUDE_CODE,
        InputFormat.CODEX,
        InputFormat.GEMINI_CLI,
        InputFormat.SWE_AGENT,
        InputFormat.OPENHANDS,
        InputFormat.OPENCODE,
        InputFormat.CLINE,
        InputFormat.AIDER,
        InputFormat.COPILOT,
    }
)


def _agent_log(
    reader: LineReader,
    input_format: InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
    options: ReadOptions,
    guard: _Guard,
) -> Iterator[IngestRecord]:
    """The coding agents' own logs, each read by its stateful reader."""
    if input_format is InputFormat.CLAUDE_CODE:
        yield from _claude_code(reader, default_agent, max_message_bytes, options, guard)
        return
    if input_format is InputFormat.CODEX:
        rollout = CodexRollout(default_agent)
        for item in iter_jsonl(reader, max_message_bytes, guard.on_bad):
            yield from guard(item, lambda i: rollout.feed(i.value, i.where))
        yield from rollout.finish()
        for kind, count in sorted(rollout.unknown_lines.items()):
            guard.unknown(reader.label, count, f"{count} line(s) of unknown type {kind!r} skipped")
        for kind, count in sorted(rollout.unknown_items.items()):
            guard.unknown(reader.label, count, f"{count} response item(s) of unknown type {kind!r} skipped")
        return
    if input_format is InputFormat.AIDER:
        history = AiderHistory(default_agent, max_message_bytes)
        for item in aider_items(reader, max_message_bytes):
            yield from guard(item, history.feed)
        return
    if input_format is InputFormat.COPILOT:
        events = CopilotEvents(default_agent)
        for item in iter_jsonl(reader, max_message_bytes, guard.on_bad):
            yield from guard(item, lambda i: events.feed(i.value, i.where))
        for kind, count in sorted(events.unknown_types.items()):
            guard.unknown(reader.label, count, f"{count} event(s) of unknown type {kind!r} skipped")
        return
    layout, reader_of = _DOCUMENT_LOGS[input_format]
    feed = reader_of(default_agent, reader.label)
    for item in iter_chat_items(reader, max_message_bytes, layout, guard.on_bad):
        yield from guard(item, feed)


def _claude_code(
    reader: LineReader, default_agent: str | None, max_message_bytes: int, options: ReadOptions, guard: _Guard
) -> Iterator[IngestRecord]:
    transcript = ClaudeCodeReader(default_agent, ClaudeCodeOptions(sidechains=options.sidechains))
    for item in in_prompt_order(iter_jsonl(reader, max_message_bytes, guard.on_bad)):
        yield from guard(item, lambda i: transcript.feed(i.value, i.where))
    guard.notes.sidechains_skipped += transcript.sidechains_skipped
    for where, what in transcript.unknown_report():
        guard.unknown(where, 0, what)
    guard.notes.skipped += sum(transcript.unknown_types.values())


_DOCUMENT_LOGS: dict[
    InputFormat, tuple[Layout, Callable[[str | None, str], Callable[[Item], list[IngestRecord]]]]
] = {
    InputFormat.GEMINI_CLI: (GEMINI_LAYOUT, lambda agent, _label: GeminiSession(agent).feed),
    InputFormat.SWE_AGENT: (SWE_AGENT_LAYOUT, lambda agent, label: Trajectory(agent, label).feed),
    InputFormat.OPENHANDS: (OPENHANDS_LAYOUT, lambda agent, label: OpenHandsEvents(agent, label).feed),
    InputFormat.OPENCODE: (OPENCODE_LAYOUT, lambda agent, _label: OpencodeSession(agent).feed),
    InputFormat.CLINE: (CLINE_LAYOUT, lambda agent, label: ClineTask(agent, label).feed),
}
"""The agent logs saved as one document: the layout of their items and a reader of them (default agent, label)."""


def _sharegpt(item: Item, *, default_agent: str | None, position: int) -> list[IngestRecord]:
    return parse_sharegpt(item.value, default_agent, position, item.where)


def _with_system_prompt(
    items: Iterator[Item], fmt: InputFormat, default_agent: str | None, guard: _Guard
) -> Iterator[IngestRecord]:
    """Records of chat items; a top-level system prompt, which has no `agent` of its own, is held back
    until the first message names the agent (unless --agent already did)."""
    system: Item | None = None
    for item in items:
        if item.system:
            system = item
            continue
        records = guard(item, lambda i: _parse_item(i, fmt, default_agent))
        if system is not None and records:
            yield from guard(
                system, partial(_parse_item, fmt=fmt, default_agent=default_agent or records[0].agent_id)
            )
            system = None
        yield from records
    if system is not None:
        yield from guard(system, partial(_parse_item, fmt=fmt, default_agent=default_agent))


def _parse_item(item: Item, fmt: InputFormat, default_agent: str | None) -> list[IngestRecord]:
    """One item's records; a problem gets the item's position."""
    try:
        if fmt is InputFormat.CANONICAL:
            return [parse_canonical(item.value, default_agent, item.where)]
        if fmt is InputFormat.OPENAI:
            return parse_openai(item.value, default_agent, item.where)
        if fmt is InputFormat.RESPONSES:
            if item.system:
                return parse_responses_instructions(item.value["system"], default_agent, item.where)
            return parse_responses_item(item.value, default_agent, item.where)
        if item.system:
            return parse_anthropic_system(item.value["system"], default_agent, item.where)
        return parse_anthropic(item.value, default_agent, item.where)
    except Problem as problem:
        raise InvalidMessage(problem.reason, item.where) from None
