"""The PostgreSQL backend as the factory (storage/backends.py) chooses it: ``postgresql://`` URLs (any
``+driver``; psycopg 3 is the one installed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import URL

from summarizer.storage.postgres.beat_guard import beat_guard
from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.postgres.dialect import POSTGRES
from summarizer.storage.postgres.timeouts import Timeouts
from summarizer.storage.sql.backend import Backend, ConnectOptions
from summarizer.storage.sql.database import Database

if TYPE_CHECKING:
    from summarizer.storage.sql.stores.store import SqlStore


def _open(url: URL, options: ConnectOptions) -> Database:
    return PostgresDatabase(
        url,
        echo=options.echo,
        pool_size=options.pool_size,
        ping_after_idle=options.ping_after_idle,
        prepare_threshold=options.prepare_threshold,
        timeouts=Timeouts(options.connect_timeout, options.statement_timeout),
    )


def _store(db: Database) -> SqlStore[Any]:
    # Imported here: only the store of the backend in use is loaded; the other's statements would add
    # about a tenth of a second to the start of every command and hook.
    from summarizer.storage.postgres.store import PostgresStore

    assert isinstance(db, PostgresDatabase)
    return PostgresStore(db)


BACKEND = Backend(name="postgresql", dialect=POSTGRES, open=_open, store=_store, beat_guard=beat_guard)
