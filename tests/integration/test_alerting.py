"""Alert evaluation on both databases: incidents, sinks on local servers, retries, the worker's alert, ack."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select
from structlog.testing import capture_logs

from summarizer.alerting.service import AlertService, DeliveryPolicy, UnknownAlert
from summarizer.alerting.sinks import DeliveryError, Notice, Sink, SmtpConfig, SmtpSink, WebhookSink
from summarizer.composition import build_sql_store
from summarizer.domain.alert_rules import FAILURE_RATE_HIGH, QUEUE_DEPTH_HIGH, AlertThresholds, State
from summarizer.domain.retry import RetryPolicy
from summarizer.engine.ports import LLMPermanentError
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, summary_update_queue
from summarizer.storage.sql.stores.alert_store import SqlAlertStore
from summarizer.storage.sql.writers import alerts
from summarizer.storage.sql.writers.alerts import AlertRecord
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import SUMMARY_UPDATES_FAILING, RunRecord
from tests.support.fake_smtp import FakeSmtpServer, fake_smtp_server
from tests.support.fake_webhook import fake_webhook
from tests.support.rows import insert_queued_agent
from tests.support.workload import fake_engine, feed, make_store


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def alert_service(
    db: Database, clock: Clock, sinks: Sequence[Sink] = (), *, max_attempts: int = 5, **limits: Any
) -> AlertService:
    thresholds = AlertThresholds(**{"queue_depth": 2, "min_runs": 4, "window_seconds": 3_600, **limits})
    return AlertService(
        SqlAlertStore(db), thresholds, sinks, policy=DeliveryPolicy(max_attempts=max_attempts), clock=clock
    )


def backlog(db: Database, pending: int, now: datetime) -> None:
    """Exactly `pending` agents waiting in the queue."""
    with db.write() as conn:
        conn.execute(delete(summary_update_queue))
        known = set(conn.execute(select(agents.c.id)).scalars())
        for n in range(pending):
            agent_id = f"queued-{n}"
            insert_queued_agent(conn, agent_id, state="pending", now=now, new_agent=agent_id not in known)


def runs(db: Database, now: datetime, ok: int, failed: int = 0) -> None:
    with db.write() as conn:
        for n in range(ok + failed):
            finished = now - timedelta(minutes=1)
            record_run(
                conn,
                RunRecord(
                    agent_id="a",
                    started_at=finished - timedelta(seconds=2),
                    finished_at=finished,
                    outcome="ok" if n < ok else "retry",
                    path="append" if n < ok else None,
                    summary_tokens=1_000 if n < ok else None,
                ),
            )


def only(records: list[AlertRecord]) -> AlertRecord:
    assert len(records) == 1, records
    return records[0]


def smtp_sink(server: FakeSmtpServer, **overrides: Any) -> SmtpSink:
    config: dict[str, Any] = {
        "host": server.host,
        "port": server.port,
        "recipients": ("ops@example.com", "oncall@example.com"),
        "sender": "summarizer@example.com",
        "starttls": False,
        "timeout": 5.0,
        **overrides,
    }
    return SmtpSink(SmtpConfig(**config))


def dead_url() -> str:
    """An http URL on a port nothing listens on: connection refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def test_one_alert_per_incident_resolved_when_clear_then_a_new_incident(db: Database) -> None:
    clock = Clock()
    svc = alert_service(db, clock)
    backlog(db, 3, clock.now)
    with capture_logs() as logs:
        first = svc.evaluate()
    assert first.errors == []
    assert first.raised == [QUEUE_DEPTH_HIGH]
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["alert.raised"]
    for _ in range(3):
        clock.advance(60)
        assert svc.evaluate().raised == []
    alert = only(svc.list_alerts())
    assert (alert.kind, alert.agent_id, alert.severity) == (QUEUE_DEPTH_HIGH, None, "warning")
    assert alert.details["observed"] == 3
    assert alert.details["threshold"] == 2

    backlog(db, 2, clock.now)  # not above the threshold any more
    clock.advance(60)
    assert svc.evaluate().resolved == [QUEUE_DEPTH_HIGH]
    assert svc.list_alerts() == []
    assert svc.evaluate().resolved == []

    backlog(db, 5, clock.now)
    clock.advance(60)
    assert svc.evaluate().raised == [QUEUE_DEPTH_HIGH]
    newest, older = svc.list_alerts(include_resolved=True)
    assert newest.id != older.id
    assert newest.is_open
    assert older.resolved_at == clock.now - timedelta(seconds=60)


def test_failure_rate_waits_for_its_sample_and_an_empty_window_keeps_the_incident(db: Database) -> None:
    clock = Clock()
    svc = alert_service(db, clock)
    runs(db, clock.now, ok=0, failed=1)
    report = svc.evaluate()
    assert {v.kind: v.state for v in report.verdicts}[FAILURE_RATE_HIGH] is State.UNKNOWN
    assert report.raised == []

    runs(db, clock.now, ok=3)  # 1 failure in 4 runs: 25% > 5%
    assert svc.evaluate().raised == [FAILURE_RATE_HIGH]
    assert only(svc.list_alerts()).severity == "critical"

    clock.advance(2 * 3_600)  # every run is now outside the window: no verdict, the incident stays open
    quiet = svc.evaluate()
    assert quiet.resolved == []
    assert only(svc.list_alerts()).kind == FAILURE_RATE_HIGH

    runs(db, clock.now, ok=4)
    assert svc.evaluate().resolved == [FAILURE_RATE_HIGH]
    assert svc.list_alerts() == []


def test_webhook_gets_a_slack_text_once_per_incident_and_a_resolution(db: Database) -> None:
    clock = Clock()
    with fake_webhook() as hook:
        svc = alert_service(db, clock, [WebhookSink(hook.url, timeout=5)])
        backlog(db, 3, clock.now)
        report = svc.evaluate()
        (post,) = hook.wait_for(1)
        assert post["text"].startswith("[summarizer] WARNING #")
        assert QUEUE_DEPTH_HIGH in post["text"]
        assert "3 agents" in post["text"]
        assert post["alert"]["event"] == "raised"
        assert post["alert"]["kind"] == QUEUE_DEPTH_HIGH
        assert hook.headers[0]["Content-Type"] == "application/json"
        assert [(a.sink, a.event, a.status) for a in report.attempts] == [("webhook", "raised", "sent")]
        delivery = only(svc.list_alerts()).delivery
        assert delivery["log"] == "sent"
        assert delivery["webhook"]["status"] == "sent"
        assert delivery["webhook"]["attempts"] == 1

        for _ in range(2):
            clock.advance(60)
            assert svc.evaluate().attempts == []
        assert len(hook.posts) == 1

        backlog(db, 0, clock.now)
        clock.advance(60)
        svc.evaluate()
        resolution = hook.wait_for(2)[1]
        assert resolution["text"].startswith("[summarizer] RESOLVED #")
        assert resolution["alert"]["event"] == "resolved"
        assert resolution["alert"]["resolved_at"] is not None
        record = only(svc.list_alerts(include_resolved=True))
        assert record.delivery["webhook"]["resolution"]["status"] == "sent"
        assert svc.evaluate().attempts == []
        assert len(hook.posts) == 2


def test_mail_goes_out_over_smtp_with_a_login(db: Database) -> None:
    clock = Clock()
    with fake_smtp_server(credentials=("alerts", "s3cret")) as server:
        sink = smtp_sink(server, user="alerts", password="s3cret")
        svc = alert_service(db, clock, [sink])
        backlog(db, 3, clock.now)
        svc.evaluate()
        (mail,) = server.wait_for(1)
    assert mail.login == ("alerts", "s3cret")
    assert mail.sender == "summarizer@example.com"
    assert mail.recipients == ("ops@example.com", "oncall@example.com")
    assert QUEUE_DEPTH_HIGH in str(mail.message["Subject"])
    assert "WARNING" in str(mail.message["Subject"])
    body = mail.message.get_content()
    assert "3 agents queued, running or parked" in body
    assert '"threshold": 2' in body
    assert only(svc.list_alerts()).delivery["email"]["status"] == "sent"


def test_a_failing_webhook_is_retried_on_later_evaluations_and_never_raises(db: Database) -> None:
    clock = Clock()
    with fake_webhook() as hook:
        hook.status = 500
        svc = alert_service(db, clock, [WebhookSink(hook.url, timeout=5)])
        backlog(db, 3, clock.now)
        report = svc.evaluate()
        assert report.errors == []
        (attempt,) = report.attempts
        assert (attempt.status, attempt.attempts) == ("failed", 1)
        assert attempt.error is not None
        assert attempt.error.startswith("HTTP 500")
        entry = only(svc.list_alerts()).delivery["webhook"]
        assert (entry["status"], entry["attempts"]) == ("failed", 1)
        assert entry["error"].startswith("HTTP 500")

        clock.advance(60)
        assert [a.status for a in svc.evaluate().attempts] == ["failed"]
        hook.status = 200
        clock.advance(60)
        assert [(a.status, a.attempts) for a in svc.evaluate().attempts] == [("sent", 3)]
        entry = only(svc.list_alerts()).delivery["webhook"]
        assert (entry["status"], entry["attempts"]) == ("sent", 3)
        assert "error" not in entry
        assert svc.evaluate().attempts == []
        assert len(hook.wait_for(3)) == 3


def test_a_dead_endpoint_gives_up_after_max_attempts_while_mail_still_goes_out(db: Database) -> None:
    clock = Clock()
    url = dead_url()
    with fake_smtp_server() as server:
        svc = alert_service(db, clock, [WebhookSink(url, timeout=5), smtp_sink(server)], max_attempts=2)
        backlog(db, 3, clock.now)
        first = svc.evaluate()
        assert {a.sink: a.status for a in first.attempts} == {"webhook": "failed", "email": "sent"}
        server.wait_for(1)
        webhook_error = next(a.error for a in first.attempts if a.sink == "webhook")
        assert webhook_error is not None
        assert "Connection" in webhook_error or "refused" in webhook_error
        assert url not in webhook_error
        clock.advance(60)
        with capture_logs() as logs:
            assert [(a.sink, a.status) for a in svc.evaluate().attempts] == [("webhook", "gave_up")]
        assert "alert.delivery_gave_up" in [e["event"] for e in logs]
        clock.advance(60)
        assert svc.evaluate().attempts == []
        assert only(svc.list_alerts()).delivery["webhook"]["attempts"] == 2
        assert len(server.mails) == 1


def test_a_sink_that_is_down_costs_one_attempt_per_evaluation(db: Database) -> None:
    clock = Clock()
    backlog(db, 3, clock.now)
    with db.write() as conn:
        for agent_id in ("x", "y"):
            alerts.raise_once(
                conn,
                kind=SUMMARY_UPDATES_FAILING,
                agent_id=agent_id,
                message=f"summary updates for agent {agent_id!r} are parked",
                details={},
                now=clock.now,
            )
    with fake_webhook() as hook:
        hook.status = 503
        svc = alert_service(db, clock, [WebhookSink(hook.url, timeout=5)])
        assert len(svc.evaluate().attempts) == 1
        hook.status = 200
        clock.advance(60)
        sent = svc.evaluate().attempts
        assert [a.status for a in sent] == ["sent", "sent", "sent"]
        assert len(hook.wait_for(4)) == 4  # the failed attempt, then three deliveries


class CrashingSink:
    """A sink with a bug: it raises something other than DeliveryError."""

    name = "crashing"

    def send(self, notice: Notice) -> None:
        raise RuntimeError("sink bug")


class RecordingSink:
    name = "recording"

    def __init__(self) -> None:
        self.notices: list[Notice] = []

    def send(self, notice: Notice) -> None:
        if notice.kind == "explode":
            raise DeliveryError("refused")
        self.notices.append(notice)


def test_a_crashing_sink_is_recorded_as_a_failure_and_the_other_sinks_still_deliver(db: Database) -> None:
    clock = Clock()
    recording = RecordingSink()
    svc = alert_service(db, clock, [CrashingSink(), recording])
    backlog(db, 3, clock.now)
    with capture_logs() as logs:
        report = svc.evaluate()
    assert report.errors == []
    assert "alert.sink_crashed" in [e["event"] for e in logs]
    assert {a.sink: a.status for a in report.attempts} == {"crashing": "failed", "recording": "sent"}
    assert [n.kind for n in recording.notices] == [QUEUE_DEPTH_HIGH]
    delivery = only(svc.list_alerts()).delivery
    assert delivery["crashing"]["error"] == "RuntimeError: sink bug"


def test_an_unusable_database_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "not-a-file.db").mkdir()  # SQLite cannot open a directory: every query fails at once
    db = connect_database(f"sqlite:///{(tmp_path / 'not-a-file.db').as_posix()}")
    try:
        with capture_logs() as logs:
            report = AlertService(SqlAlertStore(db), sinks=[RecordingSink()]).evaluate()
    finally:
        db.dispose()
    assert [e.split(":")[0] for e in report.errors] == ["rules", "delivery"]
    assert [e["event"] for e in logs] == ["alerts.rules_failed", "alerts.delivery_failed"]
    assert report.verdicts == []


def test_the_workers_per_agent_alert_is_delivered_and_its_resolution_too(db: Database) -> None:
    feed(make_store(db), "bot", 6)
    config = WorkerConfig(batch_size=3, retry=RetryPolicy(max_retries=2, base_seconds=1, max_seconds=4))
    failing = UpdateService(
        build_sql_store(db), fake_engine(FakeLLM([LLMPermanentError("bad request")])), config
    )
    assert failing.run("bot").outcome is Outcome.PARKED
    clock = Clock()
    clock.advance(30)
    with fake_webhook() as hook:
        svc = alert_service(db, clock, [WebhookSink(hook.url, timeout=5)])
        svc.evaluate()
        (post,) = hook.wait_for(1)
        assert post["alert"]["kind"] == SUMMARY_UPDATES_FAILING
        assert post["alert"]["agent_id"] == "bot"
        assert post["alert"]["severity"] == "critical"
        assert "for agent bot" in post["text"]
        assert "bad request" in post["text"]

        healthy = UpdateService(build_sql_store(db), fake_engine(), config)
        assert healthy.requeue("bot") == "failed"
        assert healthy.run("bot").outcome is Outcome.OK  # the worker resolves its own alert
        clock.advance(60)
        svc.evaluate()
        resolution = hook.wait_for(2)[1]
        assert resolution["alert"]["event"] == "resolved"
        assert resolution["alert"]["agent_id"] == "bot"


def test_ack_marks_an_alert_seen_and_stops_sends_still_owed(db: Database) -> None:
    clock = Clock()
    backlog(db, 3, clock.now)
    alert_service(db, clock).evaluate()
    alert = only(alert_service(db, clock).list_alerts())
    clock.advance(5)
    acked = alert_service(db, clock).ack(alert.id)
    assert acked.acknowledged_at == clock.now
    assert acked.is_open  # acknowledged is not resolved: the condition still holds
    clock.advance(5)
    assert alert_service(db, clock).ack(alert.id).acknowledged_at == clock.now - timedelta(seconds=5)
    with pytest.raises(UnknownAlert, match="no alert with id 999999"):
        alert_service(db, clock).ack(999_999)

    recording = RecordingSink()
    assert alert_service(db, clock, [recording]).evaluate().attempts == []
    assert recording.notices == []
    assert only(alert_service(db, clock).list_alerts()).acknowledged_at is not None


def test_secrets_in_an_alert_message_are_masked_before_they_leave(db: Database) -> None:
    clock = Clock()
    with db.write() as conn:
        alerts.raise_once(
            conn,
            kind=SUMMARY_UPDATES_FAILING,
            agent_id="bot",
            message="parked: ConnectionError for postgresql://app:hunter2@db/x",
            details={"error": "key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"},
            now=clock.now,
        )
    with fake_webhook() as hook:
        alert_service(db, clock, [WebhookSink(hook.url, timeout=5)]).evaluate()
        (post,) = hook.wait_for(1)
    assert "hunter2" not in str(post)
    assert "sk-ant-api03" not in str(post)


def test_mail_is_not_sent_in_the_clear_when_starttls_is_missing_and_refusals_are_retried(
    db: Database,
) -> None:
    clock = Clock()
    backlog(db, 3, clock.now)
    with fake_smtp_server() as server:  # offers no STARTTLS
        insisting = alert_service(db, clock, [smtp_sink(server, starttls=True)])
        (attempt,) = insisting.evaluate().attempts
        assert attempt.status == "failed"
        assert attempt.error is not None
        assert "STARTTLS" in attempt.error
        server.refuse_mail_with = "451 try again later"
        clock.advance(60)
        plain = alert_service(db, clock, [smtp_sink(server)])
        (refused,) = plain.evaluate().attempts
        assert (refused.status, refused.attempts) == ("failed", 2)
        assert refused.error is not None
        assert "451" in refused.error
        server.refuse_mail_with = None
        clock.advance(60)
        assert [a.status for a in plain.evaluate().attempts] == ["sent"]
        assert len(server.wait_for(1)) == 1
