"""The file an SQLite database's single-beat guard locks, for tests that look at it from outside."""

from __future__ import annotations

from pathlib import Path

from summarizer.composition.database import beat_guard
from summarizer.settings import Settings
from summarizer.storage.sqlite.beat_guard import FileLockGuard


def lock_file(settings: Settings) -> Path:
    """The configured database's lock file (asserting that its guard is the SQLite file lock)."""
    guard = beat_guard(settings)
    assert isinstance(guard, FileLockGuard)
    return guard.path
