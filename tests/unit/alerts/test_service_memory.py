"""The alert service against a dict-backed fake of `AlertStore`: incidents open and close once, no database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from summarizer.alerting.service import AlertService
from summarizer.alerting.sinks import Notice
from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.alert_rules import FAILURE_RATE_HIGH, AlertThresholds
from summarizer.domain.update_stats import UpdateStats
from summarizer.storage.port import EVENT_KINDS, AlertDraft

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class FakeAlertStore:
    """An in-memory `AlertStore`: the alerts as a list, the figures set by the test."""

    def __init__(self) -> None:
        self.records: list[AlertRecord] = []
        self.figures = UpdateStats(since=NOW, until=NOW)

    def stats(self, since: datetime, until: datetime) -> UpdateStats:
        return replace(self.figures, since=since, until=until)

    def open_fleet_kinds(self) -> set[str]:
        return {r.kind for r in self.records if r.agent_id is None and r.is_open}

    def change_fleet_incidents(
        self, raise_: Sequence[AlertDraft], resolve: Sequence[str], now: datetime
    ) -> tuple[list[str], list[str]]:
        raised = [d.kind for d in raise_ if d.kind not in self.open_fleet_kinds()]
        for d in raise_:
            if d.kind in raised:
                self.records.append(
                    AlertRecord(
                        len(self.records) + 1,
                        d.kind,
                        None,
                        d.severity,
                        d.message,
                        d.details,
                        now,
                        None,
                        None,
                        {"log": "sent"},
                    )
                )
        resolved = [k for k in resolve if k in self.open_fleet_kinds()]
        self.records = [
            replace(r, resolved_at=now) if r.kind in resolved and r.agent_id is None and r.is_open else r
            for r in self.records
        ]
        return raised, resolved

    def delivery_candidates(self, resolved_since: datetime) -> list[AlertRecord]:
        return [r for r in self.records if r.resolved_at is None or r.resolved_at >= resolved_since]

    def save_delivery(self, alert_id: int, delivery: dict[str, Any]) -> None:
        self.records = [replace(r, delivery=delivery) if r.id == alert_id else r for r in self.records]

    def list_alerts(self, *, open_only: bool, limit: int | None) -> list[AlertRecord]:
        chosen = [r for r in reversed(self.records) if r.is_open or not open_only]
        return chosen[:limit] if limit is not None else chosen

    def acknowledge(self, alert_id: int, now: datetime) -> AlertRecord | None:
        def seen(r: AlertRecord) -> AlertRecord:
            closes = r.kind in EVENT_KINDS and r.resolved_at is None
            return replace(r, acknowledged_at=now, resolved_at=now if closes else r.resolved_at)

        self.records = [
            seen(r) if r.id == alert_id and r.acknowledged_at is None else r for r in self.records
        ]
        return next((r for r in self.records if r.id == alert_id), None)


class RecordingSink:
    name = "recording"

    def __init__(self) -> None:
        self.notices: list[Notice] = []

    def send(self, notice: Notice) -> None:
        self.notices.append(notice)


def failing(store: FakeAlertStore, failed: int, completed: int) -> None:
    store.figures = UpdateStats(since=NOW, until=NOW, updates_completed=completed, updates_failed=failed)


def test_a_lasting_failure_rate_is_one_incident_raised_once_then_resolved_once() -> None:
    fake = FakeAlertStore()
    sink = RecordingSink()
    clock = iter(NOW + timedelta(minutes=i) for i in range(10))
    service = AlertService(fake, AlertThresholds(min_runs=5), [sink], clock=lambda: next(clock))

    failing(fake, failed=5, completed=5)
    first, second = service.evaluate(), service.evaluate()
    assert (first.raised, second.raised) == ([FAILURE_RATE_HIGH], [])
    [record] = service.list_alerts()
    assert record.is_open
    assert record.details["observed"] == 0.5
    assert [(n.event, n.kind) for n in sink.notices] == [("raised", FAILURE_RATE_HIGH)]

    failing(fake, failed=0, completed=10)
    cleared = service.evaluate()
    assert cleared.resolved == [FAILURE_RATE_HIGH]
    assert not cleared.errors
    assert service.list_alerts() == []
    assert [(n.event, n.kind) for n in sink.notices] == [
        ("raised", FAILURE_RATE_HIGH),
        ("resolved", FAILURE_RATE_HIGH),
    ]
    assert service.evaluate().resolved == []  # nothing open any more: nothing to resolve


def test_acknowledging_stops_delivery_of_a_raise_not_yet_sent() -> None:
    fake = FakeAlertStore()
    sink = RecordingSink()
    service = AlertService(fake, AlertThresholds(min_runs=5), clock=lambda: NOW)  # no sink yet
    failing(fake, failed=5, completed=5)
    service.evaluate()
    [record] = service.list_alerts()
    assert service.ack(record.id).acknowledged_at == NOW
    AlertService(fake, AlertThresholds(min_runs=5), [sink], clock=lambda: NOW).evaluate()
    assert sink.notices == []
