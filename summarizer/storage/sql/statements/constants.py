"""Constants written into SQL text instead of bound as parameters.

SQLAlchemy binds every Python literal in a statement as a parameter. For the few large statements an
update runs, that pushed the count past what psycopg caches (it re-parses the placeholders of a query with
more than 50 parameters on every execution). Fixed values the code controls (states, zeros, NULL,
booleans) are rendered inline instead; values that come from data are always bound.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Integer, String, false, literal_column, null, true


def inline(value: int | str | bool | None) -> ColumnElement[Any]:
    """`value` as SQL text. Only for constants in the code: a string must be a plain word."""
    if value is None:
        return null()
    if isinstance(value, bool):
        return true() if value else false()
    if isinstance(value, int):
        return literal_column(str(int(value)), Integer)
    if not value.replace("_", "").isalnum():
        raise ValueError(f"inline() takes plain words only, not {value!r}")
    return literal_column(f"'{value}'", String)
