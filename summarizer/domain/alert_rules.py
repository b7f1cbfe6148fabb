"""The fleet-wide alert rules of seed 004: pure decisions over an aggregate of recent summary updates.

Each rule yields a verdict with a stable `kind` (the alert's identity, so one incident is one row however
often the rule is evaluated): FIRING, CLEAR, or UNKNOWN when the window holds too few runs to judge. An
UNKNOWN verdict neither raises nor resolves: one failure out of one run must not page, and an incident must
not be declared over merely because traffic stopped (all agents parked is not "fixed").

No storage or settings imports here (an import-linter contract keeps the domain pure); the caller passes
anything that looks like `Observed`, and the thresholds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

FAILURE_RATE_HIGH = "failure_rate_high"
UPDATE_DURATION_HIGH = "update_duration_high"
SUMMARY_SIZE_HIGH = "summary_size_high"
QUEUE_DEPTH_HIGH = "queue_depth_high"
RULE_KINDS = (FAILURE_RATE_HIGH, UPDATE_DURATION_HIGH, SUMMARY_SIZE_HIGH, QUEUE_DEPTH_HIGH)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)?\s*$", re.I)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


MAX_DURATION_S = 3650 * 86_400
"""Ten years: longer windows say nothing more and overflow date arithmetic."""


def parse_duration(text: str) -> float:
    """'90m', '24h', '7d', '30s', '2w' or bare seconds ('3600') -> seconds. ValueError on anything else.

    Shared by `stats --since` and SUMMARIZER_ALERT_WINDOW so both accept the same spellings.
    """
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"expected a duration such as 90m, 24h or 7d, got {text!r}")
    seconds = float(match.group(1)) * _UNIT_SECONDS[(match.group(2) or "s").lower()]
    if seconds <= 0:
        raise ValueError(f"a duration must be positive, got {text!r}")
    if seconds > MAX_DURATION_S:
        raise ValueError(f"a duration may be at most {MAX_DURATION_S // 86_400:.0f} days, got {text!r}")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest exact spelling of a window: 86400 -> '24h', 5400 -> '90m', 604800 -> '7d'."""
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0 and not (unit == "d" and seconds < 2 * 86_400):
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


class Observed(Protocol):
    """What the rules read: a window of `summary_runs` plus the queue as it is now."""

    @property
    def runs(self) -> int: ...
    @property
    def updates_completed(self) -> int: ...
    @property
    def updates_failed(self) -> int: ...
    @property
    def failure_rate(self) -> float: ...
    @property
    def avg_duration_ms(self) -> float | None: ...
    @property
    def avg_summary_tokens(self) -> float | None: ...
    @property
    def queue_depth(self) -> int: ...


@dataclass(frozen=True, slots=True)
class AlertThresholds:
    """Seed 004's limits. A rule fires strictly above its threshold.

    `min_runs` is the smallest sample a run-based rule judges: attempts for the failure rate, completed
    updates for the two averages. The queue-depth rule needs no sample: the queue is counted, not sampled.
    """

    failure_rate: float = 0.05
    avg_duration_ms: float = 30_000.0
    avg_summary_tokens: float = 9_500.0
    queue_depth: int = 50
    min_runs: int = 20
    window_seconds: float = 3_600.0

    def __post_init__(self) -> None:
        if self.min_runs < 1:
            raise ValueError("min_runs must be at least 1")
        if self.window_seconds <= 0:
            raise ValueError("window_seconds must be positive")


class State(StrEnum):
    FIRING = "firing"
    CLEAR = "clear"
    UNKNOWN = "unknown"  # too small a sample: keep whatever incident state there is


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str
    state: State
    severity: str
    message: str
    observed: float | None
    threshold: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def firing(self) -> bool:
        return self.state is State.FIRING


def _sampled(
    kind: str,
    severity: str,
    value: float | None,
    threshold: float,
    sample: int,
    min_sample: int,
    message: str,
    details: dict[str, Any],
) -> Verdict:
    if value is None or sample < min_sample:
        state = State.UNKNOWN
    else:
        state = State.FIRING if value > threshold else State.CLEAR
    return Verdict(kind, state, severity, message, value, threshold, {**details, "sample": sample})


def assess(stats: Observed, limits: AlertThresholds) -> list[Verdict]:
    """Every rule's verdict, in RULE_KINDS order."""
    window = format_duration(limits.window_seconds)
    common = {"window_seconds": limits.window_seconds, "min_runs": limits.min_runs}
    duration_s = None if stats.avg_duration_ms is None else stats.avg_duration_ms / 1000
    return [
        _sampled(
            FAILURE_RATE_HIGH,
            "critical",
            stats.failure_rate if stats.runs else None,
            limits.failure_rate,
            stats.runs,
            limits.min_runs,
            f"summary update failure rate {stats.failure_rate:.1%} over the last {window} "
            f"({stats.updates_failed} of {stats.runs} runs) exceeds {limits.failure_rate:.1%}",
            {
                **common,
                "failure_rate": stats.failure_rate,
                "failed": stats.updates_failed,
                "runs": stats.runs,
            },
        ),
        _sampled(
            UPDATE_DURATION_HIGH,
            "warning",
            stats.avg_duration_ms,
            limits.avg_duration_ms,
            stats.updates_completed,
            limits.min_runs,
            f"average summary update took {duration_s or 0:.1f}s over the last {window} "
            f"({stats.updates_completed} updates), above {limits.avg_duration_ms / 1000:g}s",
            {**common, "avg_duration_ms": stats.avg_duration_ms},
        ),
        _sampled(
            SUMMARY_SIZE_HIGH,
            "warning",
            stats.avg_summary_tokens,
            limits.avg_summary_tokens,
            stats.updates_completed,
            limits.min_runs,
            f"average summary size {stats.avg_summary_tokens or 0:,.0f} tokens over the last {window} "
            f"is above {limits.avg_summary_tokens:,.0f}: summaries are approaching their cap",
            {**common, "avg_summary_tokens": stats.avg_summary_tokens},
        ),
        Verdict(
            QUEUE_DEPTH_HIGH,
            State.FIRING if stats.queue_depth > limits.queue_depth else State.CLEAR,
            "warning",
            f"summary update backlog: {stats.queue_depth} agents queued, running or parked "
            f"(more than {limits.queue_depth})",
            stats.queue_depth,
            limits.queue_depth,
            {"queue_depth": stats.queue_depth},
        ),
    ]


def evaluate(stats: Observed, limits: AlertThresholds) -> list[Verdict]:
    """The firing conditions only: what should be an open alert right now."""
    return [v for v in assess(stats, limits) if v.firing]
