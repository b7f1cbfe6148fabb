"""An update's commit: everything a new summary version changes, all or nothing.

In order: the batch comes off the agent's count of unsummarized exchanges (locking the agent row first,
the conversation store's lock order), the queue row is completed if our claim token still holds it, the
summary is swapped if its version did not move, the batch's exchanges are marked folded into the new
version if every one of them was still unsummarized, the version is kept with the exchanges it forgot,
and the run is recorded. A failed guard (storage/sql/statements/commit_guards.py) raises `LostClaim` or `StaleSummary`
and the whole commit rolls back.

This module holds what both backends share: the commit's data, the step-by-step form the SQLite backend
runs in one transaction, and the alert writes that go with a commit. The PostgreSQL backend sends the
same steps as one statement (storage/postgres/commit.py).
"""

from __future__ import annotations

from sqlalchemy import Connection

from summarizer.storage.sql.statements.commit_guards import FOLDED, LOST, STALE, guard_error
from summarizer.storage.sql.writers import alerts, queue
from summarizer.storage.sql.writers.summaries import (
    mark_folded,
    record_run,
    swap_summary,
    take_off_unsummarized,
)
from summarizer.storage.sql.writers.versions import write_version
from summarizer.storage.values import (
    SUMMARY_UPDATES_FAILING,
    StaleSummary,
    UpdateCommit,
)


def write_alerts(conn: Connection, commit: UpdateCommit) -> bool:
    """The alert writes that share the commit's transaction: the alert `commit` raises, if any, and the
    resolution of the agent's open repeated-failure alert; whether one was resolved."""
    if commit.alert is not None:
        alerts.insert_alert(conn, commit.alert, commit.now)
    if commit.resolve_kind is not None:
        alerts.resolve(conn, kind=commit.resolve_kind, agent_id=commit.claim.agent_id, now=commit.now)
    if not commit.claim.alert_open:
        return False
    kind, agent_id = SUMMARY_UPDATES_FAILING, commit.claim.agent_id
    return bool(alerts.resolve(conn, kind=kind, agent_id=agent_id, now=commit.now))


def commit_in_steps(conn: Connection, commit: UpdateCommit) -> str:
    """The commit's writes one statement after another, in `conn`'s transaction; the queue row's new state."""
    state = complete_claim(conn, commit)
    swap_and_fold(conn, commit)
    keep_version(conn, commit)
    return state


def complete_claim(conn: Connection, commit: UpdateCommit) -> str:
    """Take the batch off the agent's unsummarized count (locking the agent row first) and complete the
    queue row if the claim still holds it; the row's new state. Raises the lost-claim guard's error."""
    claim = commit.claim
    remaining = take_off_unsummarized(conn, claim.agent_id, commit.exchange_count, commit.now)
    more = remaining >= commit.batch_size
    state = queue.complete(conn, claim.agent_id, claim.token, commit.now, more_work=more)
    if state is None:
        raise guard_error(LOST, commit)
    return state


def swap_and_fold(conn: Connection, commit: UpdateCommit) -> None:
    """Swap in the new summary if its version did not move, and mark the batch's exchanges folded into it
    if every one of them was still unsummarized. Raises the stale-summary or folded guard's error."""
    try:
        swap_summary(conn, commit.summary, commit.from_version)
    except StaleSummary:
        raise guard_error(STALE, commit) from None
    claim = commit.claim
    folded = mark_folded(
        conn, claim.agent_id, commit.first_exchange_id, commit.last_exchange_id, commit.summary.version
    )
    if folded != commit.exchange_count:
        raise guard_error(FOLDED, commit)


def keep_version(conn: Connection, commit: UpdateCommit) -> None:
    """Every further write that belongs to the new version: the kept copy, the ledger's drop rows, the run."""
    write_version(conn, commit.summary, commit.version)
    record_run(conn, commit.run)
