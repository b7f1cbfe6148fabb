"""SQLite's search index rows for newly recorded messages (`SqlDialect.index_new_messages`), written in the
recording transaction. (PostgreSQL computes each message's `tsvector` itself, a stored generated column,
migration 0009.)

The FTS5 table is filled by one INSERT ... SELECT per agent and batch, reading back the
messages the same transaction just wrote. Not by a trigger on `messages` (migration 0012 dropped it): a
trigger runs each row's insert as a nested statement, and FTS5 writes its pending words out as a new index
segment at every statement boundary, so a batch of 100 messages became 100 tiny segments to merge, which
cost as much again as the indexing itself. One statement per batch leaves a single segment at commit.

Each SQLite search row holds its agent as one word (`agent_word`, migration 0014), so a query matches
`agent : <word> AND document : <term>` and FTS5 never walks other agents' matches.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Connection

SQLITE_DOCUMENT = "substr(content || ' ' || coalesce(name, '') || ' ' || coalesce(input, ''), 1, 200000)"
"""What FTS5 indexes of a message: its text, tool name and tool input, at most 200,000 characters (the
expression migration 0009's backfill used)."""

_INDEX_SQLITE = (
    f"INSERT INTO message_search (document, agent, seq) SELECT {SQLITE_DOCUMENT}, hex(agent_id) || '0', seq "
    "FROM messages WHERE agent_id = ? AND seq BETWEEN ? AND ? ORDER BY seq"
)


def agent_word(agent_id: str) -> str:
    """The word an agent's search rows hold: SQLite's `hex(agent_id) || '0'` (UTF-8 bytes in hex; the
    final digit keeps the Porter stemmer from shortening it)."""
    return agent_id.encode("utf-8").hex().upper() + "0"


def index_new_messages(conn: Connection, spans: Mapping[str, tuple[int, int]]) -> None:
    """Index the messages with seq in [first, last] of each agent in `spans`, just recorded in `conn`."""
    if not spans:
        return
    # Straight to the driver: a plain statement, and SQLAlchemy's handling of it cost more than running it.
    driver = conn.connection.driver_connection
    assert driver is not None
    driver.executemany(_INDEX_SQLITE, [(agent, first, last) for agent, (first, last) in spans.items()])
