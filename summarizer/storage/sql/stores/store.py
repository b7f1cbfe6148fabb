"""What the two SQL backends of the storage port share: every unit of work that is the same statements on
SQLite and PostgreSQL.

Each method opens one short transaction on the `Database`. The update's hot path (the claim with the
agent's state, the batch read, the commit) is where the databases part ways, so those three are left to
the backends: `SqliteStore` (storage/sqlite/store.py) runs them step by step in transactions,
`PostgresStore` (storage/postgres/store.py) as one statement each through `run_hot`. The composition
root builds the one that fits the database.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import date, datetime
from typing import Generic, TypeVar

from summarizer.engine.model import Summary
from summarizer.storage.port import AlertDraft, ParkedRun
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers import reading, stats
from summarizer.storage.sql.readers.stats import UpdateStats
from summarizer.storage.sql.writers import alerts, queue, queue_sweeps, steering, summaries, versions
from summarizer.storage.values import (
    AgentState,
    AgentSteering,
    Claim,
    Committed,
    EvictedBatch,
    KeptVersion,
    LatestTask,
    LostClaim,
    ProvenanceFacts,
    QueueRow,
    RebuildCommit,
    RecentRun,
    Rescued,
    Retry,
    RunRecord,
    StaleSummary,
    UpdateCommit,
    VersionWrite,
)

DB = TypeVar("DB", bound=Database)


class SqlStore(ABC, Generic[DB]):
    """`UpdateStore` and `OperatorStore` over one `Database`, but for the hot path each backend runs its way."""

    def __init__(self, db: DB) -> None:
        self.db = db

    # ----- one update: the hot path, per backend ---------------------------------------------------
    @abstractmethod
    def claim(
        self, now: datetime, lease_seconds: float, agent_id: str | None
    ) -> tuple[Claim, AgentState | None] | None:
        """`queue.claim`, committed at once, and the claimed agent's state (None if the agent is gone);
        None if nothing was claimable."""

    @abstractmethod
    def read_batch(
        self, agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
    ) -> EvictedBatch:
        """The oldest evicted exchanges with `after` < id < `before` (batch_reads.batch_params)."""

    @abstractmethod
    def commit(self, commit: UpdateCommit) -> Committed:
        """Write `commit` all or nothing; raises `LostClaim` or `StaleSummary` if a guard fails."""

    # ----- one update: the rest ----------------------------------------------------------------------

    def recent_runs(self, agent_id: str, limit: int) -> list[RecentRun]:
        with self.db.read() as conn:
            return summaries.recent_runs(conn, agent_id, limit)

    def finish_idle(self, claim: Claim, now: datetime) -> str | None:
        with self.db.autocommit(write=True) as conn:
            return queue.finish_idle(conn, claim.agent_id, claim.token, now)

    def release(self, claim: Claim, now: datetime, reason: str) -> bool:
        with self.db.write() as conn:
            return queue.release(conn, claim.agent_id, claim.token, now, reason=reason)

    # ----- failures --------------------------------------------------------------------------------
    def schedule_retry(self, claim: Claim, now: datetime, retry: Retry) -> bool:
        with self.db.write() as conn:
            held = queue.schedule_retry(conn, claim.agent_id, claim.token, now, retry)
            if held:
                summaries.record_run(conn, retry.run)
            return held

    def park(
        self, claim: Claim, now: datetime, *, failures: int, error: str, run: RunRecord, alert: AlertDraft
    ) -> bool | None:
        with self.db.write() as conn:
            if not queue.park(conn, claim.agent_id, claim.token, now, failures=failures, error=error):
                return None
            summaries.record_run(conn, run)
            return alerts.raise_draft(conn, alert, now)

    # ----- sweeps ----------------------------------------------------------------------------------
    def arm_waiting(self, now: datetime, max_wait_seconds: float, limit: int) -> list[str]:
        with self.db.write() as conn:
            return queue_sweeps.arm_waiting(conn, now, max_wait_seconds, limit)

    def due_agents(self, now: datetime, limit: int, agent_id: str | None = None) -> list[str]:
        with self.db.read() as conn:
            return queue.due_agents(conn, now, limit, agent_id)

    def rescue_expired(
        self, now: datetime, max_retries: int, parked_run: ParkedRun
    ) -> tuple[list[Rescued], list[str]]:
        raised: list[str] = []
        with self.db.write() as conn:
            rescued = queue_sweeps.rescue_expired(conn, now, max_retries)
            for r in rescued:
                if r.parked:
                    run, alert = parked_run(r)
                    summaries.record_run(conn, run)
                    if alerts.raise_draft(conn, alert, now):
                        raised.append(r.agent_id)
        return rescued, raised

    def requeue(self, agent_id: str, now: datetime) -> str | None:
        with self.db.write() as conn:
            return queue_sweeps.requeue(conn, agent_id, now)

    # ----- aging -----------------------------------------------------------------------------------
    def agents_due_for_aging(self, today: date, limit: int, after: str = "") -> list[str]:
        with self.db.read() as conn:
            return summaries.agents_due_for_aging(conn, today, limit, after)

    def load_summary(self, agent_id: str) -> Summary | None:
        with self.db.read() as conn:
            return reading.load_summary(conn, agent_id)

    def swap_summary(self, new: Summary, from_version: int, made: VersionWrite) -> None:
        with self.db.write() as conn:
            summaries.swap_summary(conn, new, from_version)
            versions.write_version(conn, new, made)

    def load_summaries(self, agent_ids: Sequence[str]) -> list[Summary]:
        with self.db.read() as conn:
            return reading.load_summaries(conn, agent_ids)

    # ----- steering: instructions, the "Now" pin (pins themselves go through swap_summary) ---------
    def steering(self, agent_id: str) -> AgentSteering | None:
        with self.db.read() as conn:
            return steering.load_steering(conn, agent_id)

    def set_instructions(self, agent_id: str, instructions: str | None) -> bool:
        with self.db.write() as conn:
            return steering.store_instructions(conn, agent_id, instructions)

    def set_now_item(self, agent_id: str, now_item: bool | None) -> bool:
        with self.db.write() as conn:
            return steering.store_now_item(conn, agent_id, now_item)

    def latest_task(self, agent_id: str) -> LatestTask:
        with self.db.read() as conn:
            return steering.latest_task(conn, agent_id)

    def swap_summaries(self, swaps: Sequence[tuple[Summary, int, VersionWrite]]) -> list[str]:
        kept: list[tuple[Summary, VersionWrite]] = []
        with self.db.write() as conn:
            for new, from_version, made in swaps:
                try:
                    summaries.swap_summary(conn, new, from_version)
                except StaleSummary:
                    continue
                kept.append((new, made))
            versions.write_versions(conn, kept)
        return [new.agent_id for new, _ in kept]

    # ----- operators -------------------------------------------------------------------------------
    def agent_exists(self, agent_id: str) -> bool:
        with self.db.read() as conn:
            return reading.agent_exists(conn, agent_id)

    def queue_rows(
        self, *, states: Sequence[str] | None = None, agent_id: str | None = None
    ) -> list[QueueRow]:
        with self.db.read() as conn:
            return queue.list_rows(conn, states=states, agent_id=agent_id)

    def stats(self, since: datetime, until: datetime) -> UpdateStats:
        with self.db.read() as conn:
            return stats.query_stats(conn, since=since, until=until)

    # ----- provenance and kept versions ------------------------------------------------------------
    def provenance(self, agent_id: str, between: tuple[int, int] | None = None) -> ProvenanceFacts | None:
        with self.db.read() as conn:
            if not reading.agent_exists(conn, agent_id):
                return None
            return ProvenanceFacts(
                summary=reading.load_summary(conn, agent_id),
                exchanges=reading.exchange_states(conn, agent_id, between),
                drops=versions.load_drops(conn, agent_id, between),
            )

    def summary_version(self, agent_id: str, version: int) -> KeptVersion | None:
        with self.db.read() as conn:
            return versions.load_version(conn, agent_id, version)

    def summary_versions(self, agent_id: str) -> list[KeptVersion]:
        with self.db.read() as conn:
            return versions.list_versions(conn, agent_id)

    def request_resummarize(self, agent_id: str, now: datetime) -> str | None:
        with self.db.write() as conn:
            if not versions.request_rebuild(conn, agent_id, now):
                return None
            return queue_sweeps.requeue(conn, agent_id, now)

    def commit_rebuild(self, rebuild: RebuildCommit) -> str:
        claim, new = rebuild.claim, rebuild.new
        assert new.updated_at is not None
        with self.db.write() as conn:
            state = queue.complete(conn, claim.agent_id, claim.token, new.updated_at, more_work=True)
            if state is None:
                raise LostClaim(f"claim on {claim.agent_id!r} was taken over")
            summaries.swap_summary(conn, new, rebuild.from_version)
            versions.write_version(conn, new, rebuild.made)
            versions.clear_rebuild(conn, claim.agent_id)
            for run in rebuild.runs:
                summaries.record_run(conn, run)
            if rebuild.alert is not None:
                alerts.insert_alert(conn, rebuild.alert, new.updated_at)
            return state

    def record_spent(self, run: RunRecord) -> None:
        with self.db.write() as conn:
            summaries.record_run(conn, run)

    def prune_versions(self, agent_id: str | None, keep: int) -> int:
        with self.db.write() as conn:
            return versions.prune_versions(conn, agent_id, keep)
