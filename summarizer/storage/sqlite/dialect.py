"""SQLite's statement pieces (`SqlDialect`), registered for shared SQL to find by connection."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlalchemy.dialects import sqlite

from summarizer.storage.sql.dialect import SqlDialect, register
from summarizer.storage.sqlite import bulk, recall_words, search_rows


def _utc_day(column: Any) -> Any:
    """The day of a time stored as naive UTC text: its first ten characters (YYYY-MM-DD)."""
    return func.substr(column, 1, 10)


SQLITE = register(
    SqlDialect(
        name="sqlite",
        insert=sqlite.insert,
        utc_day=_utc_day,
        bulk_insert=bulk.bulk_insert,
        index_new_messages=search_rows.index_new_messages,
        word_matches=recall_words.word_matches,
    )
)
