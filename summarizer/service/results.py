"""What the update service is configured with and what it reports: shared by update, failures, sweeps, aging."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from enum import StrEnum

from summarizer.domain.retry import RetryPolicy

MAX_ERROR_CHARS = 2_000


class Outcome(StrEnum):
    NOTHING = "nothing"  # nothing claimable: a duplicate or late wake-up
    OK = "ok"
    IDLE = "idle"  # claimed, but no batch was ready
    STALE = "stale"  # the summary moved meanwhile: result discarded, row re-queued
    LOST = "lost"  # our claim was taken over (lease expired): result discarded
    RETRY = "retry"
    PARKED = "parked"
    PAUSED = "paused"  # the provider's breaker is open: nothing claimed, or the row handed back unpaid


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    batch_size: int = 3
    batch_max_wait: float = 900.0
    max_batch_input_tokens: int = 60_000
    max_batch_exchanges: int = 64
    lease_seconds: float = 360.0
    dispatch_limit: int = 2_000
    follow_on_seconds: float = 1.0
    """How long one task may go on with the same agent's next full batch before handing it to the broker."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    now_item: str = "auto"
    """The "Now" pin for agents that set nothing: auto (when the log holds a todo list), on, off."""
    pins_max_share: float = 0.25
    """The share of the summary cap the pins may take (the "Now" pin gets what the others leave)."""
    worker_name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")


@dataclass(frozen=True, slots=True)
class RunResult:
    agent_id: str | None
    outcome: Outcome
    version: int | None = None
    exchanges: int = 0
    error: str | None = None
    requeued: bool = False
    """The row is pending again and due now (more work, or a stale result): worth an immediate wake-up."""


@dataclass(slots=True)
class DrainReport:
    runs: int = 0
    by_outcome: dict[str, int] = field(default_factory=dict)

    def add(self, result: RunResult) -> None:
        self.runs += 1
        self.by_outcome[result.outcome.value] = self.by_outcome.get(result.outcome.value, 0) + 1


@dataclass(slots=True)
class AgingReport:
    """What one aging pass did: summaries rewritten, items moved to an older tier, items dropped."""

    agents: int = 0
    moved: int = 0
    dropped: int = 0


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
