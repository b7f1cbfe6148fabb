"""Recall's reads: each word's matching messages through the database's own full-text index, and what a
page of results shows (migration 0009 made the indexes; `domain/recall_rank.py` ranks)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, Connection, bindparam, select, text

from summarizer.domain.recall import RecallFilter, TermHits
from summarizer.storage.sql.reading import load_summary, message_from_row
from summarizer.storage.sql.schema import agents, exchange_drops, exchanges, messages
from summarizer.storage.sql.search_rows import agent_word
from summarizer.storage.sql.types import UTCDateTime
from summarizer.storage.values import DropRecord, ProvenanceFacts, RecallDetails

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

_SQLITE_TERM = """
SELECT m.exchange_id, m.seq, m.tokens{at} FROM message_search AS s
JOIN messages AS m ON m.agent_id = :agent AND m.seq = s.seq
WHERE message_search MATCH :match{filters}
ORDER BY s.rowid DESC LIMIT :cap
"""
"""One word's newest matches on SQLite. The match names the agent's own word too (`search_rows.agent_word`),
so FTS5 intersects the agent's list with the word's instead of reading every agent's matches; an agent's
rows are added in the order of its messages, so the newest have the highest rowids."""

_AT = {
    "postgresql": ", CAST(extract(epoch FROM m.created_at) AS bigint) AS at",
    "sqlite": ", CAST(strftime('%s', m.created_at) AS INTEGER)",
}
"""A matching message's time in Unix seconds, read when the question names a time (`RecallFilter.timed`)."""


def message_count(conn: Connection, agent_id: str) -> int | None:
    """The agent's stored messages (None for an unknown agent)."""
    row = conn.execute(select(agents.c.next_message_seq).where(agents.c.id == agent_id)).first()
    return None if row is None else max(int(row[0]) - 1, 0)


def term_hits(
    conn: Connection, agent_id: str, terms: Sequence[str], filters: RecallFilter, cap: int
) -> TermHits | None:
    count = message_count(conn, agent_id)
    if count is None:
        return None
    params: dict[str, Any] = {"agent": agent_id, "cap": cap}
    clauses = ""
    if filters.since is not None:
        clauses += " AND m.created_at >= :since"
        params["since"] = filters.since
    if filters.until is not None:
        clauses += " AND m.created_at < :until"
        params["until"] = filters.until
    for n, kind in enumerate(filters.kinds):
        params[f"kind{n}"] = kind
    if filters.kinds:
        clauses += " AND m.kind IN (" + ", ".join(f":kind{n}" for n in range(len(filters.kinds))) + ")"
    hits: dict[str, list[tuple[int, int, int]]] = {t: [] for t in terms}
    times: dict[int, int] = {}
    at = _AT[conn.dialect.name] if filters.timed else ""
    if conn.dialect.name == "postgresql":
        _postgres_hits(conn, terms, clauses, params, count, at, hits, times)
    else:
        _sqlite_hits(conn, agent_id, terms, clauses, params, at, hits, times)
    if not filters.timed:
        return TermHits(messages=count, hits=hits)
    return TermHits(messages=count, hits=hits, times=times, latest=_latest(conn, agent_id, count))


def _postgres_hits(
    conn: Connection,
    terms: Sequence[str],
    clauses: str,
    params: dict[str, Any],
    count: int,
    at: str,
    hits: dict[str, list[tuple[int, int, int]]],
    times: dict[int, int],
) -> None:
    # A few milliseconds of reading: compiling it (the walk's estimated cost is past jit_above_cost on
    # a long history) would cost more than it saves.
    conn.execute(text("SET LOCAL jit = off"))
    form = _PG_TERM
    if count <= SHORT_HISTORY:
        form, params["whole"] = _PG_TERM_SHORT, count
    branches = " UNION ALL ".join(
        form.format(n=n, term=_literal(term), filters=clauses, at=at) for n, term in enumerate(terms)
    )
    grouped = (
        "SELECT term, array_agg(exchange_id), array_agg(seq), array_agg(tokens)"
        + (", array_agg(at)" if at else "")
        + f" FROM ({branches}) AS h GROUP BY term"
    )
    for n, exchange_ids, seqs, tokens, *moments in conn.execute(text(grouped), params):  # a row per word
        hits[terms[n]] = [h for h in zip(exchange_ids, seqs, tokens, strict=True) if h[0] is not None]
        if moments:
            times.update(zip(seqs, moments[0], strict=True))


def _sqlite_hits(
    conn: Connection,
    agent_id: str,
    terms: Sequence[str],
    clauses: str,
    params: dict[str, Any],
    at: str,
    hits: dict[str, list[tuple[int, int, int]]],
    times: dict[int, int],
) -> None:
    sqlite_term = text(_SQLITE_TERM.format(filters=clauses, at=at)).bindparams(*_times(params))
    agent = agent_word(agent_id)
    for term in terms:
        found = conn.execute(
            sqlite_term, {**params, "match": f'agent : "{agent}" AND document : "{term}"'}
        ).all()
        hits[term] = [(r[0], r[1], r[2]) for r in found if r[0] is not None]  # not the preamble
        if at:
            times.update((r[1], r[3]) for r in found)


def _times(params: dict[str, Any]) -> list[BindParameter[Any]]:
    """SQLite's time filters bound as the column stores them (naive UTC text), so that it compares the
    same instants as PostgreSQL (which binds aware datetimes as they are)."""
    return [bindparam(name, type_=UTCDateTime()) for name in ("since", "until") if name in params]


def _latest(conn: Connection, agent_id: str, count: int) -> datetime | None:
    """The time of the agent's newest message."""
    return conn.execute(
        select(messages.c.created_at).where(messages.c.agent_id == agent_id, messages.c.seq == count)
    ).scalar()


def _literal(term: str) -> str:
    """A question word as it goes into the statement: letters and digits only, checked again here."""
    if not term or not all(c.isalnum() for c in term):
        raise ValueError(f"not a search word: {term!r}")
    return term


def details(
    conn: Connection, agent_id: str, exchange_ids: Sequence[int], seqs: Sequence[int]
) -> RecallDetails:
    rows = conn.execute(
        select(
            exchanges.c.id,
            exchanges.c.title,
            exchanges.c.started_at,
            exchanges.c.ended_at,
            exchanges.c.evicted_at,
            exchanges.c.summarized_in_version,
        ).where(exchanges.c.agent_id == agent_id, exchanges.c.id.in_(list(exchange_ids)))
    ).all()
    drops = conn.execute(
        select(exchange_drops)
        .where(exchange_drops.c.agent_id == agent_id, exchange_drops.c.exchange_id.in_(list(exchange_ids)))
        .order_by(exchange_drops.c.exchange_id, exchange_drops.c.version)
    )
    found = conn.execute(
        select(messages).where(messages.c.agent_id == agent_id, messages.c.seq.in_(list(seqs)))
    )
    evicted = {r.id for r in rows if r.evicted_at is not None}
    facts = ProvenanceFacts(
        summary=load_summary(conn, agent_id),
        exchanges=tuple(
            sorted((r.id, r.evicted_at is not None, r.summarized_in_version, r.ended_at) for r in rows)
        ),
        drops=tuple(
            DropRecord(r.exchange_id, r.version, r.reason, r.item_id, r.detail, r.dropped_at) for r in drops
        ),
    )
    return RecallDetails(
        facts=facts,
        exchanges={r.id: (r.title, r.started_at, r.ended_at) for r in rows},
        messages={
            m.seq: m
            for m in (
                message_from_row(r, in_window=r.exchange_id is None or r.exchange_id not in evicted)
                for r in found
            )
        },
    )


class SqlRecallStore:
    """`RecallStore` over a database: each call is one read transaction."""

    def __init__(self, db: Any) -> None:
        self.db = db

    def term_hits(
        self, agent_id: str, terms: Sequence[str], filters: RecallFilter, cap: int
    ) -> TermHits | None:
        with self.db.read() as conn:
            return term_hits(conn, agent_id, terms, filters, cap)

    def recall_details(
        self, agent_id: str, exchange_ids: Sequence[int], seqs: Sequence[int]
    ) -> RecallDetails:
        with self.db.read() as conn:
            return details(conn, agent_id, exchange_ids, seqs)
