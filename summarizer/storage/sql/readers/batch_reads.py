"""What an update reads with its claim, as statements both backends run: the agent's state, and the next
batch of evicted exchanges.

Each statement is built once with bind parameters (no per-call construction or cache-key generation).
The batch is the exchanges joined to their messages, cut in SQL by count and by a running sum of input
tokens, so the messages of exchanges that do not fit are never fetched. It needs no transaction: the
claim keeps other updates away from the agent, and a summary that aging rewrote meanwhile is caught by
the commit's version check. How each backend runs them (SQLite in the claim's transaction, PostgreSQL
joined to the claim and through `run_hot`) is in sqlite_store.py and postgres_store.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Integer, and_, bindparam, func, or_, select

from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.storage.sql.readers.reading import message_from_row
from summarizer.storage.sql.statements.schema import agents, exchanges, messages, summaries
from summarizer.storage.sql.statements.summary_rows import summary_from_row
from summarizer.storage.values import AgentState, EvictedBatch

# What an update needs of the agent: where its window starts, how long its backlog has waited, its summary.
STATE_COLUMNS = (
    agents.c.window_start,
    agents.c.unsummarized_since,
    agents.c.rebuild_requested_at,
    agents.c.summary_instructions,
    agents.c.now_item,
    summaries.c.version,
    summaries.c["items"],
    summaries.c.token_count,
    summaries.c.covered_through_exchange_id,
    summaries.c.last_aged_on,
    summaries.c.updated_at,
)
_AGENT_STATE = (
    select(*STATE_COLUMNS)
    .select_from(agents.outerjoin(summaries, summaries.c.agent_id == agents.c.id))
    .where(agents.c.id == bindparam("as_agent", type_=agents.c.id.type))
)


def read_agent_state(conn: Connection, agent_id: str) -> AgentState | None:
    """The agent's window start, how long its unsummarized exchanges have waited, and its summary."""
    row = conn.execute(_AGENT_STATE, {"as_agent": agent_id}).first()
    return None if row is None else agent_state_from_row(agent_id, row)


def agent_state_from_row(agent_id: str, row: Any) -> AgentState:
    """The agent's state from a row holding `STATE_COLUMNS`."""
    summary = summary_from_row(agent_id, row) if row.version is not None else None
    return AgentState(
        row.window_start,
        row.unsummarized_since,
        summary,
        row.rebuild_requested_at,
        row.summary_instructions,
        row.now_item,
    )


def _batch_statement() -> Any:
    agent = bindparam("eb_agent", type_=exchanges.c.agent_id.type)
    candidates = (
        select(exchanges.c.id, exchanges.c.started_at, exchanges.c.ended_at, exchanges.c.tokens)
        .where(
            exchanges.c.agent_id == agent,
            exchanges.c.id > bindparam("eb_after", type_=exchanges.c.id.type),
            exchanges.c.id < bindparam("eb_before", type_=exchanges.c.id.type),
            exchanges.c.evicted_at.is_not(None),
        )
        .order_by(exchanges.c.id)
        .limit(bindparam("eb_limit", type_=Integer))
        .cte("candidates")
    )
    ranked = select(
        candidates,
        func.sum(candidates.c.tokens).over(order_by=candidates.c.id).label("running"),
        func.row_number().over(order_by=candidates.c.id).label("position"),
        func.count().over().label("considered"),
    ).cte("ranked")
    return (
        select(
            ranked.c.id.label("x_id"),
            ranked.c.started_at.label("x_started_at"),
            ranked.c.ended_at.label("x_ended_at"),
            ranked.c.tokens.label("x_tokens"),
            ranked.c.considered,
            messages.c.seq,
            messages.c.kind,
            messages.c.content,
            messages.c.tokens,
            messages.c.created_at,
            messages.c.exchange_id,
            messages.c.tool_call_id,
            messages.c.name,
            messages.c.input,
            messages.c.is_error,
            messages.c.host_id,
        )
        .select_from(
            ranked.outerjoin(
                messages, and_(messages.c.agent_id == agent, messages.c.exchange_id == ranked.c.id)
            )
        )
        # The oldest exchange always goes; the others while the running sum of tokens fits.
        .where(
            or_(
                ranked.c.position == 1,
                ranked.c.running <= bindparam("eb_max_tokens", type_=Integer),
            )
        )
        .order_by(ranked.c.id, messages.c.seq)
    )


EVICTED_BATCH = _batch_statement()


def batch_params(
    agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
) -> dict[str, Any]:
    """`EVICTED_BATCH`'s parameters: the oldest evicted exchanges with `after` < id < `before`, at most
    `max_exchanges`, and no more than fit `max_tokens` (but always the first, however large)."""
    return {
        "eb_agent": agent_id,
        "eb_after": after,
        "eb_before": before,
        "eb_limit": max_exchanges,
        "eb_max_tokens": max_tokens,
    }


def batch_from_rows(rows: Sequence[Any]) -> EvictedBatch:
    """The batch from `EVICTED_BATCH`'s rows: the exchanges with their messages in order."""
    heads: list[Any] = []
    bodies: dict[int, list[StoredMessage]] = {}
    considered = 0
    for row in rows:
        considered = row.considered
        if not heads or heads[-1].x_id != row.x_id:
            heads.append(row)
            bodies[row.x_id] = []
        if row.seq is not None:
            bodies[row.x_id].append(message_from_row(row, in_window=False))  # evicted exchanges only
    batch = tuple(
        EvictedExchange(
            id=h.x_id,
            started_at=h.x_started_at,
            ended_at=h.x_ended_at,
            tokens=h.x_tokens,
            messages=tuple(bodies[h.x_id]),
        )
        for h in heads
    )
    return EvictedBatch(batch, int(considered))
