"""The single-beat guard on SQLite (one host by design): an exclusive `flock` on `beat.lock` in the data
directory for the embedded database, or beside an explicit database file. The kernel drops it when the
holder dies, however it dies, so a lock left by a dead process never blocks, and a live holder never
loses it. The holder writes its pid into the file (for operators and the refusal message); the pid is
information only, never a reason to refuse."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import URL

from summarizer.storage.sql.backend import BeatAlreadyRunning, GuardHandle


def lock_file(url: URL, data_dir: Path, *, embedded: bool) -> Path:
    """The embedded database's guard in the data directory; an explicit SQLite file's beside that file
    (`s.db` -> `s.db.beat.lock`), so two deployments with their own files never refuse each other."""
    if not embedded:
        database = url.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            path = Path(database)
            return path.with_name(path.name + ".beat.lock")
    return data_dir / "beat.lock"


def lock_holder(path: Path) -> int | None:
    """The pid written by the beat that took `path` last (it may be dead: the file is never cleaned up)."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@dataclass(frozen=True, slots=True)
class FileLockGuard:
    path: Path

    @property
    def watched(self) -> bool:
        return False  # a flock lives as long as the process

    def take(self) -> GuardHandle:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Opened without truncating: a beat that is refused must not erase the holder's pid.
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BeatAlreadyRunning(
                f"another beat (pid {lock_holder(self.path)}) holds {self.path}"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return open(fd, "r+b", buffering=0)

    def lost(self, handle: GuardHandle) -> str | None:
        return None

    def unreachable(self, exc: Exception) -> bool:
        return False  # a local file: nothing to wait for


def beat_guard(url: URL, data_dir: Path, *, embedded: bool) -> FileLockGuard:
    return FileLockGuard(lock_file(url, data_dir, embedded=embedded))
