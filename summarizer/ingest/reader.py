"""The entry point: a path (or "-" for stdin) and a format in, validated records out.

Parsing is all-or-nothing. `read_records` returns nothing until the whole input has been checked;
`iter_records` streams for callers that stage records inside a transaction they can roll back.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from summarizer.domain.errors import InvalidMessage, SummarizerError
from summarizer.ingest.anthropic_format import parse_anthropic, parse_anthropic_system
from summarizer.ingest.canonical import parse_canonical
from summarizer.ingest.containers import Item, iter_chat_items, iter_jsonl
from summarizer.ingest.lines import LineReader
from summarizer.ingest.openai_format import parse_openai
from summarizer.ingest.problems import Problem
from summarizer.ingest.records import IngestRecord

STDIN = "-"


class InputFormat(StrEnum):
    CANONICAL = "canonical"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


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
) -> list[IngestRecord]:
    """Every record of the input, or InvalidMessage for the first problem and no records at all."""
    return list(iter_records(path, fmt, default_agent, max_message_bytes))


def iter_records(
    path: str | Path,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
) -> Iterator[IngestRecord]:
    """Records one at a time, reading the input lazily; raises InvalidMessage when it reaches a problem."""
    input_format = parse_format(fmt)
    if str(path) == STDIN:
        stdin = sys.stdin.buffer
        yield from iter_stream_records(stdin, STDIN, input_format, default_agent, max_message_bytes)
        return
    with Path(path).open("rb") as stream:
        yield from iter_stream_records(stream, str(path), input_format, default_agent, max_message_bytes)


def iter_stream_records(
    stream: BinaryIO,
    label: str,
    fmt: str | InputFormat,
    default_agent: str | None,
    max_message_bytes: int,
) -> Iterator[IngestRecord]:
    """Records from an open binary stream; `label` names it in errors ("FILE:LINE")."""
    input_format = parse_format(fmt)
    if max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be at least 1, got {max_message_bytes}")
    if default_agent is not None and not default_agent.strip():
        raise InvalidMessage("the default agent (--agent) must not be empty")
    reader = LineReader(stream, label)
    if input_format is InputFormat.CANONICAL:
        for item in iter_jsonl(reader, max_message_bytes):
            yield _parse_item(item, input_format, default_agent)[0]
        return
    items = iter_chat_items(reader, max_message_bytes, top_level_system=input_format is InputFormat.ANTHROPIC)
    yield from _with_system_prompt(items, input_format, default_agent)


def _with_system_prompt(
    items: Iterator[Item], fmt: InputFormat, default_agent: str | None
) -> Iterator[IngestRecord]:
    """Records of chat items; a top-level system prompt, which has no `agent` of its own, is held back
    until the first message names the agent (unless --agent already did)."""
    system: Item | None = None
    for item in items:
        if item.system:
            system = item
            continue
        records = _parse_item(item, fmt, default_agent)
        if system is not None and records:
            yield from _parse_item(system, fmt, default_agent or records[0].agent_id)
            system = None
        yield from records
    if system is not None:
        yield from _parse_item(system, fmt, default_agent)


def _parse_item(item: Item, fmt: InputFormat, default_agent: str | None) -> list[IngestRecord]:
    """One item's records; a problem gets the item's position."""
    try:
        if fmt is InputFormat.CANONICAL:
            return [parse_canonical(item.value, default_agent, item.where)]
        if fmt is InputFormat.OPENAI:
            return parse_openai(item.value, default_agent, item.where)
        if item.system:
            return parse_anthropic_system(item.value["system"], default_agent, item.where)
        return parse_anthropic(item.value, default_agent, item.where)
    except Problem as problem:
        raise InvalidMessage(problem.reason, item.where) from None
