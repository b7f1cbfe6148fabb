"""One `Database` per process: the engine, plus read and write transactions that mean the same on both backends.

Writers on SQLite take the write lock up front (``BEGIN IMMEDIATE``) so two writers queue on the busy
timeout instead of failing half-way with "database is locked"; WAL mode lets readers go on meanwhile.
PostgreSQL writers lock the rows they change (``SELECT ... FOR UPDATE``) in the store itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

SQLITE_BUSY_TIMEOUT_S = 30


class Database:
    def __init__(self, url: str, *, echo: bool = False, pool_size: int = 5) -> None:
        self.url = make_url(url)
        self.dialect = self.url.get_backend_name()
        if self.dialect == "sqlite":
            self.engine = self._sqlite_engine(echo)
        else:
            self.engine = create_engine(
                self.url, echo=echo, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True
            )
        self._writer = self.engine.execution_options(summarizer_write=True)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    def _sqlite_engine(self, echo: bool) -> Engine:
        database = self.url.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(self.url, echo=echo, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves, below
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            immediate = conn.get_execution_options().get("summarizer_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

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

    def dispose(self) -> None:
        self.engine.dispose()
