"""`--format copilot`: GitHub Copilot agent events (the Copilot CLI's `~/.copilot/session-state/<session>/events.jsonl`,
VS Code Copilot Chat's transcripts, the CLI's `--output-format json` stream)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from summarizer.ingest.copilot import CopilotEvents, looks_like_copilot_event
from summarizer.ingest.formats.base import AgentHome, LogFormat, Reading, SettledLines, fed_lines
from summarizer.ingest.formats.unknown_named import UnknownNamed
from summarizer.ingest.formats.vscode import editor_folders, user_folders
from summarizer.ingest.lines import LineReader
from summarizer.ingest.records import IngestRecord

TRANSCRIPTS = "GitHub.copilot-chat/transcripts"
"""Where VS Code's Copilot Chat agent writes its event-stream transcripts (the Copilot CLI's events), in the
user data folder and in each workspace's storage folder."""


def _detect(value: Any) -> str | None:
    if isinstance(value, Mapping) and looks_like_copilot_event(value):
        return f"GitHub Copilot agent events (type {value.get('type')!r} with data)"
    return None


def _read(lines: LineReader, reading: Reading) -> Iterator[IngestRecord]:
    events = CopilotEvents(reading.agent)
    yield from fed_lines(lines, reading, events.feed)
    reading.guard.unknown_kinds(events.unknown_types, "event(s) of unknown type", lines.label)


class _Lines(SettledLines):
    """A followed transcript: its session and the calls announced but not answered yet are kept with the
    position, with the unknown event types already named."""

    def __init__(self, agent: str | None, kept: Mapping[str, Any]) -> None:
        self._events = CopilotEvents(agent)
        self._events.resume(kept)
        self._unknown = UnknownNamed(kept, "event(s)")

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        return self._events.feed(obj, where)

    def unknown(self) -> tuple[int, list[str]]:
        return self._unknown.report(self._events.unknown_types, self._events.first_unknown)

    def state(self) -> dict[str, Any]:
        return {**self._events.state(), "unknown_types": self._unknown.state(self._events.unknown_types)}


def transcript_folders(users: list[Path]) -> list[Path]:
    """The Copilot Chat transcript folders of VS Code's user data folders (desktop and VS Code Server):
    the user-level one and each workspace's, those that exist when `watch` starts. An unreadable
    workspace storage folder is passed over."""
    return editor_folders(users, TRANSCRIPTS, TRANSCRIPTS)


FORMAT = LogFormat(
    name="copilot",
    title="GitHub Copilot",
    read=_read,
    detect=_detect,
    follow=_Lines,
    home=AgentHome("COPILOT_HOME", ".copilot", "session-state"),
    more_folders=lambda: transcript_folders(user_folders()),
    more_folders_shown=f"VS Code's Copilot Chat transcripts ({TRANSCRIPTS})",
)
