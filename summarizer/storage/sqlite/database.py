"""The SQLite backend's database handle: one file, WAL, writers that queue instead of failing.

Writers take the write lock up front (``BEGIN IMMEDIATE``) so two writers queue on the busy timeout
instead of failing half-way with "database is locked"; WAL mode lets readers go on meanwhile. SQLite has
no network round trips to save, so an "autocommit" connection is simply a transaction of the same kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Connection, Engine, create_engine, event

from summarizer.storage.sql.database import Database
from summarizer.storage.sqlite.dialect import SQLITE

SQLITE_BUSY_TIMEOUT_S = 30


class SqliteDatabase(Database):
    dialect = SQLITE

    def __init__(self, url: URL, *, echo: bool = False) -> None:
        super().__init__(url, _engine(url, echo))

    @contextmanager
    def autocommit(self, *, write: bool) -> Iterator[Connection]:
        with self.write() if write else self.read() as conn:
            yield conn


def _engine(url: URL, echo: bool) -> Engine:
    database = url.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, echo=echo, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})

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
