"""What `summarizer watch` says, and how it rides out a database outage.

Stored counts go to stdout; failures (the follower hands each over once until the file changes) and other
warnings (each once) to stderr. A database that cannot be reached (PostgreSQL restarting, a SQLite file
locked past its busy timeout) is no file's failure: it is reported once, the same follow is tried again
after a bounded backoff until it succeeds, and its return is said. Each file's position is kept in the
database with the messages it covers, so nothing already read is lost or recorded twice meanwhile.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import click

from summarizer import composition
from summarizer.service.follow import Followed, Follower, log_files

FIRST_RETRY_S = 1.0
MAX_RETRY_S = 30.0
"""The backoff between attempts while the database cannot be reached: doubling from FIRST_RETRY_S."""

T = TypeVar("T")


@dataclass(slots=True)
class CaughtUp:
    results: list[Followed] = field(default_factory=list)
    folders: set[Path] = field(default_factory=set)
    """The roots and every folder under them that could be listed, as absolute paths (as events name them)."""
    stopped: bool = False
    """`watch` was told to stop before every file was followed."""


class Shown:
    """`stop` is the live watch's: an outage is waited out until it is set. Without it (`--once`) the
    outage is raised, for an error and a non-zero exit."""

    def __init__(self, stop: threading.Event | None = None) -> None:
        self.warned: set[str] = set()
        self.failures = 0
        self.unlisted: set[Path] = set()
        """Folders that could not be listed: looked at again when they change."""
        self._stop = stop
        self._down = False

    def warn(self, problem: str) -> None:
        if problem not in self.warned:
            self.warned.add(problem)
            click.echo(f"warning: {problem}", err=True)

    def show(self, done: Followed) -> None:
        if done.problem and (done.failed or done.problem not in self.warned):
            self.warned.add(done.problem)
            click.echo(f"warning: {done.problem}", err=True)
        self.failures += done.failed
        if done.stored or done.restarted:
            again = " (rewritten: read again from the start)" if done.restarted else ""
            click.echo(
                f"{done.path}: stored {done.stored} message(s) for {', '.join(done.agents) or '-'}{again}"
            )

    def follow(self, follower: Follower, path: Path) -> Followed | None:
        """Follow `path` and show what it gave; None when told to stop during a database outage."""
        done = self.patiently(lambda: follower.follow(path))
        if done is not None:
            self.show(done)
        return done

    def catch_up(self, follower: Follower, dirs: Sequence[Path]) -> CaughtUp:
        """Follow every log file under `dirs`; a folder that cannot be listed is reported, the rest read."""
        problems: dict[Path, str] = {}
        listed: list[Path] = []
        roots = [d for d in dirs if d.exists()]
        files = log_files(roots, problems, listed)
        for folder, problem in problems.items():
            self.failures += 1
            self.warn(problem)
            self.unlisted.add(folder)
        caught = CaughtUp(folders={Path(os.path.abspath(d)) for d in roots} | set(listed))
        for path in files:
            done = None if self._stop is not None and self._stop.is_set() else self.follow(follower, path)
            if done is None:
                caught.stopped = True
                break
            caught.results.append(done)
        return caught

    def patiently(self, action: Callable[[], T]) -> T | None:
        """`action()`, tried again after a bounded backoff for as long as the database cannot be reached
        (reported once; its return said once); None when told to stop meanwhile."""
        delay = FIRST_RETRY_S
        while True:
            try:
                result = action()
            except composition.database_outage_types() as exc:
                if self._stop is None:
                    raise
                if not self._down:
                    self._down = True
                    outage = composition.database_outage(exc)
                    click.echo(f"warning: {outage}; trying again, every file kept at its place", err=True)
                if self._stop.wait(delay):
                    return None
                delay = min(delay * 2, MAX_RETRY_S)
                continue
            if self._down:
                self._down = False
                click.echo("the database is reachable again: recording", err=True)
            return result
