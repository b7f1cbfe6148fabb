"""Recall's reads: each word's matching messages through the database's own full-text index, and what a
page of results shows (migration 0009 made the indexes; `domain/recall_rank.py` ranks).

The lookup itself is the backend's (`SqlDialect.word_matches`: storage/postgres/recall_words.py,
storage/sqlite/recall_words.py); this module states the question (`dialect.WordSearch`) and reads the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from summarizer.domain.recall import RecallFilter, TermHits
from summarizer.storage.sql.dialect import WordSearch, dialect_of
from summarizer.storage.sql.readers.reading import load_summary, message_from_row
from summarizer.storage.sql.statements.schema import agents, exchange_drops, exchanges, messages
from summarizer.storage.values import DropRecord, ProvenanceFacts, RecallDetails


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
    search = WordSearch(agent_id, tuple(terms), clauses, params, count, filters.timed)
    dialect_of(conn).word_matches(conn, search)
    if not filters.timed:
        return TermHits(messages=count, hits=search.hits)
    return TermHits(
        messages=count, hits=search.hits, times=search.times, latest=_latest(conn, agent_id, count)
    )


def _latest(conn: Connection, agent_id: str, count: int) -> datetime | None:
    """The time of the agent's newest message."""
    return conn.execute(
        select(messages.c.created_at).where(messages.c.agent_id == agent_id, messages.c.seq == count)
    ).scalar()


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
