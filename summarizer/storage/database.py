"""The database handle every SQL module works through, and the one factory that picks its backend.

`Database` is what both backends offer alike: read and write transactions that mean the same on each,
connections whose statements commit on their own, and `dispose`. `connect_database` reads the URL's
scheme and returns the SQLite backend (storage/sqlite_database.py) or the PostgreSQL backend
(storage/postgres_database.py); nothing else in the tree asks which database it is on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from sqlalchemy import URL, Connection, Engine
from sqlalchemy.engine import make_url

PING_AFTER_IDLE_S = 5.0
DEFAULT_PREPARE_THRESHOLD = 5  # psycopg's own default


class Database(ABC):
    """One per process: an engine, and transactions of the two kinds the store needs."""

    url: URL
    engine: Engine

    def __init__(self, url: URL, engine: Engine) -> None:
        self.url = url
        self.engine = engine
        self._writer = engine.execution_options(summarizer_write=True)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction for changes: committed on success, rolled back whole on any error."""
        with self._writer.begin() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A transaction that only reads; takes no locks on either backend."""
        with self.engine.connect() as conn, conn.begin():
            yield conn

    @abstractmethod
    def autocommit(self, *, write: bool) -> AbstractContextManager[Connection]:
        """A connection on which every statement commits on its own."""

    def dispose(self) -> None:
        self.engine.dispose()


def connect_database(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = 5,
    ping_after_idle: float = PING_AFTER_IDLE_S,
    prepare_threshold: int | None = DEFAULT_PREPARE_THRESHOLD,
) -> Database:
    """The backend for `url`: SQLite for ``sqlite://`` URLs, PostgreSQL (psycopg 3) for the rest.

    `pool_size`, `ping_after_idle` and `prepare_threshold` only concern PostgreSQL: psycopg prepares a
    statement on the server after `prepare_threshold` runs on one connection; None never (behind PgBouncer
    in transaction mode, see docs/scaling.md)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        from summarizer.storage.sqlite_database import SqliteDatabase

        return SqliteDatabase(parsed, echo=echo)
    from summarizer.storage.postgres_database import PostgresDatabase

    return PostgresDatabase(
        parsed,
        echo=echo,
        pool_size=pool_size,
        ping_after_idle=ping_after_idle,
        prepare_threshold=prepare_threshold,
    )
