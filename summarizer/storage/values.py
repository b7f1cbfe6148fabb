"""The values that cross the storage port: plain data, constants and errors, no SQL.

The port (`storage/port.py`) imports only this module, the domain and the engine's model, so a service that
speaks to a store loads no database code; the SQL backends and the in-memory fake build and take these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from summarizer.domain.breaker_state import BreakerState
from summarizer.domain.errors import SummarizerError
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.engine.model import Summary
from summarizer.engine.provenance import Forgotten

SUMMARY_UPDATES_FAILING = "summary_updates_failing"
EXCHANGE_UNSUMMARIZABLE = "exchange_unsummarizable"
"""An exchange the model could not summarize even alone: recorded as dropped, and the agent went on."""

MODEL_DEGRADED = "model_degraded"
"""The model could not fold an agent's exchanges several updates in a row: it is folded offline for a while."""

PINS_TRIMMED = "pins_trimmed"
"""Pins an update left out because they no longer fit their share of a lowered summary cap."""

EVENT_KINDS = (EXCHANGE_UNSUMMARIZABLE, PINS_TRIMMED)
"""Alerts about something that happened once: nothing is left to watch after an operator has seen one."""

LEASE_EXPIRED_ERROR = "lease expired: the worker holding it crashed or overran its lease"
MAX_BUCKETS = 240
"""The most time buckets one run series may have."""
FAILING_OUTCOMES = ("retry", "parked", "paused")
"""Run outcomes counted as failures by the metrics."""
MADE_BY = ("update", "aging", "rollback", "resummarize", "unsummarizable")


@dataclass(frozen=True, slots=True)
class AlertDraft:
    """An alert to raise once per incident (no-op while one of the same kind and agent is open)."""

    kind: str
    agent_id: str | None
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    severity: str = "critical"


@dataclass(frozen=True, slots=True)
class AgentState:
    window_start: int
    unsummarized_since: datetime | None
    summary: Summary | None
    rebuild_requested_at: datetime | None = None
    """`resummarize` asked for the summary to be rebuilt from the stored history."""
    instructions: str | None = None
    """The operator's summary instructions for this agent (`agent instructions`)."""
    now_item: bool | None = None
    """The agent's own choice for the "Now" pin (None: the setting decides)."""


@dataclass(frozen=True, slots=True)
class AgentSteering:
    """What an operator set to steer an agent's summary."""

    instructions: str | None
    now_item: bool | None
    """On or off for this agent; None follows SUMMARIZER_NOW_ITEM."""


@dataclass(frozen=True, slots=True)
class LatestTask:
    """The newest user message and the newest todo-list tool call the agent's log holds (window included)."""

    request: StoredMessage | None
    todos: StoredMessage | None


@dataclass(frozen=True, slots=True)
class EvictedBatch:
    exchanges: tuple[EvictedExchange, ...]
    candidates: int
    """Evicted, unsummarized exchanges that were considered (at most `max_exchanges`), fitting or not."""


@dataclass(slots=True)
class AgentIngest:
    agent_id: str
    stored: int = 0
    skipped: int = 0
    evicted_exchanges: int = 0
    window_tokens: int = 0
    queued: bool = False


@dataclass(slots=True)
class IngestReport:
    agents: dict[str, AgentIngest] = field(default_factory=dict)

    @property
    def stored(self) -> int:
        return sum(a.stored for a in self.agents.values())

    @property
    def skipped(self) -> int:
        return sum(a.skipped for a in self.agents.values())

    @property
    def evicted_exchanges(self) -> int:
        return sum(a.evicted_exchanges for a in self.agents.values())

    @property
    def queued_agents(self) -> list[str]:
        """Agents whose queue row this batch armed: the ones a worker should be woken for."""
        return [a.agent_id for a in self.agents.values() if a.queued]


class LostClaim(SummarizerError):
    """Our claim token is gone: another worker rescued the row after our lease expired."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A claimed queue row. `consecutive_failures` already counts a rescued (crashed) previous attempt."""

    agent_id: str
    token: str
    attempts: int
    consecutive_failures: int
    lease_expires_at: datetime
    rescued: bool
    alert_open: bool = False
    """An unresolved repeated-failure alert exists for the agent: the next success must resolve it."""


@dataclass(frozen=True, slots=True)
class QueueRow:
    agent_id: str
    state: str
    priority: int
    attempts: int
    consecutive_failures: int
    queued_at: datetime
    available_at: datetime
    lease_expires_at: datetime | None
    dirty: bool
    last_error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "state": self.state,
            "priority": self.priority,
            "attempts": self.attempts,
            "consecutive_failures": self.consecutive_failures,
            "queued_at": self.queued_at.isoformat(),
            "available_at": self.available_at.isoformat(),
            "lease_expires_at": self.lease_expires_at.isoformat() if self.lease_expires_at else None,
        }


@dataclass(frozen=True, slots=True)
class Rescued:
    agent_id: str
    consecutive_failures: int
    parked: bool


class StaleSummary(SummarizerError):
    """The summary or the batch moved on since the update read them; its result must be discarded."""


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One row of `summary_runs`: what an attempt did and what it cost."""

    agent_id: str
    started_at: datetime
    finished_at: datetime
    outcome: str
    worker: str | None = None
    from_version: int | None = None
    to_version: int | None = None
    exchange_count: int = 0
    first_exchange_id: int | None = None
    last_exchange_id: int | None = None
    path: str | None = None
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    llm_cache_read_tokens: int = 0
    llm_cache_write_tokens: int = 0
    summary_tokens: int | None = None
    truncated: bool = False
    tokens_before_cap: int | None = None
    error: str | None = None
    model: str | None = None
    """The model that answered the update's calls (the offline summarizer's name when it folded)."""

    @property
    def duration_ms(self) -> int:
        return max(0, round((self.finished_at - self.started_at).total_seconds() * 1000))


@dataclass(frozen=True, slots=True)
class UpdateCommit:
    """What a successful update writes."""

    claim: Claim
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
    alert: AlertDraft | None = None
    """An alert written with the commit (an exchange given up on as unsummarizable)."""
    resolve_kind: str | None = None
    """An open alert of this kind for the agent is resolved with the commit (the model folds again)."""


@dataclass(frozen=True, slots=True)
class Retry:
    """What a failure to retry writes: the row backs off to `available_at` and `run` is recorded."""

    available_at: datetime
    priority: int
    failures: int
    error: str
    run: RunRecord


@dataclass(frozen=True, slots=True)
class RebuildCommit:
    """What a finished rebuild writes: `new` swapped in over `from_version` and kept with `made`, its
    `runs` recorded, `alert` raised (if any), the rebuild request cleared and the row handed back."""

    claim: Claim
    new: Summary
    from_version: int
    made: VersionWrite
    runs: tuple[RunRecord, ...]
    alert: AlertDraft | None = None


@dataclass(frozen=True, slots=True)
class RecentRun:
    """What the per-agent model breaker reads of an agent's latest runs."""

    outcome: str
    path: str | None
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class Committed:
    state: str
    """The queue row's new state: pending (more to do, or evictions arrived meanwhile) or idle."""
    alert_resolved: bool


@dataclass(frozen=True, slots=True)
class VersionWrite:
    """How a new version came about, and the exchanges it forgot (written with it, all or nothing)."""

    made_by: str
    drops: tuple[Forgotten, ...] = ()
    run_path: str | None = None
    worker: str | None = None


@dataclass(frozen=True, slots=True)
class KeptVersion:
    summary: Summary
    made_by: str
    run_path: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DropRecord:
    exchange_id: int
    version: int
    reason: str
    item_id: str | None
    detail: str
    dropped_at: datetime


@dataclass(frozen=True, slots=True)
class ProvenanceFacts:
    """What the ledger is computed from: the current summary, every exchange and every drop row."""

    summary: Summary | None
    exchanges: tuple[tuple[int, bool, int | None, datetime], ...]
    """(id, evicted, summarized_in_version, ended_at) for every exchange of the agent, in id order."""
    drops: tuple[DropRecord, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class AgentRow:
    agent_id: str
    created_at: datetime
    last_message_at: datetime | None
    window_tokens: int
    unsummarized: int
    queue_state: str | None
    summary_version: int | None
    summary_tokens: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "created_at": self.created_at.isoformat(),
            "last_message_at": self.last_message_at.isoformat() if self.last_message_at else None,
            "window_tokens": self.window_tokens,
            "unsummarized_exchanges": self.unsummarized,
            "queue_state": self.queue_state,
            "summary_version": self.summary_version,
            "summary_tokens": self.summary_tokens,
        }


@dataclass(frozen=True, slots=True)
class Bucket:
    start: datetime
    completed: int
    failed: int


@dataclass(frozen=True, slots=True)
class Histogram:
    buckets: tuple[tuple[str, float], ...]
    """Cumulative counts by upper bound, the last one "+Inf"."""
    total: float


@dataclass(frozen=True, slots=True)
class MetricFigures:
    """What the Prometheus metrics show, read at one scrape."""

    queue: dict[str, int]
    breakers: tuple[BreakerState, ...]
    outcomes: tuple[tuple[str, int], ...]
    llm_input_tokens: int
    llm_output_tokens: int
    truncations: int
    failing_errors: tuple[tuple[str, int], ...]
    """(the first 120 characters of a failed run's error, how many runs failed with it)"""
    durations: Histogram
    """Successful updates' durations, in seconds."""
    summary_tokens: Histogram
    oldest_aged_on: date | None


@dataclass(frozen=True, slots=True)
class RecallDetails:
    """What a recall page shows of its exchanges: their provenance facts (the current summary, these
    exchanges' states and drop rows), their titles and times, and the matching messages by seq."""

    facts: ProvenanceFacts
    exchanges: Mapping[int, tuple[str, datetime, datetime]]
    """id -> (title, started_at, ended_at)."""
    messages: Mapping[int, StoredMessage]
