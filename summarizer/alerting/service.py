"""One alert evaluation: judge the rules, open or close incidents, then deliver what the sinks still owe.

Beat calls `AlertService.evaluate()` every SUMMARIZER_ALERT_INTERVAL seconds (and `summarizer alerts check`
calls it on demand). It never raises: a broken database, rule or sink is logged and reported, and the next
evaluation simply tries again, so alerting can never take a worker down with it.

Incidents: a firing rule raises its incident through the `AlertStore` (a no-op while the same kind is open, so a
lasting condition is ONE alert), a clear rule resolves it, and a rule without enough runs to judge does
neither. Per-agent `summary_updates_failing` alerts are raised and resolved by the workers themselves; this
pass only delivers them, exactly like its own.

Delivery: every open alert that a sink has not yet received is sent to it, and an alert resolved after its
raise was delivered gets a resolution notice. Each attempt is recorded under the sink's name in the alert's
`delivery` JSON (status sent | failed | gave_up, attempts, last error). A failed attempt is retried on the
next evaluation, up to SUMMARIZER_ALERT_DELIVERY_MAX_ATTEMPTS; a sink that fails is not tried again within
the same pass, so a dead endpoint costs one timeout per evaluation, not one per alert. Delivery is at least
once: a process killed between a send and its bookkeeping sends that notice again next time. An alert
acknowledged before a sink got it is not sent there any more (somebody already knows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from summarizer.alerting.sinks import DeliveryError, Event, LogSink, Notice, Sink
from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.alert_rules import AlertThresholds, State, Verdict, assess
from summarizer.domain.errors import SummarizerError
from summarizer.domain.update_stats import UpdateStats
from summarizer.storage.port import AlertDraft, AlertStore

log = structlog.get_logger("summarizer.alerts")

Clock = Callable[[], datetime]
SENT = "sent"
FAILED = "failed"
GAVE_UP = "gave_up"
MAX_ERROR_CHARS = 300


class UnknownAlert(SummarizerError):
    def __init__(self, alert_id: int) -> None:
        super().__init__(f"no alert with id {alert_id}")
        self.alert_id = alert_id


@dataclass(frozen=True, slots=True)
class DeliveryPolicy:
    max_attempts: int = 5
    per_pass_limit: int = 100
    """Most sends per sink in one evaluation: a burst of parked agents drains over a few passes."""
    resolution_horizon_seconds: float = 86_400.0
    """Alerts resolved longer ago than this are no longer looked at, even if their resolution notice
    never got through."""


@dataclass(frozen=True, slots=True)
class Attempt:
    alert_id: int
    sink: str
    event: Event
    status: str
    attempts: int
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class EvaluationReport:
    at: datetime
    stats: UpdateStats | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    raised: list[str] = field(default_factory=list)
    resolved: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "rules": {v.kind: v.state.value for v in self.verdicts},
            "raised": self.raised,
            "resolved": self.resolved,
            "deliveries": [a.to_json() for a in self.attempts],
            "errors": self.errors,
            "stats": self.stats.to_json() if self.stats else None,
        }


def _entry(delivery: dict[str, Any], sink: str) -> dict[str, Any]:
    """A sink's delivery record; raising an alert writes the log sink's as a bare "sent"."""
    value = delivery.get(sink)
    if isinstance(value, str):
        return {"status": value}
    return dict(value) if isinstance(value, dict) else {}


def next_event(record: AlertRecord, sink: str, max_attempts: int) -> Event | None:
    """What `sink` is still owed for this alert, if anything."""
    entry = _entry(record.delivery, sink)
    if record.is_open:
        owed = entry.get("status") not in (SENT, GAVE_UP) and record.acknowledged_at is None
        return "raised" if owed and int(entry.get("attempts", 0)) < max_attempts else None
    if entry.get("status") != SENT:
        return None  # never told it started, so no news that it ended
    resolution = entry.get("resolution") or {}
    owed = resolution.get("status") not in (SENT, GAVE_UP)
    return "resolved" if owed and int(resolution.get("attempts", 0)) < max_attempts else None


def _after_attempt(
    previous: dict[str, Any], error: str | None, now: datetime, max_attempts: int
) -> dict[str, Any]:
    attempts = int(previous.get("attempts", 0)) + 1
    stamp = now.isoformat()
    if error is None:
        return {"status": SENT, "attempts": attempts, "sent_at": stamp}
    status = GAVE_UP if attempts >= max_attempts else FAILED
    return {"status": status, "attempts": attempts, "error": error, "last_attempt_at": stamp}


def _notice(record: AlertRecord, event: Event) -> Notice:
    return Notice(
        event=event,
        alert_id=record.id,
        kind=record.kind,
        agent_id=record.agent_id,
        severity=record.severity,
        message=record.message,
        created_at=record.created_at,
        resolved_at=record.resolved_at,
        details=record.details,
    )


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]


class AlertService:
    def __init__(
        self,
        store: AlertStore,
        thresholds: AlertThresholds | None = None,
        sinks: Sequence[Sink] = (),
        *,
        policy: DeliveryPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.thresholds = thresholds or AlertThresholds()
        self.sinks = tuple(sinks)
        self.policy = policy or DeliveryPolicy()
        self._clock = clock or (lambda: datetime.now(UTC))
        self._log_sink = LogSink()
        names = [s.name for s in self.sinks]
        if len(set(names)) != len(names) or LogSink.name in names:
            raise ValueError(f"sink names must be unique and not {LogSink.name!r}: {names}")

    # ----- the beat entry point ---------------------------------------------------------------------

    def evaluate(self) -> EvaluationReport:
        """Rules, then delivery. Never raises: each half's failure is logged and put in the report."""
        now = self._clock()
        report = EvaluationReport(at=now)
        for step, name in ((self._apply_rules, "rules"), (self._deliver, "delivery")):
            try:
                step(now, report)
            except Exception as exc:
                log.exception(f"alerts.{name}_failed")
                report.errors.append(f"{name}: {_short(exc)}")
        return report

    def _apply_rules(self, now: datetime, report: EvaluationReport) -> None:
        since = now - timedelta(seconds=self.thresholds.window_seconds)
        stats = self.store.stats(since, now)
        open_kinds = self.store.open_fleet_kinds()
        report.stats = stats
        report.verdicts = assess(stats, self.thresholds)
        # Only a change needs the write transaction (on SQLite, the database-wide write lock).
        todo = [
            v
            for v in report.verdicts
            if (v.state is State.FIRING) != (v.kind in open_kinds) and v.state is not State.UNKNOWN
        ]
        if not todo:
            return
        drafts = [
            AlertDraft(
                kind=v.kind,
                agent_id=None,
                message=v.message,
                details={**v.details, "observed": v.observed, "threshold": v.threshold},
                severity=v.severity,
            )
            for v in todo
            if v.state is State.FIRING
        ]
        clear = [v.kind for v in todo if v.state is State.CLEAR]
        raised, resolved = self.store.change_fleet_incidents(drafts, clear, now)
        changed: list[tuple[Event, Verdict]] = [
            ("raised" if v.kind in raised else "resolved", v)
            for v in todo
            if v.kind in raised or v.kind in resolved
        ]
        # Logged only after the commit, so the log never announces an incident the table does not hold.
        for event, v in changed:
            (report.raised if event == "raised" else report.resolved).append(v.kind)
            message = v.message if event == "raised" else f"{v.kind} cleared (now {v.observed:g})"
            self._log_sink.send(
                Notice(
                    event, None, v.kind, None, v.severity, message, now, now if event == "resolved" else None
                )
            )

    def _deliver(self, now: datetime, report: EvaluationReport) -> None:
        if not self.sinks:
            return
        policy = self.policy
        horizon = now - timedelta(seconds=policy.resolution_horizon_seconds)
        records = self.store.delivery_candidates(horizon)
        budget = {s.name: policy.per_pass_limit for s in self.sinks}
        for record in records:
            delivery = dict(record.delivery)
            for sink in self.sinks:
                if budget[sink.name] <= 0:
                    continue
                event = next_event(record, sink.name, policy.max_attempts)
                if event is None:
                    continue
                budget[sink.name] -= 1
                attempt = self._attempt(sink, record, event, delivery, now)
                report.attempts.append(attempt)
                if attempt.status != SENT:
                    budget[sink.name] = 0  # down: spare the other alerts a timeout each until next pass
            if delivery != record.delivery:
                self.store.save_delivery(record.id, delivery)
            if not any(budget.values()):
                return

    def _attempt(
        self, sink: Sink, record: AlertRecord, event: Event, delivery: dict[str, Any], now: datetime
    ) -> Attempt:
        """Send once and write the outcome into `delivery` (the caller persists it)."""
        error: str | None = None
        try:
            sink.send(_notice(record, event))
        except DeliveryError as exc:
            error = str(exc)
        except Exception as exc:  # a sink bug must not stop the other sinks or the pass
            log.exception("alert.sink_crashed", sink=sink.name, alert_id=record.id)
            error = _short(exc)
        entry = _entry(delivery, sink.name)
        max_attempts = self.policy.max_attempts
        if event == "raised":
            entry = {**_after_attempt(entry, error, now, max_attempts), **_only_resolution(entry)}
            outcome = entry
        else:
            outcome = _after_attempt(entry.get("resolution") or {}, error, now, max_attempts)
            entry["resolution"] = outcome
        delivery[sink.name] = entry
        fields = {"sink": sink.name, "alert_id": record.id, "kind": record.kind, "notice": event}
        if outcome["status"] == SENT:
            log.info("alert.delivered", **fields)
        elif outcome["status"] == GAVE_UP:
            log.error("alert.delivery_gave_up", **fields, attempts=outcome["attempts"], error=error)
        else:
            log.warning("alert.delivery_failed", **fields, attempts=outcome["attempts"], error=error)
        return Attempt(record.id, sink.name, event, outcome["status"], outcome["attempts"], error)

    # ----- operator actions -------------------------------------------------------------------------

    def list_alerts(self, *, include_resolved: bool = False, limit: int | None = None) -> list[AlertRecord]:
        return self.store.list_alerts(open_only=not include_resolved, limit=limit)

    def ack(self, alert_id: int) -> AlertRecord:
        """Mark an alert seen. It stays open until its condition clears; pending sends to sinks stop."""
        record = self.store.acknowledge(alert_id, self._clock())
        if record is None:
            raise UnknownAlert(alert_id)
        return record


def _only_resolution(entry: dict[str, Any]) -> dict[str, Any]:
    return {"resolution": entry["resolution"]} if "resolution" in entry else {}
