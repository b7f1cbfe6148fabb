"""The statement pieces that differ between the databases (`SqlDialect`), and the one place shared SQL
learns which database a connection is on (`dialect_of`).

Each backend package (storage/sqlite/dialect.py, storage/postgres/dialect.py) fills in a `SqlDialect` and
registers it on import; its database handle names it too (`Database.dialect`), so a connection of any
handle finds its hooks. Shared SQL calls the hooks: the `INSERT ... ON CONFLICT` construct, the UTC day of
a stored time, bulk inserts, the search index's rows, recall's full-text lookups.

Column types that SQLAlchemy hands a dialect at bind time (statements/types.py) are the exception: such a
type is told the dialect by SQLAlchemy itself and converts for it there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table


@dataclass(slots=True)
class WordSearch:
    """One recall question's word lookups, as a backend's `word_matches` receives them and fills them in."""

    agent_id: str
    terms: tuple[str, ...]
    clauses: str
    """Further conditions on the matching message ``m``, each starting with `` AND ``."""
    params: dict[str, Any]
    """The bound values: ``agent``, ``cap`` (matches kept per word) and those `clauses` name."""
    messages: int
    """The agent's stored messages."""
    timed: bool
    """Whether each match's time is read too (into `times`)."""
    hits: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    """Per word, its matches newest first: (exchange id, seq, tokens)."""
    times: dict[int, int] = field(default_factory=dict)
    """A matching message's time in Unix seconds, by seq (only when `timed`)."""

    def __post_init__(self) -> None:
        self.hits = {term: [] for term in self.terms}


@dataclass(frozen=True, slots=True)
class SqlDialect:
    """The statement pieces one database needs its own way."""

    name: str
    """SQLAlchemy's name for the dialect (`Connection.dialect.name`)."""
    insert: Callable[..., Any]
    """The dialect's own `insert` construct: the one that offers `on_conflict_do_nothing | do_update`."""
    utc_day: Callable[[Any], Any]
    """The UTC calendar day of a stored time column, as an expression to group by."""
    bulk_insert: Callable[[Connection, Table, Sequence[dict[str, Any]]], None]
    """Insert many rows (dicts with the same keys) in the connection's transaction."""
    index_new_messages: Callable[[Connection, Mapping[str, tuple[int, int]]], None]
    """Write the search index's rows for each agent's messages with seq in [first, last], just recorded."""
    word_matches: Callable[[Connection, WordSearch], None]
    """Recall's lookup: each word's newest matching messages of one agent, through the full-text index."""


_DIALECTS: dict[str, SqlDialect] = {}


def register(dialect: SqlDialect) -> SqlDialect:
    """Make `dialect` the one `dialect_of` returns for its connections; returns it."""
    _DIALECTS[dialect.name] = dialect
    return dialect


def dialect_of(conn: Connection) -> SqlDialect:
    """The registered `SqlDialect` of `conn`'s database (its backend's package registers it on import)."""
    try:
        return _DIALECTS[conn.dialect.name]
    except KeyError:
        raise LookupError(
            f"no storage backend registered for the {conn.dialect.name!r} database (storage/backends.py lists them)"
        ) from None
