"""The PostgreSQL form of an update's commit: the steps of update_commit.py as one statement.

The five writes travel as one statement of data-modifying CTEs (each one a statement the SQLite backend
runs too) with no explicit transaction around it: a statement is atomic on its own, and a failed guard
makes it call `summarizer_abort()` (migration 0002), which raises and so rolls all of it back. The commit
is one round trip instead of seven. When the claim saw an open repeated-failure alert, or the commit
raises one, the statement and the alert writes share a transaction; otherwise the statement goes through
`PostgresDatabase.run_hot`, psycopg alone. Its text must stay under psycopg's 4,096-character statement
cache limit (tests/integration/test_hot_statements.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Integer, bindparam, case, exists, func, select, true
from sqlalchemy.exc import DBAPIError

from summarizer.storage.postgres.database import PostgresDatabase
from summarizer.storage.postgres.dialect import POSTGRES
from summarizer.storage.postgres.versions import keep_version_cte, record_drops_cte, version_params
from summarizer.storage.sql.statements.commit_guards import (
    FOLDED,
    GUARDS,
    LOST,
    STALE,
    abort_reason,
    guard_error,
)
from summarizer.storage.sql.statements.constants import inline
from summarizer.storage.sql.statements.driver_statements import DriverStatement
from summarizer.storage.sql.writers import queue
from summarizer.storage.sql.writers.summaries import (
    MARK_FOLDED,
    RECORD_RUN,
    TAKE_OFF,
    mark_folded_params,
    run_params,
    swap_params,
    swap_statement,
    take_off_params,
)
from summarizer.storage.sql.writers.update_commit import write_alerts
from summarizer.storage.values import Committed, UpdateCommit


def commit_in_one_statement(db: PostgresDatabase, commit: UpdateCommit) -> Committed:
    """Write `commit` all or nothing; raises `LostClaim` or `StaleSummary` if a guard fails."""
    alone = not commit.claim.alert_open and commit.alert is None and commit.resolve_kind is None
    if alone:  # one statement: atomic on its own
        with _guards_mapped(commit):
            row = db.run_hot(ONE_STATEMENT_HOT[commit.from_version == 0], _one_statement_params(commit))[0]
        return Committed(str(row.state), alert_resolved=False)
    with db.write() as conn:  # rare: the same statement, and the alert writes in the same transaction
        with _guards_mapped(commit):
            row = conn.execute(_ONE_STATEMENT[commit.from_version == 0], _one_statement_params(commit)).one()
        return Committed(str(row.state), write_alerts(conn, commit))


def _one_statement(first_version: bool) -> Any:
    took = TAKE_OFF.cte("took")
    remaining = select(took.c.unsummarized).scalar_subquery()
    more = remaining >= bindparam("done_batch_size", type_=Integer)
    # The queue row's WHERE waits for `took`: the agent row is locked before the queue row is even read for
    # update, whatever order PostgreSQL runs the CTEs in (the conversation store locks in that order too).
    held = queue.complete_statement(more_work=more, only_if=exists(select(took.c.unsummarized))).cte("held")
    swapped = swap_statement(POSTGRES, 0 if first_version else 1).cte("swapped")
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


ONE_STATEMENT_HOT = {first: DriverStatement(statement) for first, statement in _ONE_STATEMENT.items()}


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
