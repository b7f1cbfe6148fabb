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

from summarizer.ingest.follow import read_new
from summarizer.storage.port import FollowStore, IngestReport

PER_CHOICES = ("session", "project")


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
        """The agent a file's messages go to: the one given, the project (the file's directory: Claude
        Code keeps one per project), or None (each log's own session id)."""
        if self._agent is not None:
            return self._agent
        if self._per == "project":
            return path.resolve().parent.name
        return None

    def follow(self, path: Path) -> Followed:
        """Record what was added to `path` since the last time, in as many transactions as it takes."""
        key = str(path.resolve())
        stored = skipped = 0
        agents: set[str] = set()
        restarted = False
        problem: str | None = None
        while True:
            try:
                read = read_new(
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
    """Every JSON Lines file under the directories (the agents' logs)."""
    found: list[Path] = []
    for directory in directories:
        if directory.is_file():
            found.append(directory)
        else:
            found.extend(p for p in directory.rglob("*.jsonl") if p.is_file())
    return sorted(found)
