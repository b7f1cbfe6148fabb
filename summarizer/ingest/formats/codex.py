"""`--format codex`: Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from summarizer.ingest.codex import LINE_TYPES, CodexRollout, is_older_session_line
from summarizer.ingest.containers import Item
from summarizer.ingest.formats.base import AgentHome, LogFormat, Reading, fed_lines, opening_type
from summarizer.ingest.formats.unknown_named import UnknownNamed
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if isinstance(kind, str) and kind in LINE_TYPES and isinstance(value.get("payload"), Mapping):
        return f"a Codex CLI rollout (type {kind!r} with a payload)"
    if is_older_session_line(value):
        return "a Codex CLI rollout of the older layout (a bare id and timestamp header)"
    return None


def _detect_opening(start: str) -> str | None:
    kind = opening_type(start)
    if kind is not None and kind in LINE_TYPES and '"payload"' in start:
        return f"a Codex CLI rollout (type {kind!r} with a payload)"
    return None


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    rollout = CodexRollout(reading.agent)
    yield from fed_lines(lines, reading, rollout.feed)
    yield from reading.guard(Item({}, lines.label), lambda _end: rollout.finish())  # what the end releases
    reading.guard.unknown_kinds(rollout.unknown_lines, "line(s) of unknown type", lines.label)
    reading.guard.unknown_kinds(rollout.unknown_items, "response item(s) of unknown type", lines.label)


class _Lines:
    """A followed rollout: its session, whether prompts are logged as typed, and a typed prompt waiting
    for its item are kept with the position."""

    def __init__(self, agent: str | None, kept: Mapping[str, Any]) -> None:
        self.rollout = CodexRollout(agent)
        session = kept.get("session")
        self.rollout.session = session if isinstance(session, str) else None
        self.rollout.typed_prompts_logged = kept.get("typed_prompts_logged") is True
        ahead = kept.get("typed_ahead")
        self.rollout.typed_ahead = ahead if isinstance(ahead, str) else None
        started = kept.get("started")
        self.rollout.started = started if isinstance(started, str) else None
        self._unknown = UnknownNamed(kept, "response item(s)")
        self._unknown_lines = UnknownNamed(kept, "line(s)", "unknown_line_types")

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        return self.rollout.feed(obj, where)

    @property
    def pending(self) -> bool:
        return self.rollout.pending

    def unknown(self) -> tuple[int, list[str]]:
        r = self.rollout
        lines, lines_said = self._unknown_lines.report(r.unknown_lines, r.first_unknown_line)
        items, items_said = self._unknown.report(r.unknown_items, r.first_unknown)
        return lines + items, [*lines_said, *items_said]

    def state(self) -> dict[str, Any]:
        r = self.rollout
        return {
            "session": r.session,
            "typed_prompts_logged": r.typed_prompts_logged,
            "typed_ahead": r.typed_ahead,
            "started": r.started,
            "unknown_types": self._unknown.state(r.unknown_items),
            "unknown_line_types": self._unknown_lines.state(r.unknown_lines),
        }


def _rollout(name: str) -> bool:
    return name.startswith("rollout-")


FORMAT = LogFormat(
    name="codex",
    title="Codex CLI",
    read=_read,
    detect=_detect,
    detect_opening=_detect_opening,
    follow=_Lines,
    home=AgentHome("CODEX_HOME", ".codex", "sessions"),
    session_files=_rollout,
    hook="summarizer.cli.commands_hook:codex",
)
