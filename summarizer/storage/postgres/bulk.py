"""PostgreSQL's bulk insert (`SqlDialect.bulk_insert`): COPY for big batches, several times faster than
row-by-row; pipelined single-row INSERTs (executemany) below COPY_THRESHOLD rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import JSON, Connection, Table

COPY_THRESHOLD = 50
"""From this many rows COPY beats pipelined single-row INSERTs (about 8% at 50 rows, 23% at 100; below it the
two are even); `benchmarks/recording_bench.py` records batches of 100."""


def bulk_insert(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    if len(rows) < COPY_THRESHOLD:
        conn.execute(table.insert(), list(rows))
    else:
        _copy(conn, table, rows)


def _copy(conn: Connection, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    from psycopg.types.json import Jsonb  # here, not at the top: a process on SQLite never loads the driver

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
