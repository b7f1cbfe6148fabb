"""The composition root's database side: the handle for the configured URL (`connect_database` chooses
the backend by its scheme, once), the schema check and migrations, the storage port's update and
operator store that backend builds (`store_for`), the conversation store over it, that backend's
single-beat guard, and the one-line account of a database that cannot be reached."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from sqlalchemy.engine import make_url
from sqlalchemy.exc import InterfaceError, OperationalError

from summarizer.composition.environment import loaded
from summarizer.composition.llm import build_token_counter
from summarizer.composition.timeouts import database_timeouts, timeout_line
from summarizer.domain import secrets
from summarizer.settings import Settings
from summarizer.storage.backends import backend_for, connect_database, store_for
from summarizer.storage.sql.backend import BeatGuard
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import SchemaAdmin, ensure_schema
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from summarizer.storage.sql.stores.store import SqlStore

T = TypeVar("T")


def database_outage_types() -> tuple[type[Exception], ...]:
    """The errors that mean "the database cannot be reached now" (as opposed to a bug or bad input)."""
    return (OperationalError, InterfaceError)


def database_outage(exc: BaseException, settings: Settings | None = None) -> str | None:
    """One line naming the database (password masked) and why it cannot be reached, when `exc` is such an
    outage; None for any other error."""
    if not isinstance(exc, database_outage_types()):
        return None
    settings = settings or loaded()
    shown = secrets.mask_url(settings.resolved_database_url()) if settings else "the database"
    cause = getattr(exc, "orig", None) or exc
    reason = next((line.strip() for line in str(cause).splitlines() if line.strip()), type(cause).__name__)
    return timeout_line(exc, shown, settings) or f"database {shown} is unreachable: {secrets.redact(reason)}"


def retry_while_unreachable(
    attempt: Callable[[], T],
    outage: Callable[[Exception], str | None],
    log: Any,
    events: tuple[str, str],
    *,
    max_backoff: float = 30.0,
) -> T:
    """`attempt()`, retried with doubling backoff while it fails with an exception `outage` describes (the
    database cannot be reached: a process started before its database waits instead of exiting); any
    other exception propagates. Logged once (the first of `events`) when it is found down and once (the
    second) when it is back."""
    delay, down = 1.0, False
    while True:
        try:
            result = attempt()
        except Exception as exc:
            reason = outage(exc)
            if reason is None:
                raise
            if not down:
                log.error(events[0], error=reason, retry_in=delay)
                down = True
            time.sleep(delay)  # a backoff between connection attempts, not a wait for another process
            delay = min(delay * 2, max_backoff)
            continue
        if down:
            log.warning(events[1])
        return result


def wait_for_database(settings: Settings, *, max_backoff: float = 30.0) -> Database:
    """`open_database`, retried with doubling backoff while the database is unreachable (a worker or the
    HTTP server starts before its database); logged once when it is found down and once when it is back."""
    return retry_while_unreachable(
        lambda: open_database(settings),
        lambda exc: database_outage(exc, settings),
        structlog.get_logger("summarizer.database"),
        ("database.unreachable", "database.reachable_again"),
        max_backoff=max_backoff,
    )


def build_database(settings: Settings) -> Database:
    """A database handle, schema unchecked (for `summarizer db` commands, which manage the schema, and
    `doctor`)."""
    return connect_database(
        settings.resolved_database_url(),
        prepare_threshold=settings.database_prepare_threshold,
        **database_timeouts(settings),
    )


def build_sql_store(db: Database) -> SqlStore[Any]:
    """The storage port's update and operator store for `db`'s backend (only that backend's store module
    is loaded)."""
    return store_for(db)


def open_database(settings: Settings, *, migrate: bool | None = None) -> Database:
    """The database at the current schema. `migrate` (default: only for the embedded database) upgrades a
    schema that is behind instead of refusing to run."""
    db = build_database(settings)
    ensure_schema(db, auto_upgrade=settings.embedded_database if migrate is None else migrate)
    return db


def beat_guard(settings: Settings) -> BeatGuard:
    """The single-beat guard of the configured database's backend (workers/beat.py)."""
    url = settings.resolved_database_url()
    return backend_for(url).beat_guard(make_url(url), settings.data_dir, embedded=settings.embedded_database)


def build_schema(settings: Settings) -> SchemaAdmin:
    """The schema of the configured database, for `summarizer db upgrade|downgrade|current`."""
    return SchemaAdmin(build_database(settings))


def build_store(settings: Settings, db: Database) -> ConversationStore:
    secrets.register(settings.secret_values())  # never stored, even from settings not read by `load`
    config = StoreConfig(
        window_tokens=settings.window_tokens,
        batch_size=settings.batch_size,
        counter=build_token_counter(settings),
        provider=settings.token_provider,
        model=settings.model,
        mask_credentials=not settings.keep_raw_credentials,
    )
    return ConversationStore(db, config)
