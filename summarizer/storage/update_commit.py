"""An update's commit: everything a new summary version changes, in one transaction, all or nothing.

In order: the batch comes off the agent's count of unsummarized exchanges (locking the agent row first,
the conversation store's lock order), the queue row is completed if our claim token still holds it, the
summary is swapped if its version did not move, the batch's exchanges are marked folded into the new
version if every one of them was still unsummarized, and the run is recorded. A failed guard raises
`LostClaim` or `StaleSummary` and the caller's transaction rolls back whole.

On PostgreSQL the five writes travel as one statement of data-modifying CTEs (each one a statement the
SQLite path runs too) with no explicit transaction around it: a statement is atomic on its own, and a
failed guard makes it call `summarizer_abort()` (migration 0002), which raises and so rolls all of it
back. The commit is one round trip instead of seven. When the claim saw an open repeated-failure alert,
the statement and the alert's resolution share a transaction; otherwise the statement goes through
`Database.run_hot`, psycopg alone. SQLite, which has no data-modifying CTEs
and no network to save, runs the same statements one after another in a transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Integer, bindparam, case, exists, func, select, true
from sqlalchemy.exc import DBAPIError

from summarizer.engine.model import Summary
from summarizer.storage import alerts, queue
from summarizer.storage.commit_guards import FOLDED, GUARDS, LOST, STALE, abort_reason, guard_error
from summarizer.storage.constants import inline
from summarizer.storage.database import Database
from summarizer.storage.driver_statements import DriverStatement
from summarizer.storage.summaries import (
    MARK_FOLDED,
    RECORD_RUN,
    TAKE_OFF,
    RunRecord,
    StaleSummary,
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
from summarizer.storage.versions import (
    VersionWrite,
    keep_version_cte,
    record_drops_cte,
    version_params,
    write_version,
)


@dataclass(frozen=True, slots=True)
class UpdateCommit:
    """What a successful update writes."""

    claim: queue.Claim
    summary: Summary
    from_version: int
    first_exchange_id: int
    last_exchange_id: int
    exchange_count: int
    run: RunRecord
    batch_size: int
    """The row stays due when at least this many unsummarized exchanges remain after the batch."""
    now: datetime
    version: VersionWrite = field(default_factory=lambda: VersionWrite("update"))
    """How the version came about and the exchanges it forgot: kept and recorded in the same commit."""
    alert: alerts.AlertDraft | None = None
    """An alert written with the commit (an exchange given up on as unsummarizable)."""


@dataclass(frozen=True, slots=True)
class Committed:
    state: str
    """The queue row's new state: pending (more to do, or evictions arrived meanwhile) or idle."""
    alert_resolved: bool


def commit_update(db: Database, commit: UpdateCommit) -> Committed:
    """Write `commit` all or nothing; raises `LostClaim` or `StaleSummary` if a guard fails."""
    claim = commit.claim
    if db.is_sqlite:
        with db.write() as conn:
            state = _step_by_step(conn, commit)
            _insert_alert(conn, commit)
            return Committed(state, _resolve_alert(conn, commit))
    if not claim.alert_open and commit.alert is None:  # one statement: atomic on its own
        with _guards_mapped(commit):
            row = db.run_hot(_ONE_STATEMENT_HOT[commit.from_version == 0], _one_statement_params(commit))[0]
        return Committed(str(row.state), alert_resolved=False)
    with (
        db.write() as conn
    ):  # rare: the same statement, and the alert raised or closed in the same transaction
        with _guards_mapped(commit):
            row = conn.execute(_ONE_STATEMENT[commit.from_version == 0], _one_statement_params(commit)).one()
        _insert_alert(conn, commit)
        return Committed(str(row.state), _resolve_alert(conn, commit))


def _insert_alert(conn: Connection, commit: UpdateCommit) -> None:
    if commit.alert is not None:
        alerts.insert_alert(conn, commit.alert, commit.now)


def _resolve_alert(conn: Connection, commit: UpdateCommit) -> bool:
    if not commit.claim.alert_open:
        return False
    kind, agent_id = alerts.SUMMARY_UPDATES_FAILING, commit.claim.agent_id
    return bool(alerts.resolve(conn, kind=kind, agent_id=agent_id, now=commit.now))


def _step_by_step(conn: Connection, commit: UpdateCommit) -> str:
    claim = commit.claim
    remaining = take_off_unsummarized(conn, claim.agent_id, commit.exchange_count, commit.now)
    more = remaining >= commit.batch_size
    state = queue.complete(conn, claim.agent_id, claim.token, commit.now, more_work=more)
    if state is None:
        raise guard_error(LOST, commit)
    try:
        swap_summary(conn, commit.summary, commit.from_version)
    except StaleSummary:
        raise guard_error(STALE, commit) from None
    folded = mark_folded(
        conn, claim.agent_id, commit.first_exchange_id, commit.last_exchange_id, commit.summary.version
    )
    if folded != commit.exchange_count:
        raise guard_error(FOLDED, commit)
    # Every further write that belongs to the new version: the kept copy and the ledger's drop rows.
    write_version(conn, commit.summary, commit.version)
    record_run(conn, commit.run)
    return state


def _one_statement(first_version: bool) -> Any:
    took = TAKE_OFF.cte("took")
    remaining = select(took.c.unsummarized).scalar_subquery()
    more = remaining >= bindparam("done_batch_size", type_=Integer)
    # The queue row's WHERE waits for `took`: the agent row is locked before the queue row is even read for
    # update, whatever order PostgreSQL runs the CTEs in (the conversation store locks in that order too).
    held = queue.complete_statement(more_work=more, only_if=exists(select(took.c.unsummarized))).cte("held")
    swapped = swap_statement("postgresql", 0 if first_version else 1).cte("swapped")
    folded = MARK_FOLDED.returning(MARK_FOLDED.table.c.id).cte("folded")
    run = RECORD_RUN.returning(RECORD_RUN.table.c.id).cte("run")
    kept = keep_version_cte()
    dropped = record_drops_cte()
    outcome = select(
        remaining.label("remaining"),
        select(held.c.state).scalar_subquery().label("state"),
        select(func.count()).select_from(swapped).scalar_subquery().label("swapped"),
        select(func.count()).select_from(folded).scalar_subquery().label("folded"),
        select(run.c.id).scalar_subquery().label("run_id"),
        # Referenced so that they are part of the statement; their counts are not checked: a kept
        # version that already exists is a stale commit, which the version guard aborts.
        select(func.count()).select_from(kept.join(dropped, true())).scalar_subquery().label("kept"),
    ).subquery("outcome")
    # A failed guard raises (summarizer_abort, migration 0002): the whole statement rolls back.
    failed = {
        LOST: outcome.c.state.is_(None),
        STALE: outcome.c.swapped == inline(0),
        FOLDED: outcome.c.folded != bindparam("expected_folds", type_=Integer),
    }
    abort = case(*((failed[g], func.summarizer_abort(inline(g))) for g in GUARDS), else_=inline(0))
    return select(outcome.c.state, outcome.c.folded, abort.label("guard"))


_ONE_STATEMENT = {first: _one_statement(first) for first in (True, False)}


_ONE_STATEMENT_HOT = {first: DriverStatement(statement) for first, statement in _ONE_STATEMENT.items()}


def _one_statement_params(commit: UpdateCommit) -> dict[str, Any]:
    claim = commit.claim
    return {
        **take_off_params(claim.agent_id, commit.exchange_count, commit.now),
        **queue.complete_params(claim.agent_id, claim.token, commit.now),
        "done_batch_size": commit.batch_size,
        **swap_params(commit.summary, commit.from_version),
        **mark_folded_params(
            claim.agent_id, commit.first_exchange_id, commit.last_exchange_id, commit.summary.version
        ),
        "expected_folds": commit.exchange_count,
        **run_params(commit.run),
        **version_params(commit.summary, commit.version),
    }


@contextmanager
def _guards_mapped(commit: UpdateCommit) -> Iterator[None]:
    """A failed guard of the one-statement commit, raised as `LostClaim` or `StaleSummary`."""
    try:
        yield
    except DBAPIError as exc:
        reason = abort_reason(exc)
        if reason is None:
            raise
        raise guard_error(reason, commit) from None
