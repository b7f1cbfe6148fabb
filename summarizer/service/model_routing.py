"""The per-agent model breaker: an agent whose model keeps failing is folded offline for a while.

The fleet-wide provider breaker (breaker.py) covers a provider that is down for everyone. This one covers
a model that is up but cannot fold one agent's conversation (a small local model that answers every
batch of it with cut JSON or citations of exchanges that do not exist): after `threshold` updates in a
row that the offline summarizer had to fold (`offline-fallback`), the agent's next updates skip the model
and go straight to the offline summarizer (`offline-routed`) until `cooldown_seconds` after the last
degraded update (or after `max_routed` routed updates); then the model is tried again. One warning alert is raised when the routing starts and
resolved by the first update the model folds again.

The decision is read from the agent's own run records, so every worker process agrees and a restart
forgets nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from summarizer.storage.values import MODEL_DEGRADED, AlertDraft, RecentRun

DEGRADED_PATH = "offline-fallback"
"""The run path of an update the offline summarizer folded because the model could not."""
ROUTED_PATH = "offline-routed"
"""The run path of an update sent straight to the offline summarizer while the agent's breaker is open."""
_DEGRADED = frozenset({DEGRADED_PATH, ROUTED_PATH})


@dataclass(frozen=True, slots=True)
class ModelRouting:
    threshold: int = 3
    """Degraded updates in a row that route an agent around its model."""
    cooldown_seconds: float = 3_600.0
    """How long after the last update the model could not fold the model is left alone."""
    max_routed: int = 100
    """Routed updates after which the model is tried again even within the cooldown."""

    @property
    def lookback(self) -> int:
        """How many of the agent's latest runs the decision reads."""
        return self.threshold + self.max_routed

    def degraded_streak(self, recent: Sequence[RecentRun]) -> int:
        """Degraded updates at the head of `recent` (newest first) before the first the model folded;
        failed attempts in between (retries) neither break nor extend the streak."""
        streak = 0
        for run in recent:
            if run.outcome != "ok":
                continue
            if run.path not in _DEGRADED:
                break
            streak += 1
        return streak

    def routed_until(self, recent: Sequence[RecentRun]) -> datetime | None:
        """When the model is tried again, if the agent is routed around it now (else None)."""
        if self.degraded_streak(recent) < self.threshold:
            return None
        last_try = next(
            (r.finished_at for r in recent if r.outcome == "ok" and r.path == DEGRADED_PATH), None
        )
        if last_try is None:
            return None
        return last_try + timedelta(seconds=self.cooldown_seconds)

    def opens_now(self, recent: Sequence[RecentRun]) -> bool:
        """A degraded update committed now is the one that opens the agent's breaker."""
        return self.degraded_streak(recent) == self.threshold - 1

    def was_open(self, recent: Sequence[RecentRun]) -> bool:
        """The agent's breaker was open before this update (a model fold now closes it)."""
        return self.degraded_streak(recent) >= self.threshold


def routing_alert(agent_id: str, routing: ModelRouting, cause: str) -> AlertDraft:
    message = (
        f"the model could not fold agent {agent_id!r}'s exchanges in {routing.threshold} updates in a row"
        f" (last: {cause[:300]}); its updates go to the offline summarizer, and the model is tried again"
        f" {routing.cooldown_seconds:.0f}s after the last failure"
    )
    details = {"threshold": routing.threshold, "cooldown_seconds": routing.cooldown_seconds, "cause": cause}
    return AlertDraft(MODEL_DEGRADED, agent_id, message, details, severity="warning")
