"""SQLite's bulk insert (`SqlDialect.bulk_insert`): one driver executemany with each column's own bind
processing (the column types' conversions, the same SQLAlchemy applies). SQLAlchemy's per-row parameter
handling cost more than the insert itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, Table


def bulk_insert(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
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
