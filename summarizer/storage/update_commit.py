"""An update's commit: everything a new summary version changes, in one transaction, all or nothing.

In order: the batch comes off the agent's count of unsummarized exchanges (locking the agent row first,
the conversation store's lock order), the queue row is completed if our claim token still holds it, the
summary is swapped if its version did not move, the batch's exchanges are marked folded into the new
version if every one of them was still unsummarized, and the run is recorded. A failed guard raises
`LostClaim` or `StaleSummary` and the caller's transaction rolls back whole.

On PostgreSQL the five writes travel as one statement (data-modifying CTEs, each a statement the SQLite
path also runs), so the commit costs BEGIN, one statement and COMMIT instead of seven round trips. The
guards are then checked on what the statement returns, before COMMIT. SQLite, which has no
data-modifying CTEs and no network to save, runs the same statements one after another.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Integer, bindparam, func, select

from summarizer.storage import alerts, queue
from summarizer.storage.summaries import (
    MARK_FOLDED,
    RECORD_RUN,
    TAKE_OFF,
    RunRecord,
    StaleSummary,
    SummaryVersion,
    check_folded,
    mark_folded,
    mark_folded_params,
    record_run,
    run_params,
    swap_params,
    swap_statement,
    swap_summary,
    take_off_params,
    take_off_unsummarized,
)


@dataclass(frozen=True, slots=True)
class UpdateCommit:
    """What a successful update writes."""

    claim: queue.Claim
    summary: SummaryVersion
    from_version: int
    first_exchange_id: int
    last_exchange_id: int
    exchange_count: int
    run: RunRecord
    batch_size: int
    """The row stays due when at least this many unsummarized exchanges remain after the batch."""
    now: datetime


@dataclass(frozen=True, slots=True)
class Committed:
    state: str
    """The queue row's new state: pending (more to do, or evictions arrived meanwhile) or idle."""
    alert_resolved: bool


def commit_update(conn: Connection, commit: UpdateCommit) -> Committed:
    """Write `commit` in the caller's transaction; raises `LostClaim` or `StaleSummary` if a guard fails."""
    claim = commit.claim
    if conn.dialect.name == "postgresql":
        state = _in_one_statement(conn, commit)
    else:
        state = _step_by_step(conn, commit)
    resolved = claim.alert_open and bool(
        alerts.resolve(conn, kind=alerts.SUMMARY_UPDATES_FAILING, agent_id=claim.agent_id, now=commit.now)
    )
    return Committed(state, resolved)


def _lost(claim: queue.Claim) -> queue.LostClaim:
    return queue.LostClaim(f"claim on {claim.agent_id!r} was taken over")


def _step_by_step(conn: Connection, commit: UpdateCommit) -> str:
    claim = commit.claim
    remaining = take_off_unsummarized(conn, claim.agent_id, commit.exchange_count, commit.now)
    more = remaining >= commit.batch_size
    state = queue.complete(conn, claim.agent_id, claim.token, commit.now, more_work=more)
    if state is None:
        raise _lost(claim)
    swap_summary(conn, commit.summary, commit.from_version)
    mark_folded(
        conn,
        claim.agent_id,
        commit.first_exchange_id,
        commit.last_exchange_id,
        commit.summary.version,
        expected=commit.exchange_count,
    )
    record_run(conn, commit.run)
    return state


def _one_statement(first_version: bool) -> Any:
    took = TAKE_OFF.cte("took")
    remaining = select(took.c.unsummarized).scalar_subquery()
    more = remaining >= bindparam("done_batch_size", type_=Integer)
    held = queue.complete_statement(more_work=more).cte("held")
    swapped = swap_statement("postgresql", 0 if first_version else 1).cte("swapped")
    folded = MARK_FOLDED.returning(MARK_FOLDED.table.c.id).cte("folded")
    run = RECORD_RUN.returning(RECORD_RUN.table.c.id).cte("run")
    # Scalar subqueries in this order: the agent row is locked (took) before the queue row (held).
    return select(
        remaining.label("remaining"),
        select(held.c.state).scalar_subquery().label("state"),
        select(func.count()).select_from(swapped).scalar_subquery().label("swapped"),
        select(func.count()).select_from(folded).scalar_subquery().label("folded"),
        select(run.c.id).scalar_subquery().label("run_id"),
    )


_ONE_STATEMENT = {first: _one_statement(first) for first in (True, False)}


def _in_one_statement(conn: Connection, commit: UpdateCommit) -> str:
    claim = commit.claim
    first, last = commit.first_exchange_id, commit.last_exchange_id
    params = {
        **take_off_params(claim.agent_id, commit.exchange_count, commit.now),
        **queue.complete_params(claim.agent_id, claim.token, commit.now),
        "done_batch_size": commit.batch_size,
        **swap_params(commit.summary, commit.from_version),
        **mark_folded_params(claim.agent_id, first, last, commit.summary.version),
        **run_params(commit.run),
    }
    row = conn.execute(_ONE_STATEMENT[commit.from_version == 0], params).one()
    if row.state is None:
        raise _lost(claim)
    if not row.swapped:
        raise StaleSummary(f"summary of {claim.agent_id!r} is no longer at version {commit.from_version}")
    check_folded(claim.agent_id, first, last, row.folded, commit.exchange_count)
    return str(row.state)
