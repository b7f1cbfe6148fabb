"""Counting the SQL statements a piece of code sends, for tests that bound them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from summarizer.storage.sql.database import Database


@contextmanager
def counting_statements(db: Database) -> Iterator[list[str]]:
    """The statements sent on `db`'s engine while the block runs, in order."""
    seen: list[str] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", before)
