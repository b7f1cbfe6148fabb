"""PostgreSQL's statement pieces (`SqlDialect`), registered for shared SQL to find by connection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Date, cast, func
from sqlalchemy.dialects import postgresql

from summarizer.storage.postgres import bulk, recall_words
from summarizer.storage.sql.dialect import SqlDialect, register


def _utc_day(column: Any) -> Any:
    """The UTC day of a timestamptz."""
    return cast(func.timezone("UTC", column), Date)


def _index_new_messages(_conn: Connection, _spans: Mapping[str, tuple[int, int]]) -> None:
    """Nothing to write: each message's `tsvector` is a stored generated column (migration 0009)."""


POSTGRES = register(
    SqlDialect(
        name="postgresql",
        insert=postgresql.insert,
        utc_day=_utc_day,
        bulk_insert=bulk.bulk_insert,
        index_new_messages=_index_new_messages,
        word_matches=recall_words.word_matches,
    )
)
