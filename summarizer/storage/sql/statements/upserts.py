"""INSERT ... ON CONFLICT: the one statement form SQLAlchemy builds per database.

PostgreSQL and SQLite both speak `INSERT ... ON CONFLICT DO NOTHING | DO UPDATE` in the same words, but
SQLAlchemy offers it only through each dialect's own `insert` (`SqlDialect.insert`). A statement that
needs it is declared once with `per_database(build)` and built for a database the first time a connection
to it asks (`for_connection`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection

from summarizer.storage.sql.dialect import SqlDialect, dialect_of

T = TypeVar("T")


class PerDatabase(Generic[T]):
    """A statement built with each database's `insert` construct, once per database."""

    def __init__(self, build: Callable[[Callable[..., Any]], T]) -> None:
        self._build = build
        self._built: dict[SqlDialect, T] = {}

    def built_for(self, dialect: SqlDialect) -> T:
        built = self._built.get(dialect)
        if built is None:
            built = self._built[dialect] = self._build(dialect.insert)
        return built


def per_database(build: Callable[[Callable[..., Any]], T]) -> PerDatabase[T]:
    """`build(insert)` for each database's `insert` construct, built on first use."""
    return PerDatabase(build)


def for_connection(conn: Connection, variants: PerDatabase[T]) -> T:
    """The variant of a `per_database` statement for `conn`'s database."""
    return variants.built_for(dialect_of(conn))
