"""Bulk inserts: each backend's fastest way to insert many rows in a transaction (`SqlDialect.bulk_insert`:
COPY on PostgreSQL for big batches, storage/postgres/bulk.py; straight to the driver on SQLite,
storage/sqlite/bulk.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Table

from summarizer.storage.sql.dialect import dialect_of


def bulk_insert(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert `rows` (dicts keyed by column name, every row the same keys) inside the connection's current
    transaction."""
    if rows:
        dialect_of(conn).bulk_insert(conn, table, rows)
