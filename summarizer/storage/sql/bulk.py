"""Bulk inserts: COPY on PostgreSQL for big batches (several times faster than row-by-row), straight to the
driver on SQLite, executemany otherwise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import JSON, Connection, Dialect, Table

COPY_THRESHOLD = 50
"""From this many rows COPY beats pipelined single-row INSERTs (about 8% at 50 rows, 23% at 100; below it the
two are even); `benchmarks/recording_bench.py` records batches of 100."""


def bulk_insert(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert `rows` (dicts keyed by column name, every row the same keys) inside the connection's current
    transaction."""
    if not rows:
        return
    if conn.dialect.name == "sqlite":
        _sqlite_insert(conn, table, rows)
    elif len(rows) < COPY_THRESHOLD:
        conn.execute(table.insert(), list(rows))
    else:
        _copy(conn, table, rows)


def _copy(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    from psycopg.types.json import Jsonb

    columns = list(rows[0].keys())
    json_columns = {name for name in columns if isinstance(table.c[name].type, JSON)}
    driver = conn.connection.driver_connection
    assert driver is not None
    column_list = ", ".join(f'"{name}"' for name in columns)
    with driver.cursor() as cursor, cursor.copy(f'COPY "{table.name}" ({column_list}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row(
                [
                    Jsonb(row[name]) if name in json_columns and row[name] is not None else row[name]
                    for name in columns
                ]
            )


def _sqlite_insert(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """One driver executemany with each column's own bind processing (the column types' conversions, the
    same SQLAlchemy applies): SQLAlchemy's per-row parameter handling cost more than the insert itself."""
    columns = list(rows[0].keys())
    processors = [_bind_processor(table, name, conn.dialect) for name in columns]
    column_list = ", ".join(f'"{name}"' for name in columns)
    statement = f'INSERT INTO "{table.name}" ({column_list}) VALUES ({", ".join("?" for _ in columns)})'
    values = [
        tuple(
            row[name] if process is None else process(row[name])
            for name, process in zip(columns, processors, strict=True)
        )
        for row in rows
    ]
    driver = conn.connection.driver_connection
    assert driver is not None
    driver.executemany(statement, values)


def _bind_processor(table: Table, name: str, dialect: Dialect) -> Callable[[Any], Any] | None:
    column_type = table.c[name].type
    return column_type.dialect_impl(dialect).bind_processor(dialect)
