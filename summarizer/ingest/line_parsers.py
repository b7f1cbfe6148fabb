"""The parsers a followed read feeds a log's objects to, one per format of lines, each able to say what
it holds back (a checkpoint is only where nothing is) and to save and resume its state with the position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from summarizer.ingest.canonical import parse_canonical
from summarizer.ingest.claude_code import ClaudeCodeOptions, ClaudeCodeReader
from summarizer.ingest.codex import CodexRollout
from summarizer.ingest.containers import Item
from summarizer.ingest.copilot import CopilotEvents
from summarizer.ingest.gemini_cli import GeminiSession
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.unknown_types import MAX_UNKNOWN_TYPES, type_name


class LineParser(Protocol):
    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]: ...

    @property
    def pending(self) -> bool: ...

    def state(self) -> dict[str, Any]: ...

    def unknown(self) -> tuple[int, list[str]]:
        """Lines of this read skipped for a type the reader does not know, and what to say of them
        (`FILE:LINE: what`, each type once per file)."""
        ...


class _Unknown:
    """The unknown types of a Codex rollout or a Copilot transcript, named once per followed file as Claude
    Code's are: each type's first line and how many of it a read skipped; the types named in earlier
    reads of the file are kept with its position and not named again."""

    def __init__(self, kept: Mapping[str, Any], noun: str, key: str = "unknown_types") -> None:
        named = kept.get(key)
        self._named = [t for t in named if isinstance(t, str)] if isinstance(named, list) else []
        self._noun = noun

    def report(self, counts: Mapping[str, int], first: Mapping[str, str]) -> tuple[int, list[str]]:
        said = [
            f"{where}: {counts[kind]} {self._noun} of unknown type {type_name(kind)!r} skipped"
            for kind, where in first.items()
            if type_name(kind) not in self._named
        ]
        return sum(counts.values()), said

    def state(self, counts: Mapping[str, int]) -> list[str]:
        met = [type_name(kind) for kind in counts]
        return [*self._named, *(t for t in dict.fromkeys(met) if t not in self._named)][:MAX_UNKNOWN_TYPES]


class _Lines:
    """Canonical lines, Gemini CLI's session log (its session id kept with the position), and Claude
    Code's (its reader's memory of the recent lines, for rewinds and command expansions, is kept too)."""

    def __init__(self, fmt: str, agent: str | None, kept: Mapping[str, Any]) -> None:
        self._fmt = fmt
        self._agent = agent
        self._claude = ClaudeCodeReader(agent, ClaudeCodeOptions())
        self._claude.resume(kept)
        self._gemini = GeminiSession(agent)
        self._gemini.resume(kept)
        self._copilot = CopilotEvents(agent)
        self._copilot.resume(kept)
        self._copilot_unknown = _Unknown(kept, "event(s)")

    def feed(self, obj: Mapping[str, Any], where: str) -> list[IngestRecord]:
        if self._fmt == "claude-code":
            return self._claude.feed(obj, where)
        if self._fmt == "gemini-cli":
            return self._gemini.feed(Item(dict(obj), where))
        if self._fmt == "copilot":
            return self._copilot.feed(obj, where)
        return [parse_canonical(obj, self._agent, where)]

    @property
    def pending(self) -> bool:
        return False

    def unknown(self) -> tuple[int, list[str]]:
        if self._fmt == "copilot":
            return self._copilot_unknown.report(self._copilot.unknown_types, self._copilot.first_unknown)
        if self._fmt != "claude-code":
            return 0, []
        report = [f"{where}: {what}" for where, what in self._claude.unknown_report()]
        return sum(self._claude.unknown_types.values()), report

    def state(self) -> dict[str, Any]:
        if self._fmt == "gemini-cli":
            return self._gemini.state()
        if self._fmt == "copilot":
            unknown = self._copilot_unknown.state(self._copilot.unknown_types)
            return {**self._copilot.state(), "unknown_types": unknown}
        return self._claude.state() if self._fmt == "claude-code" else {}


class _Codex:
    def __init__(self, agent: str | None, kept: Mapping[str, Any]) -> None:
        self.rollout = CodexRollout(agent)
        session = kept.get("session")
        self.rollout.session = session if isinstance(session, str) else None
        self.rollout.typed_prompts_logged = kept.get("typed_prompts_logged") is True
        ahead = kept.get("typed_ahead")
        self.rollout.typed_ahead = ahead if isinstance(ahead, str) else None
        started = kept.get("started")
        self.rollout.started = started if isinstance(started, str) else None
        self._unknown = _Unknown(kept, "response item(s)")
        self._unknown_lines = _Unknown(kept, "line(s)", "unknown_line_types")

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


def line_parser(fmt: str, agent: str | None, kept: Mapping[str, Any]) -> LineParser:
    """The parser of a followed log of format `fmt`, resumed from the state `kept` with its position."""
    return _Codex(agent, kept) if fmt == "codex" else _Lines(fmt, agent, kept)
