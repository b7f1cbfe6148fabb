"""PostgreSQL's recall lookup (`SqlDialect.word_matches`): each word's newest matches of one agent through
the messages' `search_document` (a stored `tsvector` with a GIN index, migration 0009), all words in one
statement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Connection, text

if TYPE_CHECKING:
    from summarizer.storage.sql.dialect import WordSearch


_PG_TERM = """(
    SELECT {n} AS term, m.exchange_id, m.seq, m.tokens{at} FROM messages m
    WHERE m.agent_id = :agent AND m.search_document @@ plainto_tsquery('english', '{term}'){filters}
    ORDER BY m.seq DESC LIMIT :cap
)"""
"""One word's newest matches. The word is written into the statement (it is letters and digits only,
`domain/recall.query_terms`) so the planner sees it: a rare word is read through the GIN index, a word in
much of the agent's history by walking the agent's messages newest first until `cap` of them match, so
neither costs more as the history grows."""

_PG_TERM_SHORT = """(
    SELECT {n} AS term, m.exchange_id, m.seq, m.tokens{at} FROM (
        SELECT exchange_id, seq, tokens, created_at, kind, search_document FROM messages
        WHERE agent_id = :agent ORDER BY seq DESC LIMIT :whole
    ) AS m
    WHERE m.search_document @@ plainto_tsquery('english', '{term}'){filters}
    ORDER BY m.seq DESC LIMIT :cap
)"""
"""The same for a short history, read whole through the primary key: a word common in the whole database
would otherwise be looked up through its posting list over every agent, which costs more the more the
database holds, while this costs the agent's own few messages."""
SHORT_HISTORY = 4000
"""Histories up to this many messages are read whole (at most a few milliseconds)."""

_AT = ", CAST(extract(epoch FROM m.created_at) AS bigint) AS at"
"""A matching message's time in Unix seconds, read when the question names a time."""


def word_matches(conn: Connection, search: WordSearch) -> None:
    # A few milliseconds of reading: compiling it (the walk's estimated cost is past jit_above_cost on
    # a long history) would cost more than it saves.
    conn.execute(text("SET LOCAL jit = off"))
    params, at = dict(search.params), _AT if search.timed else ""
    form = _PG_TERM
    if search.messages <= SHORT_HISTORY:
        form, params["whole"] = _PG_TERM_SHORT, search.messages
    branches = " UNION ALL ".join(
        form.format(n=n, term=_literal(term), filters=search.clauses, at=at)
        for n, term in enumerate(search.terms)
    )
    grouped = (
        "SELECT term, array_agg(exchange_id), array_agg(seq), array_agg(tokens)"
        + (", array_agg(at)" if at else "")
        + f" FROM ({branches}) AS h GROUP BY term"
    )
    for n, exchange_ids, seqs, tokens, *moments in conn.execute(text(grouped), params):  # a row per word
        found = zip(exchange_ids, seqs, tokens, strict=True)
        search.hits[search.terms[n]] = [h for h in found if h[0] is not None]
        if moments:
            search.times.update(zip(seqs, moments[0], strict=True))


def _literal(term: str) -> str:
    """A question word as it goes into the statement: letters and digits only, checked again here."""
    if not term or not all(c.isalnum() for c in term):
        raise ValueError(f"not a search word: {term!r}")
    return term
