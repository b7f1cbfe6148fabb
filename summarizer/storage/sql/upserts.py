"""INSERT ... ON CONFLICT: the one statement form SQLAlchemy builds per database.

PostgreSQL and SQLite both speak `INSERT ... ON CONFLICT DO NOTHING | DO UPDATE` in the same words, but
SQLAlchemy offers it only through each dialect's own `insert`. A statement that needs it is built once
for each database with `per_database`, and the variant for a connection is picked with `for_connection`:
this is the one place a shared statement module learns which database it is on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection
from sqlalchemy.dialects import postgresql, sqlite

T = TypeVar("T")

_INSERTS: dict[str, Callable[..., Any]] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def per_database(build: Callable[[Callable[..., Any]], T]) -> dict[str, T]:
    """`build(insert)` for each database's `insert` construct, keyed by dialect name."""
    return {name: build(insert) for name, insert in _INSERTS.items()}


def for_connection(conn: Connection, variants: dict[str, T]) -> T:
    """The variant of a `per_database` statement for `conn`'s database."""
    return variants[conn.dialect.name]
