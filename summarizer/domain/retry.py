"""When a failed summary update is tried again, and when it is given up on (parked).

Pure policy: the caller supplies the failure count, the kind of failure and a random source, and gets a
decision back. Keeping it free of clocks and storage makes every branch testable with plain values.

Backoff is exponential with "full jitter" (a uniform draw between half and all of the capped delay), so a
fleet that failed together (a provider outage) does not retry in lockstep. A provider's own `retry_after`
is a floor: retrying earlier than the provider asked only earns another rate-limit error.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol


class RandomSource(Protocol):
    def uniform(self, a: float, b: float) -> float: ...


@dataclass(frozen=True, slots=True)
class RetryAt:
    """Try again, not before `at`; `priority` ranks it below fresh work (larger is later)."""

    at: datetime
    delay_seconds: float
    priority: int


@dataclass(frozen=True, slots=True)
class Park:
    """Give up until an operator requeues the agent; `reason` says why, for the alert."""

    reason: str


RetryDecision = RetryAt | Park


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 5
    base_seconds: float = 2.0
    max_seconds: float = 300.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.base_seconds < 0 or self.max_seconds < self.base_seconds:
            raise ValueError("need 0 <= base_seconds <= max_seconds")

    def delay(self, failures: int, rng: RandomSource) -> float:
        """The jittered delay before retry number `failures` (1 for the first failure)."""
        capped = min(self.max_seconds, self.base_seconds * (2 ** max(0, failures - 1)))
        return rng.uniform(capped / 2, capped)

    def decide(
        self,
        *,
        failures: int,
        permanent: bool,
        now: datetime,
        retry_after: float | None = None,
        rng: RandomSource | None = None,
    ) -> RetryDecision:
        """`failures` counts consecutive failures including this one.

        A permanent failure parks at once: trying the same request again cannot help. A transient one parks
        once it has failed more than `max_retries` times in a row.
        """
        if permanent:
            return Park("permanent failure")
        if failures > self.max_retries:
            return Park(
                f"{failures} consecutive failures (more than SUMMARIZER_MAX_RETRIES={self.max_retries})"
            )
        delay = self.delay(failures, rng or random.Random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_seconds))
        return RetryAt(at=now + timedelta(seconds=delay), delay_seconds=delay, priority=failures)
