"""The storage port: what the services need of a store, as protocols, and the values that cross it.

The update service, its sweeps and aging speak only to `UpdateStore`; the operators' facade speaks only
to `OperatorStore`; the host facade (`api.Summarizer`) to `ConversationStorePort`; the alert service to
`AlertStore`. Each method is one short unit of work (its own transaction, or one statement), so a
backend is free to run it the cheapest way its database allows: the SQL backend (`sql_store.py`) keeps
PostgreSQL's one-statement claim-and-read and commit through `PostgresDatabase.run_hot`, and the in-memory fake
(`summarizer/testing/memory_store.py`) runs the same contract in a dict for unit tests.

Methods take and return plain values (`Summary`, `Claim`, `RunRecord`, `UpdateCommit`), never a
connection. Writes that must be atomic (a failure's row change, run record and alert; an update's or a
rebuild's commit) travel as one argument (`Retry`, `UpdateCommit`, `RebuildCommit`) and one method
writes them all or nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any, Protocol

from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.followed import FilePosition
from summarizer.domain.history import HistoryPage, HistoryView
from summarizer.domain.messages import NewMessage, StoredMessage
from summarizer.domain.recall import RecallFilter, TermHits
from summarizer.domain.update_stats import UpdateStats
from summarizer.engine.model import Summary
from summarizer.storage.ops_port import AlertStore, FleetReader, MetricsReader
from summarizer.storage.values import (
    EVENT_KINDS,
    EXCHANGE_UNSUMMARIZABLE,
    LEASE_EXPIRED_ERROR,
    MODEL_DEGRADED,
    SUMMARY_UPDATES_FAILING,
    AgentRow,
    AgentState,
    AgentSteering,
    AlertDraft,
    Bucket,
    Claim,
    Committed,
    DropRecord,
    EvictedBatch,
    IngestReport,
    KeptVersion,
    LatestTask,
    LostClaim,
    MetricFigures,
    ProvenanceFacts,
    QueueRow,
    RebuildCommit,
    RecallDetails,
    RecentRun,
    Rescued,
    Retry,
    RunRecord,
    StaleSummary,
    UpdateCommit,
    VersionWrite,
)

__all__ = [
    "EVENT_KINDS",
    "EXCHANGE_UNSUMMARIZABLE",
    "LEASE_EXPIRED_ERROR",
    "MODEL_DEGRADED",
    "SUMMARY_UPDATES_FAILING",
    "AgentRow",
    "AgentState",
    "AgentSteering",
    "AlertDraft",
    "AlertRecord",
    "AlertStore",
    "Bucket",
    "Claim",
    "Committed",
    "ConversationStorePort",
    "DropRecord",
    "EvictedBatch",
    "FleetReader",
    "FollowStore",
    "HistoryView",
    "IngestReport",
    "KeptVersion",
    "LatestTask",
    "LostClaim",
    "MetricFigures",
    "MetricsReader",
    "OperatorStore",
    "ProvenanceFacts",
    "ProvenanceStore",
    "QueueRow",
    "RebuildCommit",
    "RecallDetails",
    "RecallStore",
    "RecentRun",
    "Rescued",
    "Retry",
    "RunRecord",
    "StaleSummary",
    "SteeringStore",
    "UpdateCommit",
    "UpdateStats",
    "UpdateStore",
    "VersionWrite",
]


ParkedRun = Callable[[Rescued], tuple[RunRecord, AlertDraft]]
"""For a row that rescue parked: the run record and the alert to write with it."""


class UpdateStore(Protocol):
    """An update's claim, read and commit, what a failure writes, and the beat's sweeps."""

    # ----- one update ------------------------------------------------------------------------------
    def claim(
        self, now: datetime, lease_seconds: float, agent_id: str | None
    ) -> tuple[Claim, AgentState | None] | None:
        """Claim `agent_id`'s row (None: the most urgent due row), committed at once, with the agent's
        state; None when nothing is claimable."""
        ...

    def read_batch(
        self, agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
    ) -> EvictedBatch:
        """The oldest evicted exchanges with `after` < id < `before`, bounded by count and tokens."""
        ...

    def finish_idle(self, claim: Claim, now: datetime) -> str | None:
        """No batch was ready: the row goes idle (pending if dirty); None if the claim was lost."""
        ...

    def release(self, claim: Claim, now: datetime, reason: str) -> bool:
        """Give the row back, pending and due now (a stale result)."""
        ...

    def latest_task(self, agent_id: str) -> LatestTask: ...  # the "Now" pin's messages, window included

    def recent_runs(self, agent_id: str, limit: int) -> list[RecentRun]:
        """The agent's latest `limit` runs, newest first (the per-agent model breaker reads them)."""
        ...

    def commit(self, commit: UpdateCommit) -> Committed:
        """Write a new summary version and all that depends on it, all or nothing.

        Raises `LostClaim` or `StaleSummary` when a guard fails (see `storage/sql/statements/commit_guards.py`).
        """
        ...

    # ----- failures --------------------------------------------------------------------------------
    def schedule_retry(self, claim: Claim, now: datetime, retry: Retry) -> bool:
        """Back off the row to `retry.available_at` and record `retry.run`; False (nothing written) if the
        claim was lost."""
        ...

    def park(
        self, claim: Claim, now: datetime, *, failures: int, error: str, run: RunRecord, alert: AlertDraft
    ) -> bool | None:
        """Park the row, record `run`, raise `alert` once: None if the claim was lost (nothing written),
        else whether the alert was newly raised."""
        ...

    # ----- sweeps ----------------------------------------------------------------------------------
    def arm_waiting(self, now: datetime, max_wait_seconds: float, limit: int) -> list[str]:
        """Queue agents whose short backlog waited past `max_wait_seconds`; returns them."""
        ...

    def due_agents(self, now: datetime, limit: int, agent_id: str | None = None) -> list[str]:
        """Agents a worker could claim now, most urgent first."""
        ...

    def rescue_expired(
        self, now: datetime, max_retries: int, parked_run: ParkedRun
    ) -> tuple[list[Rescued], list[str]]:
        """Take back expired leases; for each row parked past `max_retries`, write `parked_run`'s run and
        alert in the same transaction. Returns the rescued rows and the agents whose alert was newly raised."""
        ...

    def requeue(self, agent_id: str, now: datetime) -> str | None:
        """Re-arm an agent by hand; the state it had ("none": no row), None for an unknown agent."""
        ...

    def commit_rebuild(self, rebuild: RebuildCommit) -> str:
        """Swap in a rebuilt summary (compare-and-swap), keep it, record its drops and runs, raise its alert,
        clear the rebuild request and hand the row back pending, all or nothing; `LostClaim` or
        `StaleSummary`."""
        ...

    def record_spent(self, run: RunRecord) -> None:
        """Record `run` alone, whatever became of the claim: what an attempt that wrote nothing else spent
        (a discarded or interrupted rebuild's model calls)."""
        ...

    # ----- aging -----------------------------------------------------------------------------------
    def agents_due_for_aging(self, today: date, limit: int, after: str = "") -> list[str]: ...

    def load_summary(self, agent_id: str) -> Summary | None: ...

    def swap_summary(self, new: Summary, from_version: int, made: VersionWrite) -> None:
        """Store `new` if the stored version is still `from_version` (`StaleSummary` otherwise), keep a
        copy of it and record the exchanges it forgot, all in one transaction."""
        ...

    def load_summaries(self, agent_ids: Sequence[str]) -> list[Summary]:
        """The summaries of `agent_ids` that exist (an aging page: one read)."""
        ...

    def swap_summaries(self, swaps: Sequence[tuple[Summary, int, VersionWrite]]) -> list[str]:
        """Store each new summary whose stored version is still the one given, keeping it and recording
        what it forgot, in one transaction; the agents stored (the others moved meanwhile and are left
        alone)."""
        ...


class ProvenanceStore(Protocol):
    """Where each exchange went, and the kept summary versions (the provenance facade's store)."""

    def agent_exists(self, agent_id: str) -> bool: ...

    # ----- provenance and kept versions ------------------------------------------------------------
    def provenance(self, agent_id: str, between: tuple[int, int] | None = None) -> ProvenanceFacts | None:
        """The summary, each exchange's state and drop rows (of ids in `between`); None: unknown agent."""
        ...

    def summary_version(self, agent_id: str, version: int) -> KeptVersion | None: ...

    def summary_versions(self, agent_id: str) -> list[KeptVersion]: ...

    def load_summary(self, agent_id: str) -> Summary | None: ...

    def swap_summary(self, new: Summary, from_version: int, made: VersionWrite) -> None: ...

    def prune_versions(self, agent_id: str | None, keep: int) -> int:
        """Delete all but the newest `keep` kept versions (of one agent, or of all); returns how many."""
        ...

    def request_resummarize(self, agent_id: str, now: datetime) -> str | None:
        """Ask for the summary to be rebuilt by the next update and arm the queue row; the row's previous
        state (as `requeue`), None for an unknown agent."""
        ...


class SteeringStore(ProvenanceStore, Protocol):
    """Pins (versions via `swap_summary`), instructions, the "Now" pin's switch (False: unknown agent).
    Each setter writes its own column only, so setting one never undoes a concurrent setting of the other."""

    def steering(self, agent_id: str) -> AgentSteering | None: ...
    def set_instructions(self, agent_id: str, instructions: str | None) -> bool: ...
    def set_now_item(self, agent_id: str, now_item: bool | None) -> bool: ...


class OperatorStore(ProvenanceStore, Protocol):
    """What operators read and do to the queue (alerts go through the alert service)."""

    def agent_exists(self, agent_id: str) -> bool: ...

    def queue_rows(
        self, *, states: Sequence[str] | None = None, agent_id: str | None = None
    ) -> list[QueueRow]: ...

    def stats(self, since: datetime, until: datetime) -> UpdateStats: ...

    def requeue(self, agent_id: str, now: datetime) -> str | None: ...


# ----- hosts: the conversation store ------------------------------------------------------------------


class ConversationStorePort(Protocol):
    """What the host facade (`api.Summarizer`) needs of a store: record, read the window, budgets.

    Recording is one transaction per call (all or nothing); the reads are plain reads that never wait for
    a writer. `record_in` is the one method that takes a connection: a host that shares the database
    records inside its own open transaction, so it only exists on a SQL backend's terms.
    """

    def record(self, agent_id: str, batch: Sequence[NewMessage]) -> IngestReport: ...

    def record_many(self, records: Iterable[tuple[str, NewMessage]]) -> IngestReport: ...

    def record_in(self, conn: Any, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        """Record inside the host's open transaction: `conn` is a SQLAlchemy `Connection` on the same
        database (typed loosely so the port loads no SQL library)."""
        ...

    def create_agent(
        self, agent_id: str, *, budget: int | None = None, parent: str | None = None
    ) -> None: ...

    def set_budget(self, agent_id: str, budget: int | None) -> None: ...

    def agent_exists(self, agent_id: str) -> bool: ...

    def window_messages(self, agent_id: str) -> list[StoredMessage] | None:
        """The preamble and every in-window message, in conversation order; None for an unknown agent."""
        ...

    def load_summary(self, agent_id: str) -> Summary | None: ...

    def history(self, agent_id: str, default_budget: int) -> HistoryView | None:
        """The agent's exchanges and window totals; None for an unknown agent."""
        ...

    def history_page(self, agent_id: str, budget: int, limit: int, before: int | None) -> HistoryPage | None:
        """The newest `limit` exchanges before `before` (of all: None), oldest first; reads only those."""
        ...

    def exchange_messages(self, agent_id: str, exchange_id: int) -> list[StoredMessage] | None:
        """One exchange's messages in conversation order (empty for an exchange the agent does not have);
        None for an unknown agent."""
        ...

    def unsummarized(self, agent_id: str) -> int:
        """How many evicted exchanges of the agent wait for a summary (0 for an unknown agent)."""
        ...

    def ping(self) -> None:
        """Raise if the store cannot be reached (the health check)."""
        ...


# ----- recall: search over the whole stored history ---------------------------------------------------


class RecallStore(Protocol):
    """The full-text reads of `summarizer recall` (migration 0009's indexes; ranking is `domain/recall.py`)."""

    def term_hits(
        self, agent_id: str, terms: Sequence[str], filters: RecallFilter, cap: int
    ) -> TermHits | None:
        """Per word, the (exchange id, seq, tokens) of at most `cap` of the agent's matching messages that belong
        to an exchange and pass `filters`; None for an unknown agent."""
        ...

    def recall_details(
        self, agent_id: str, exchange_ids: Sequence[int], seqs: Sequence[int]
    ) -> RecallDetails:
        """The provenance facts, titles and times of `exchange_ids` and the messages `seqs`."""
        ...


# ----- followed agent logs (`summarizer watch`) ------------------------------------------------------


class FollowStore(Protocol):
    def followed(self, path: str) -> FilePosition | None:
        """How far `path` is recorded; None for a file never followed."""
        ...

    def record_followed(
        self, path: str, records: Sequence[tuple[str, NewMessage]], position: FilePosition
    ) -> IngestReport:
        """Record the messages and move the file's position in one transaction: all or nothing."""
        ...
