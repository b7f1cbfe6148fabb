"""`--format claude-code`: Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from summarizer.ingest.claude_code import (
    CLAUDE_CODE_BOOKKEEPING,
    ClaudeCodeOptions,
    ClaudeCodeReader,
    in_prompt_order,
)
from summarizer.ingest.containers import iter_jsonl
from summarizer.ingest.formats.base import AgentHome, LogFormat, Reading, SettledLines, opening_type
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if isinstance(kind, str) and ("sessionId" in value or "uuid" in value or "leafUuid" in value):
        return f"Claude Code transcript events (type {kind!r} with a session id)"
    return None


def _detect_opening(start: str) -> str | None:
    kind = opening_type(start)
    if '"sessionId"' in start and kind is not None:
        return f"Claude Code transcript events (type {kind!r} with a session id)"
    return None


def _near_miss(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, Mapping) else None
    if isinstance(kind, str) and ("message" in value or "parentUuid" in value):
        return f"Claude Code's event shape (type {kind!r}) without a session id (name the agent with --agent)"
    return None


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    guard = reading.guard
    transcript = ClaudeCodeReader(reading.agent, ClaudeCodeOptions(sidechains=reading.options.sidechains))
    for item in in_prompt_order(iter_jsonl(lines, reading.max_bytes, guard.on_bad)):
        yield from guard(item, lambda i: transcript.feed(i.value, i.where))
    guard.notes.sidechains_skipped += transcript.sidechains_skipped
    for where, what in transcript.unknown_report():
        guard.unknown(where, 0, what)
    guard.notes.skipped += sum(transcript.unknown_types.values())


class _Lines(SettledLines):
    """A followed transcript: the reader's memory of the recent lines (for rewinds and command
    expansions) is kept with the position."""

    def __init__(self, agent: str | None, kept: Mapping[str, Any]) -> None:
        self._reader = ClaudeCodeReader(agent, ClaudeCodeOptions())
        self._reader.resume(kept)

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        return self._reader.feed(obj, where)

    def unknown(self) -> tuple[int, list[str]]:
        report = [f"{where}: {what}" for where, what in self._reader.unknown_report()]
        return sum(self._reader.unknown_types.values()), report

    def state(self) -> dict[str, Any]:
        return self._reader.state()


FORMAT = LogFormat(
    name="claude-code",
    title="Claude Code",
    read=_read,
    detect=_detect,
    detect_opening=_detect_opening,
    near_miss=_near_miss,
    bookkeeping=CLAUDE_CODE_BOOKKEEPING,
    follow=_Lines,
    home=AgentHome("CLAUDE_CONFIG_DIR", ".claude", "projects"),
    nothing_found=" (sub-agent events are skipped: --sidechains agent keeps them)",
    hook="summarizer.cli.commands_hook:claude_code",
)
