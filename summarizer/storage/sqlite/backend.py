"""The SQLite backend as the factory (storage/backends.py) chooses it: ``sqlite://`` URLs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import URL

from summarizer.storage.sql.backend import Backend, ConnectOptions
from summarizer.storage.sql.database import Database
from summarizer.storage.sqlite.beat_guard import beat_guard
from summarizer.storage.sqlite.database import SqliteDatabase
from summarizer.storage.sqlite.dialect import SQLITE

if TYPE_CHECKING:
    from summarizer.storage.sql.stores.store import SqlStore


def _open(url: URL, options: ConnectOptions) -> Database:
    """The file's handle; the pool and server options concern PostgreSQL only."""
    return SqliteDatabase(url, echo=options.echo)


def _store(db: Database) -> SqlStore[Any]:
    # Imported here: only the store of the backend in use is loaded.
    from summarizer.storage.sqlite.store import SqliteStore

    assert isinstance(db, SqliteDatabase)
    return SqliteStore(db)


BACKEND = Backend(name="sqlite", dialect=SQLITE, open=_open, store=_store, beat_guard=beat_guard)
