"""The operators' facade: the queue, the update figures, the alerts and a requeue, for any front end.

The CLI (`summarizer queue|stats|alerts|requeue`) calls it today; an HTTP API would call the same
methods. It returns plain values (rows, figures, alert records) and leaves the formatting to the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import structlog

from summarizer.alerting.service import AlertService, EvaluationReport
from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.breaker_state import BreakerState, BreakerStore
from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.queue_states import FAILED, RUNNING
from summarizer.storage.port import OperatorStore, QueueRow, UpdateStats

log = structlog.get_logger(__name__)

Wake = Callable[[Sequence[str]], None]


@dataclass(frozen=True, slots=True)
class Requeued:
    agent_id: str
    previous: str
    """The state the row had ("none": the agent had no row yet; "running": left alone, its worker owns it)."""
    woken: bool
    """A wake-up was sent (False: none was needed, or sending failed and the dispatcher will pick it up)."""
    wake_error: str | None = None


class Operations:
    def __init__(
        self,
        store: OperatorStore,
        alerts: AlertService,
        *,
        wake: Wake | None = None,
        clock: Clock = utcnow,
        breakers: BreakerStore | None = None,
        summary_max_tokens: int | None = None,
    ) -> None:
        self._breakers = breakers
        self._summary_max_tokens = summary_max_tokens
        self.store = store
        self.alert_service = alerts
        self._wake = wake
        self._clock = clock

    def queue(self, states: Sequence[str] | None = None, agent_id: str | None = None) -> list[QueueRow]:
        """The queue rows (one per agent), by state then most urgent first."""
        return self.store.queue_rows(states=states or None, agent_id=agent_id)

    def stats(self, window_seconds: float, now: datetime | None = None) -> UpdateStats:
        """Update figures over the last `window_seconds`, and the queue as it is now."""
        until = now or self._clock()
        figures = self.store.stats(until - timedelta(seconds=window_seconds), until)
        return replace(figures, summary_max_tokens=self._summary_max_tokens)

    def alerts(self, *, include_resolved: bool = False, limit: int = 100) -> list[AlertRecord]:
        """Open alerts (all with `include_resolved`), newest first."""
        return self.alert_service.list_alerts(include_resolved=include_resolved, limit=limit)

    def ack_alert(self, alert_id: int) -> AlertRecord:
        """Acknowledge one alert (it stays open until its condition clears); raises for an unknown id."""
        return self.alert_service.ack(alert_id)

    def check_alerts(self) -> EvaluationReport:
        """Evaluate the alert rules and deliver pending notices now."""
        return self.alert_service.evaluate()

    def breakers(self) -> list[BreakerState]:
        """The LLM providers' circuit breakers (a provider that never failed has none)."""
        return self._breakers.list_all() if self._breakers is not None else []

    def requeue_all_parked(self) -> list[Requeued]:
        """Re-arm every parked agent (after an outage that parked some before the breaker opened)."""
        parked = [row.agent_id for row in self.store.queue_rows(states=[FAILED])]
        done = []
        for agent_id in parked:
            previous = self.store.requeue(agent_id, self._clock())
            if previous is not None:
                done.append(Requeued(agent_id, previous, woken=False))
        if done and self._wake is not None:
            try:
                self._wake([r.agent_id for r in done])
            except Exception as exc:  # the dispatcher finds every pending row anyway
                done = [Requeued(r.agent_id, r.previous, False, type(exc).__name__) for r in done]
            else:
                done = [Requeued(r.agent_id, r.previous, woken=True) for r in done]
            finally:
                close = getattr(self._wake, "close", None)
                if close is not None:
                    close()
        return done

    def requeue(self, agent_id: str) -> Requeued | None:
        """Re-arm an agent's updates (after it was parked) and wake a worker; None for an unknown agent."""
        previous = self.store.requeue(agent_id, self._clock())
        if previous is None:
            return None
        if previous == RUNNING or self._wake is None:
            return Requeued(agent_id, previous, woken=False)
        try:
            self._wake([agent_id])
        except Exception as exc:  # a lost wake-up only delays: the dispatcher finds every pending row
            return Requeued(agent_id, previous, woken=False, wake_error=type(exc).__name__)
        finally:
            close = getattr(self._wake, "close", None)
            if close is not None:
                close()
        return Requeued(agent_id, previous, woken=True)
