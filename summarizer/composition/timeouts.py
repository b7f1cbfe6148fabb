"""The database timeouts from Settings (SUMMARIZER_DATABASE_CONNECT_TIMEOUT and _STATEMENT_TIMEOUT), and
the line a command prints when one of them ran out (storage/postgres/timeouts.py)."""

from __future__ import annotations

from typing import TypedDict

from summarizer.settings import Settings
from summarizer.storage.postgres.timeouts import Timeouts, timeout_reason


class DatabaseTimeouts(TypedDict):
    connect_timeout: int
    statement_timeout: float


def database_timeouts(settings: Settings) -> DatabaseTimeouts:
    """`connect_database`'s timeout arguments."""
    return {
        "connect_timeout": settings.database_connect_timeout,
        "statement_timeout": settings.database_statement_timeout,
    }


def timeout_line(exc: BaseException, shown_url: str, settings: Settings | None) -> str | None:
    """ "The database at URL did not answer within N s" when `exc` is a timeout's expiry; else None."""
    if settings is None:
        return timeout_reason(exc, shown_url, Timeouts())
    timeouts = Timeouts(settings.database_connect_timeout, settings.database_statement_timeout)
    return timeout_reason(exc, shown_url, timeouts)
