"""Following agent log files as they are written: each new line recorded once, across restarts.

For `summarizer watch` and the coding-agent hooks. Each file is read from its recorded position
(`ingest/follow.py` reads only the lines added since, whole lines only, up to a checkpoint) and the new
messages are recorded with the new position in one transaction (`FollowStore.record_followed`), so a
crash or a restart resumes exactly where the last commit left: nothing is lost, nothing recorded twice.

A file has one position and one agent, whoever reads it (`watch`, a hook): the agent its messages went to
is kept with the position (FILED_AGENT), and a reader whose rule names another agent for the file (a
`watch --per session` beside a hook's `--per project`) goes on recording it for that one and says so,
so the file is never split between two agents and nothing is left out without a word.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from summarizer.domain.errors import SummarizerError
from summarizer.domain.followed import FilePosition
from summarizer.ingest.follow import (
    MAX_DOCUMENT_BYTES,
    FollowRead,
    read_document,
    read_new,
    written_as_lines,
)
from summarizer.ingest.formats.registry import FORMATS
from summarizer.ingest.path_agents import agent_from_name
from summarizer.storage.port import FollowStore, IngestReport

PER_CHOICES = ("session", "project")
FILED_AGENT = "agent"
"""The key of a position's state naming the agent the file is recorded for ("": each line's own session
id); a position kept before it was recorded has none, and takes the reader's."""
LOG_NAMES = frozenset[str]().union(*(f.log_names for f in FORMATS))
"""Names of agent logs that are neither JSON Lines nor JSON (aider's Markdown history): read whole."""
MAX_PROBLEM_CHARS = 400

Signature = tuple[int, int, int, int, int]
"""A file's device, inode, size, and times of change of its content and of its inode (a chmod): a failed
file is tried again when any of them changes."""


@dataclass(frozen=True, slots=True)
class Followed:
    path: Path
    stored: int = 0
    skipped_lines: int = 0
    restarted: bool = False
    agents: tuple[str, ...] = ()
    problem: str | None = None
    failed: bool = False
    """Nothing could be read or recorded from the file: `problem` says why the first time, and the file is
    passed over quietly until it changes (its size, times, inode or permissions), when it is tried again."""


class _Unreadable(Exception):
    """A file that could not be read or recorded this time; the message is one line naming it."""


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
        max_document_bytes: int = MAX_DOCUMENT_BYTES,
    ) -> None:
        self.store = store
        self._max_bytes = max_bytes
        self._max_document_bytes = max_document_bytes
        self._failed: dict[str, Signature] = {}
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
        if self._per != "project" or _session_file(path.name):
            return None
        parent = path.resolve().parent
        if parent.name == "subagents":
            return project_agent_id(parent.parent.parent.name)
        return project_agent_id(parent.parent.name if parent.name == "chats" else parent.name)

    def filed_agent(self, path: Path) -> str | None:
        """The agent `path` is recorded for: the one kept with its position, or this follower's
        (`agent_for`) when it has none yet; None: each line's own session id."""
        return self._filed(path, self.store.followed(str(path.resolve())))[0]

    def _filed(self, path: Path, position: FilePosition | None) -> tuple[str | None, str | None]:
        """The agent to record `path` for, and what to say when this follower's rule names another."""
        own = self.agent_for(path)
        kept = position.state.get(FILED_AGENT) if position is not None else None
        if not isinstance(kept, str):
            return own, None
        filed = kept or None
        if filed == own:
            return own, None
        rule = f"--agent {self._agent}" if self._agent is not None else f"--per {self._per}"
        return filed, (
            f"{path}: recorded for {_agent_name(filed)} since it was first read, not for "
            f"{_agent_name(own)} ({rule}): give `watch` and the hooks the same --per"
        )

    def follow(self, path: Path) -> Followed:
        """Record what was added to `path` since the last time, in as many transactions as it takes. A file
        that cannot be read or recorded (unreadable, undetected, refused by its reader or by the store) is
        a failure reported once and tried again only once it changes; it never stops the other files."""
        try:
            key = str(path.resolve())
            stat = path.stat()
        except FileNotFoundError:
            return Followed(path)
        except (OSError, RuntimeError) as exc:
            return Followed(path, problem=_reason(path, exc), failed=True)
        signature = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        if self._failed.get(key) == signature:
            return Followed(path, failed=True)
        try:
            done = self._follow(path, key)
        except _Unreadable as exc:
            done = Followed(path, problem=str(exc), failed=True)
        if done.failed:
            self._failed[key] = signature
        else:
            self._failed.pop(key, None)
        return done

    def _follow(self, path: Path, key: str) -> Followed:
        stored = skipped = 0
        agents: set[str] = set()
        restarted = False
        problem: str | None = None
        while True:
            position = self.store.followed(key)  # a database outage is not the file's failure: it propagates
            filed, other = self._filed(path, position)
            read = self._read(path, position, filed)
            if read is None:
                break
            restarted = restarted or read.restarted
            skipped += read.skipped_lines
            problem = read.problem or other or problem
            if read.position is None:
                failed = read.problem is not None
                return Followed(path, stored, skipped, restarted, tuple(sorted(agents)), problem, failed)
            try:
                filed_at = replace(read.position, state={**read.position.state, FILED_AGENT: filed or ""})
                report = self.store.record_followed(
                    key, [(r.agent_id, r.message) for r in read.records], filed_at
                )
            except SummarizerError as exc:  # an agent id, a message or a value the store refuses
                raise _Unreadable(_reason(path, exc)) from None
            stored += report.stored
            agents.update(report.agents)
            self._wake(report)
            if not read.more:
                break
        return Followed(path, stored, skipped, restarted, tuple(sorted(agents)), problem)

    def _read(self, path: Path, position: FilePosition | None, agent: str | None) -> FollowRead | None:
        """The next read of `path` from `position`, for `agent`: a JSON document log whole when it
        changed (read_document), a log of lines from its kept offset (read_new); None when it is gone."""
        try:
            whole = path.name in LOG_NAMES or (
                path.suffix == ".json" and not written_as_lines(path, position, self._fmt)
            )
            if whole:  # read whole when it changed
                return read_document(
                    path,
                    position,
                    fmt=self._fmt,
                    agent=agent,
                    max_bytes=self._max_bytes,
                    max_document_bytes=self._max_document_bytes,
                )
            return read_new(path, position, fmt=self._fmt, agent=agent, max_bytes=self._max_bytes)
        except FileNotFoundError:
            return None
        except Exception as exc:  # any reader failure is this file's alone: the others are still followed
            raise _Unreadable(_reason(path, exc)) from None

    def follow_all(self, paths: Iterable[Path]) -> list[Followed]:
        return [self.follow(p) for p in sorted(paths)]

    def _wake(self, report: IngestReport) -> None:
        if report.queued_agents and self._on_queued is not None:
            # A lost wake-up only delays: the dispatcher finds every pending row.
            with contextlib.suppress(Exception):
                self._on_queued(report.queued_agents)


def log_files(
    directories: Iterable[Path], problems: dict[Path, str] | None = None, folders: list[Path] | None = None
) -> list[Path]:
    """Every JSON Lines and JSON file under the directories (the agents' logs; a JSON file of no log
    format is passed over when it is read). A folder that cannot be listed is put in `problems` (its
    absolute path: why); the rest of the tree is still searched. Each folder listed is added to `folders`
    (its absolute path), so a caller that watches them walks the tree once."""
    found: list[Path] = []

    def unlisted(exc: OSError) -> None:
        if problems is not None:
            folder = Path(os.path.abspath(exc.filename or "."))
            problems[folder] = _reason(folder, exc)

    for directory in directories:
        if directory.is_file():
            found.append(directory)
            continue
        for folder, _dirs, names in os.walk(directory, onerror=unlisted):
            if folders is not None:
                folders.append(Path(os.path.abspath(folder)))
            found.extend(Path(folder, n) for n in names if is_log_name(n) and Path(folder, n).is_file())
    return sorted(found)


def is_log_name(name: str) -> bool:
    """A file name (or path) of an agent log: JSON Lines, JSON, or an aider chat history."""
    return name.endswith((".jsonl", ".json")) or os.path.basename(name) in LOG_NAMES


def _session_file(name: str) -> bool:
    """A log kept outside any project's folder (a Codex rollout, filed by date; a Cline task history)."""
    return any(f.session_files is not None and f.session_files(name) for f in FORMATS)


def project_agent_id(name: str) -> str:
    """A project folder's name as an agent id: the name itself, or, over the agent-id length limit (a deep
    working directory), its start and a hash of the whole, so two long names never share an agent."""
    return agent_from_name(name)


def _agent_name(agent: str | None) -> str:
    return f"agent {agent}" if agent is not None else "each session's own agent"


def _reason(path: Path, exc: BaseException) -> str:
    """One line saying why `path` failed, naming it once."""
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename or path}: cannot be read ({exc.strerror})"
    elif isinstance(exc, RecursionError):
        text = f"{path}: nested too deeply to be read"
    else:
        said = str(exc)
        text = said if str(path) in said else f"{path}: {said or type(exc).__name__}"
    text = " ".join(text.split())
    return text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 1] + "…"
