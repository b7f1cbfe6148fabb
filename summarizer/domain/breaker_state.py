"""The state of an LLM provider's circuit breaker, and what a store of it must offer.

`closed`: calls go through. `open`: no call goes through except one probe at a time, from `probe_at` on
(a probe holds a lease until `probe_until`; while one is out the breaker is shown as `half-open`). A
probe that succeeds closes the breaker; one that fails doubles the wait before the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

CLOSED = "closed"
OPEN = "open"
HALF_OPEN = "half-open"
PROVIDER_DOWN = "llm_provider_down"
"""The alert kind of an open breaker: one per incident, fleet-wide (no agent)."""


@dataclass(frozen=True, slots=True)
class BreakerState:
    provider: str
    state: str  # closed | open
    fault: str | None
    last_error: str | None
    opened_at: datetime | None
    probe_at: datetime | None
    probe_until: datetime | None
    backoff_seconds: float
    probes: int

    def shown_state(self, now: datetime) -> str:
        """closed | open | half-open (open with a probe out)."""
        if self.state != OPEN:
            return CLOSED
        return HALF_OPEN if self.probe_until is not None and self.probe_until > now else OPEN

    def to_json(self, now: datetime) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "state": self.shown_state(now),
            "fault": self.fault,
            "last_error": self.last_error,
            "opened_at": self.opened_at.isoformat() if self.opened_at else None,
            "next_probe_at": self.probe_at.isoformat() if self.probe_at and self.state == OPEN else None,
            "probes": self.probes,
        }


class BreakerStore(Protocol):
    """Fleet-wide breaker rows; every transition is one guarded write, so concurrent workers agree."""

    def load(self, provider: str) -> BreakerState | None: ...

    def open(
        self, provider: str, *, fault: str, error: str, now: datetime, probe_at: datetime, backoff: float
    ) -> bool:
        """closed -> open, raising the PROVIDER_DOWN alert in the same commit; False if already open."""
        ...

    def take_probe(self, provider: str, *, now: datetime, until: datetime) -> bool:
        """Lease the next probe if it is due and none is out; True for the one caller that got it."""
        ...

    def release_probe(self, provider: str, *, now: datetime) -> None:
        """A probe that made no call (nothing was due): the next caller may probe at once."""
        ...

    def list_all(self) -> list[BreakerState]: ...

    def probe_failed(
        self, provider: str, *, error: str, now: datetime, probe_at: datetime, backoff: float
    ) -> None:
        """The probe failed: the next one waits until `probe_at` (the backoff grew to `backoff`)."""
        ...

    def close(self, provider: str, *, now: datetime) -> bool:
        """open -> closed, resolving the alert in the same commit; False if it was not open."""
        ...
