"""The record each database backend fills in for the factory (storage/backends.py): how to recognise its
URLs, its statement pieces (`SqlDialect`, storage/sql/dialect.py), how to open its handle and build its
store, and its single-beat guard (`BeatGuard`, workers/beat.py). Each backend package exports one
(storage/sqlite/backend.py, storage/postgres/backend.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import URL

from summarizer.storage.sql.database import Database
from summarizer.storage.sql.dialect import SqlDialect
from summarizer.storage.sql.stores.store import SqlStore


@dataclass(frozen=True, slots=True)
class ConnectOptions:
    """How to connect, whichever backend the URL names (each backend takes the options that concern it)."""

    echo: bool
    pool_size: int
    ping_after_idle: float
    prepare_threshold: int | None
    connect_timeout: int
    statement_timeout: float


class BeatAlreadyRunning(RuntimeError):
    """Another beat holds the single-beat guard."""


class GuardHandle(Protocol):
    """What a beat keeps open for its lifetime to hold the guard (a locked file, a database session)."""

    def close(self) -> None: ...


class BeatGuard(Protocol):
    """The single-beat guard on one database: a lock its holder's death releases (workers/beat.py)."""

    @property
    def watched(self) -> bool:
        """Whether the lock can be lost under a live holder (its session ended), so that the beat checks
        it every few seconds with `lost`."""
        ...

    def take(self) -> GuardHandle:
        """Take the lock, or raise BeatAlreadyRunning; the handle holds it until closed."""
        ...

    def lost(self, handle: GuardHandle) -> str | None:
        """Why `handle` no longer holds the lock (its session is gone), or None while it does."""
        ...

    def unreachable(self, exc: Exception) -> bool:
        """Whether `exc`, raised by `take`, means the database cannot be reached now (worth a retry)."""
        ...


class BeatGuardFactory(Protocol):
    def __call__(self, url: URL, data_dir: Path, *, embedded: bool) -> BeatGuard:
        """The guard for the database at `url`; `data_dir` is the process's data directory, `embedded`
        whether the database is the one the settings default to (no URL was given)."""
        ...


@dataclass(frozen=True, slots=True)
class Backend:
    """One database backend, as the factory chooses it: by the URL's scheme, once."""

    name: str
    """The URL scheme's database name (``sqlite``, ``postgresql``; a ``+driver`` suffix is ignored)."""
    dialect: SqlDialect
    open: Callable[[URL, ConnectOptions], Database]
    """The database handle for a URL of this backend."""
    store: Callable[[Database], SqlStore[Any]]
    """The storage port's update and operator store over a handle `open` returned."""
    beat_guard: BeatGuardFactory
    """The single-beat guard for a URL of this backend."""

    def matches(self, url: URL) -> bool:
        return url.get_backend_name() == self.name
