"""SQLite's recall lookup (`SqlDialect.word_matches`): each word's newest matches of one agent through the
FTS5 table `message_search` (storage/sqlite/search_rows.py writes its rows), one statement per word."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import BindParameter, Connection, bindparam, text

from summarizer.storage.sql.statements.types import UTCDateTime
from summarizer.storage.sqlite.search_rows import agent_word

if TYPE_CHECKING:
    from summarizer.storage.sql.dialect import WordSearch

_SQLITE_TERM = """
SELECT m.exchange_id, m.seq, m.tokens{at} FROM message_search AS s
JOIN messages AS m ON m.agent_id = :agent AND m.seq = s.seq
WHERE message_search MATCH :match{filters}
ORDER BY s.rowid DESC LIMIT :cap
"""
"""One word's newest matches on SQLite. The match names the agent's own word too (`agent_word`),
so FTS5 intersects the agent's list with the word's instead of reading every agent's matches; an agent's
rows are added in the order of its messages, so the newest have the highest rowids."""

_AT = ", CAST(strftime('%s', m.created_at) AS INTEGER)"
"""A matching message's time in Unix seconds, read when the question names a time."""


def word_matches(conn: Connection, search: WordSearch) -> None:
    at = _AT if search.timed else ""
    statement = text(_SQLITE_TERM.format(filters=search.clauses, at=at)).bindparams(*_times(search.params))
    agent = agent_word(search.agent_id)
    for term in search.terms:
        match = f'agent : "{agent}" AND document : "{term}"'
        found = conn.execute(statement, {**search.params, "match": match}).all()
        search.hits[term] = [(r[0], r[1], r[2]) for r in found if r[0] is not None]  # not the preamble
        if at:
            search.times.update((r[1], r[3]) for r in found)


def _times(params: dict[str, Any]) -> list[BindParameter[Any]]:
    """The time filters bound as the column stores them (naive UTC text), so that SQLite compares the
    same instants as PostgreSQL (which binds aware datetimes as they are)."""
    return [bindparam(name, type_=UTCDateTime()) for name in ("since", "until") if name in params]
