"""`--format gemini-cli`: Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json`, one
document rewritten in place, or the JSON Lines session log of 0.39 and later)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from summarizer.ingest.containers import Item
from summarizer.ingest.formats.base import AgentHome, LogFormat, SettledLines, items_reader
from summarizer.ingest.gemini_cli import LAYOUT, GeminiSession
from summarizer.ingest.records import IngestRecord


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping) or value.get("type") is not None:
        return None
    if "sessionId" in value and ("projectHash" in value or "startTime" in value):
        return "a Gemini CLI session (sessionId and projectHash)"
    return None


def _large_document(_path: Path, head: bytes) -> bool:
    opening = head[:4096]
    return head.lstrip().startswith(b"{") and b'"sessionId"' in opening and b'"projectHash"' in opening


class _Lines(SettledLines):
    """A followed session log: its session id is kept with the position."""

    def __init__(self, agent: str | None, kept: Mapping[str, Any]) -> None:
        self._session = GeminiSession(agent)
        self._session.resume(kept)

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        return self._session.feed(Item(dict(obj), where))

    def state(self) -> dict[str, Any]:
        return self._session.state()


FORMAT = LogFormat(
    name="gemini-cli",
    title="Gemini CLI",
    read=items_reader(LAYOUT, lambda agent, _label: GeminiSession(agent).feed),
    detect=_detect,
    follow=_Lines,
    document=True,
    large_document=_large_document,
    home=AgentHome(None, ".gemini", "tmp"),
    hook="summarizer.cli.commands_hook:gemini_cli",
)
