"""An update's commit: everything a new summary version changes, all or nothing.

In order: the batch comes off the agent's count of unsummarized exchanges (locking the agent row first,
the conversation store's lock order), the queue row is completed if our claim token still holds it, the
summary is swapped if its version did not move, the batch's exchanges are marked folded into the new
version if every one of them was still unsummarized, the version is kept with the exchanges it forgot,
and the run is recorded. A failed guard (storage/commit_guards.py) raises `LostClaim` or `StaleSummary`
and the whole commit rolls back.

This module holds what both backends share: the commit's data, the step-by-step form the SQLite backend
runs in one transaction, and the alert writes that go with a commit. The PostgreSQL backend sends the
same steps as one statement (storage/postgres_commit.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection

from summarizer.engine.model import Summary
from summarizer.storage import alerts, queue
from summarizer.storage.commit_guards import FOLDED, LOST, STALE, guard_error
from summarizer.storage.summaries import (
    RunRecord,
    StaleSummary,
    mark_folded,
    record_run,
    swap_summary,
    take_off_unsummarized,
)
from summarizer.storage.versions import (
    VersionWrite,
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


def write_alerts(conn: Connection, commit: UpdateCommit) -> bool:
    """The alert writes that share the commit's transaction: the alert `commit` raises, if any, and the
    resolution of the agent's open repeated-failure alert; whether one was resolved."""
    if commit.alert is not None:
        alerts.insert_alert(conn, commit.alert, commit.now)
    if not commit.claim.alert_open:
        return False
    kind, agent_id = alerts.SUMMARY_UPDATES_FAILING, commit.claim.agent_id
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
