"""An update's commit: everything a new summary version changes, all or nothing.

In order: the batch comes off the agent's count of unsummarized exchanges (locking the agent row first,
the conversation store's lock order), the queue row is completed if our claim token still holds it, the
summary is swapped if its version did not move, the batch's exchanges are marked folded into the new
version if every one of them was still unsummarized, the version is kept with the exchanges it forgot,
and the run is recorded. A failed guard (storage/sql/commit_guards.py) raises `LostClaim` or `StaleSummary`
and the whole commit rolls back.

This module holds what both backends share: the commit's data, the step-by-step form the SQLite backend
runs in one transaction, and the alert writes that go with a commit. The PostgreSQL backend sends the
same steps as one statement (storage/postgres/commit.py).
"""

from __future__ import annotations

from sqlalchemy import Connection

from summarizer.storage.sql import alerts, queue
from summarizer.storage.sql.commit_guards import FOLDED, LOST, STALE, guard_error
from summarizer.storage.sql.summaries import mark_folded, record_run, swap_summary, take_off_unsummarized
from summarizer.storage.sql.versions import write_version
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
