"""Following agent log files as they are written: each new line recorded once, across restarts.

For `summarizer watch` and the coding-agent hooks. Each file is read from its recorded position
(`ingest/follow.py` reads only the lines added since, whole lines only, up to a checkpoint) and the new
messages are recorded with the new position in one transaction (`FollowStore.record_followed`), so a
crash or a restart resumes exactly where the last commit left: nothing is lost, nothing recorded twice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from summarizer.ingest.follow import read_document, read_new
from summarizer.storage.port import FollowStore, IngestReport

PER_CHOICES = ("session", "project")
CLINE_HISTORY = "api_conversation_history.json"


@dataclass(frozen=True, slots=True)
class Followed:
    path: Path
    stored: int = 0
    skipped_lines: int = 0
    restarted: bool = False
    agents: tuple[str, ...] = ()
    problem: str | None = None


class Follower:
    def __init__(
        self,
        store: FollowStore,
        *,
        max_bytes: int,
        fmt: str = "auto",
        agent: str | None = None,
        per: str = "session",
        on_queued: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self.store = store
        self._max_bytes = max_bytes
        self._fmt = fmt
        self._agent = agent
        self._per = per
        self._on_queued = on_queued

    def agent_for(self, path: Path) -> str | None:
        """The agent a file's messages go to: the one given, the project, or None (each log's own session
        id). A project is the directory Claude Code keeps a project's transcripts in (also for a sub-agent's
        `<project>/<session>/subagents/agent-*.jsonl`), or the project directory above Gemini CLI's `chats`;
        Codex rollouts (filed by date) and Cline tasks have no
        project in their path and stay one agent per session."""
        if self._agent is not None:
            return self._agent
        if self._per != "project" or path.name.startswith("rollout-") or path.name == CLINE_HISTORY:
            return None
        parent = path.resolve().parent
        if parent.name == "subagents":
            return parent.parent.parent.name
        return parent.parent.name if parent.name == "chats" else parent.name

    def follow(self, path: Path) -> Followed:
        """Record what was added to `path` since the last time, in as many transactions as it takes."""
        # A JSON document log is read whole when it changed (read_document); a log of lines from its
        # kept offset (read_new). Both hand back the records and the position to keep with them.
        read_file = read_document if path.suffix == ".json" else read_new
        key = str(path.resolve())
        stored = skipped = 0
        agents: set[str] = set()
        restarted = False
        problem: str | None = None
        while True:
            try:
                read = read_file(
                    path,
                    self.store.followed(key),
                    fmt=self._fmt,
                    agent=self.agent_for(path),
                    max_bytes=self._max_bytes,
                )
            except FileNotFoundError:
                break
            restarted = restarted or read.restarted
            skipped += read.skipped_lines
            problem = read.problem or problem
            if read.position is None:
                break
            report = self.store.record_followed(
                key, [(r.agent_id, r.message) for r in read.records], read.position
            )
            stored += report.stored
            agents.update(report.agents)
            self._wake(report)
            if not read.more:
                break
        return Followed(path, stored, skipped, restarted, tuple(sorted(agents)), problem)

    def follow_all(self, paths: Iterable[Path]) -> list[Followed]:
        return [self.follow(p) for p in sorted(paths)]

    def _wake(self, report: IngestReport) -> None:
        if report.queued_agents and self._on_queued is not None:
            # A lost wake-up only delays: the dispatcher finds every pending row.
            with contextlib.suppress(Exception):
                self._on_queued(report.queued_agents)


def log_files(directories: Iterable[Path]) -> list[Path]:
    """Every JSON Lines and JSON file under the directories (the agents' logs; a JSON file of no log
    format is passed over when it is read)."""
    found: list[Path] = []
    for directory in directories:
        if directory.is_file():
            found.append(directory)
        else:
            found.extend(p for p in directory.rglob("*.json*") if p.is_file() and is_log_name(p.name))
    return sorted(found)


def is_log_name(name: str) -> bool:
    return name.endswith((".jsonl", ".json"))
