"""The update figures over a window of summary runs, plus the queue as it is now (a plain value).

Built by the storage backend (`storage/sql/readers/stats.py`), judged by the alert rules, shown by `summarizer stats`
and the HTTP API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from summarizer.domain.queue_states import FAILED, IDLE, PENDING, RUNNING

BACKLOG_STATES = (PENDING, RUNNING, FAILED)


@dataclass(frozen=True, slots=True)
class UpdateStats:
    since: datetime
    until: datetime
    updates_completed: int = 0
    updates_failed: int = 0
    updates_parked: int = 0
    avg_duration_ms: float | None = None
    avg_summary_tokens: float | None = None
    largest_summary_tokens: int | None = None
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    llm_cache_read_tokens: int = 0
    """Of `llm_input_tokens`, read from the provider's prompt cache (billed at a fraction)."""
    llm_cache_write_tokens: int = 0
    """Of `llm_input_tokens`, written to the provider's prompt cache."""
    truncations: int = 0
    paths: dict[str, int] = field(default_factory=dict)
    queue: dict[str, int] = field(default_factory=dict)
    summary_max_tokens: int | None = None
    """The configured cap, the "/10k" of the dashboard's "7.8k/10k tokens" (set by the operators' facade)."""

    @property
    def runs(self) -> int:
        return self.updates_completed + self.updates_failed

    @property
    def failure_rate(self) -> float:
        return self.updates_failed / self.runs if self.runs else 0.0

    @property
    def updates_queued(self) -> int:
        return self.queue.get(PENDING, 0)

    @property
    def queue_depth(self) -> int:
        return sum(self.queue.get(state, 0) for state in BACKLOG_STATES)

    @property
    def window_seconds(self) -> float:
        return (self.until - self.since).total_seconds()

    def to_json(self) -> dict[str, Any]:
        """The `stats --json` document: seed 004's metrics first, then the breakdowns."""
        return {
            "updates_queued": self.updates_queued,
            "updates_completed": self.updates_completed,
            "updates_failed": self.updates_failed,
            "failure_rate": round(self.failure_rate, 4),
            "avg_duration_ms": _rounded(self.avg_duration_ms),
            "avg_summary_tokens": _rounded(self.avg_summary_tokens),
            "queue_depth": self.queue_depth,
            "llm_input_tokens": self.llm_input_tokens,
            "llm_output_tokens": self.llm_output_tokens,
            "truncations": self.truncations,
            "runs": self.runs,
            "updates_parked": self.updates_parked,
            "largest_summary_tokens": self.largest_summary_tokens,
            "summary_max_tokens": self.summary_max_tokens,
            "llm_cache_read_tokens": self.llm_cache_read_tokens,
            "llm_cache_write_tokens": self.llm_cache_write_tokens,
            "paths": dict(sorted(self.paths.items())),
            "queue": {state: self.queue.get(state, 0) for state in (PENDING, RUNNING, FAILED, IDLE)},
            "window": {
                "since": self.since.isoformat(),
                "until": self.until.isoformat(),
                "seconds": self.window_seconds,
            },
        }


def _rounded(value: float | None) -> int | None:
    return None if value is None else round(value)
