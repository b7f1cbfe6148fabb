"""The provider circuit breaker: one provider outage is one fleet-wide incident, not one per agent.

Before an update claims a row it asks the breaker (`gate`):

* closed: go ahead;
* open, a probe due and not yet taken: this update is the probe (half-open); only one worker gets it;
* open otherwise: PAUSED. Nothing is claimed, so no agent's retry budget is spent and none is parked.

After the LLM call:

* success of the probe closes the breaker (and resolves its alert);
* a provider-scoped failure (llm/provider_faults.py: credentials, quota, an unknown model, an unreachable
  server at once; overload, rate limits and 5xx after `threshold` of them in a row with no success between)
  opens the breaker, raising ONE alert for the fleet, or, for a failed probe, doubles the wait before
  the next probe (up to `max_probe_seconds`). The failed call's row goes back to pending until the next
  probe, with its failure count untouched;
* an agent-scoped failure is the agent's: retried and parked as before (for a probe it also proves the
  provider answers, so the breaker closes).

The state lives in the database (`provider_breakers`), so every worker of the fleet sees the same one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import structlog

from summarizer.domain.breaker_state import OPEN, PROVIDER_DOWN, BreakerState, BreakerStore
from summarizer.engine.ports import LLMError
from summarizer.llm.provider_faults import IMMEDIATE, fault_kind

log = structlog.get_logger("summarizer.breaker")


class Gate(StrEnum):
    GO = "go"
    PROBE = "probe"
    PAUSED = "paused"


@dataclass(frozen=True, slots=True)
class BreakerConfig:
    provider: str = "anthropic"
    threshold: int = 5
    """Provider-scoped transient faults in a row (any agent) that open the breaker."""
    first_probe_seconds: float = 5.0
    max_probe_seconds: float = 300.0
    probe_lease_seconds: float = 360.0
    """How long a probe may take before another worker may probe (the update's lease)."""


class ProviderBreaker:
    def __init__(self, store: BreakerStore, config: BreakerConfig, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.config = config
        self._clock = clock
        self._lock = threading.Lock()
        self._run = 0  # provider-scoped transient faults in a row seen by this process

    def state(self) -> BreakerState | None:
        return self.store.load(self.config.provider)

    def is_open(self) -> bool:
        state = self.state()
        return state is not None and state.state == OPEN

    def gate(self) -> Gate:
        state = self.state()
        if state is None or state.state != OPEN:
            return Gate.GO
        now = self._clock()
        until = now + timedelta(seconds=self.config.probe_lease_seconds)
        if self.store.take_probe(self.config.provider, now=now, until=until):
            log.info("breaker.probe", provider=self.config.provider, probes=state.probes + 1)
            return Gate.PROBE
        return Gate.PAUSED

    def release(self, gate: Gate) -> None:
        """A gate that made no LLM call: give a probe back so the next update can take it."""
        if gate is Gate.PROBE:
            self.store.release_probe(self.config.provider, now=self._clock())

    def succeeded(self, gate: Gate) -> None:
        with self._lock:
            self._run = 0
        if gate is Gate.PROBE:
            self._close("probe succeeded")

    def failed(self, exc: BaseException, gate: Gate) -> datetime | None:
        """Record a failed call. Returns when the row may try again if the breaker takes the failure (the
        agent is not charged), or None when it is the agent's own failure (retry or park as usual)."""
        kind = fault_kind(exc)
        if kind is None:
            with self._lock:
                self._run = 0
            if gate is Gate.PROBE:
                self._close("the provider answered the probe")
            return None
        now = self._clock()
        error = str(exc)[:500]
        if gate is Gate.PROBE:
            return self._probe_failed(error, now)
        with self._lock:
            self._run += 1
            run = self._run
        state = self.state()
        if state is not None and state.state == OPEN:  # opened meanwhile (by this process or another)
            return state.probe_at or now
        if kind not in IMMEDIATE and run < self.config.threshold:
            return None
        first = self.config.first_probe_seconds
        probe_at = now + timedelta(seconds=first)
        opened = self.store.open(
            self.config.provider, fault=kind, error=error, now=now, probe_at=probe_at, backoff=first
        )
        if opened:
            log.critical(
                "alert.raised",
                kind=PROVIDER_DOWN,
                provider=self.config.provider,
                fault=kind,
                message=f"LLM provider unavailable ({kind}): {error}; every update is paused",
            )
            return probe_at
        state = self.state()
        return (state.probe_at if state is not None else None) or probe_at

    def _probe_failed(self, error: str, now: datetime) -> datetime:
        state = self.state()
        previous = state.backoff_seconds if state is not None else self.config.first_probe_seconds
        backoff = min(max(previous, self.config.first_probe_seconds) * 2, self.config.max_probe_seconds)
        probe_at = now + timedelta(seconds=backoff)
        self.store.probe_failed(
            self.config.provider, error=error, now=now, probe_at=probe_at, backoff=backoff
        )
        log.warning("breaker.probe_failed", provider=self.config.provider, next_probe_in=backoff, error=error)
        return probe_at

    def _close(self, why: str) -> None:
        if self.store.close(self.config.provider, now=self._clock()):
            log.warning("alert.resolved", kind=PROVIDER_DOWN, provider=self.config.provider, reason=why)


class FleetHealth:
    """`llm.provider_health.ProviderHealth` over the fleet-wide breaker, for the fallback chain: while the
    primary's breaker is open the fallback answers (and one call at a time probes the primary)."""

    def __init__(self, breaker: ProviderBreaker) -> None:
        self.breaker = breaker
        self._local = threading.local()  # the gate this thread's current call went through

    def allow_call(self) -> bool:
        gate = self.breaker.gate()
        self._local.gate = gate
        return gate is not Gate.PAUSED

    def record_success(self) -> None:
        self.breaker.succeeded(getattr(self._local, "gate", Gate.GO))

    def record_failure(self, error: LLMError) -> None:
        self.breaker.failed(error, getattr(self._local, "gate", Gate.GO))
