"""The composition root's operator side: the operators' facade (queue, stats, alerts, re-queue), the
alert service beat runs (the rules with their thresholds, a sink for each one configured), provenance
(ledger, kept versions, diff, rollback, resummarize, prune) and the fleet's Prometheus metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from summarizer.alerting.service import AlertService, DeliveryPolicy
from summarizer.alerting.sinks import Sink, SmtpConfig, SmtpSink, WebhookSink
from summarizer.composition.costs import build_costs, spent_budget
from summarizer.composition.database import build_sql_store, open_database
from summarizer.composition.workers import build_wakeup
from summarizer.domain.alert_rules import AlertThresholds, parse_duration
from summarizer.service.operations import Operations
from summarizer.service.provenance import Provenance
from summarizer.settings import Settings, SettingsError
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.metric_figures import SqlMetricsReader
from summarizer.storage.sql.stores.alert_store import SqlAlertStore
from summarizer.storage.sql.writers.breakers import SqlBreakerStore

if TYPE_CHECKING:
    from prometheus_client.core import CollectorRegistry


def build_operations(settings: Settings, db: Database | None = None) -> Operations:
    """The operators' facade (queue, stats, alerts, requeue) for the CLI and any other front end."""
    db = db or open_database(settings)
    return Operations(
        build_sql_store(db),
        build_alert_service(settings, db),
        wake=build_wakeup(settings),
        breakers=SqlBreakerStore(db),
        summary_max_tokens=settings.summary_max_tokens,
    )


def build_provenance(settings: Settings, db: Database | None = None, *, wake: bool = False) -> Provenance:
    """The provenance facade (ledger, kept versions, diff, rollback, resummarize, prune); with `wake`, a
    resummarize request wakes a worker at once."""
    db = db or open_database(settings)
    wakeup = build_wakeup(settings) if wake else None
    return Provenance(build_sql_store(db), wake=wakeup, spent_budget=spent_budget(settings, db))


def build_alert_service(settings: Settings, db: Database | None = None) -> AlertService:
    """Rules with the configured thresholds, and a sink for each one configured (webhook, SMTP)."""
    sinks: list[Sink] = []
    if settings.alert_webhook_url:
        try:
            sinks.append(WebhookSink(settings.alert_webhook_url, timeout=settings.alert_http_timeout))
        except ValueError as exc:
            raise SettingsError(f"SUMMARIZER_ALERT_WEBHOOK_URL: {exc}") from None
    if settings.alert_smtp_host:
        recipients = tuple(a.strip() for a in settings.alert_smtp_to.split(",") if a.strip())
        if not recipients:
            raise SettingsError("SUMMARIZER_ALERT_SMTP_TO: alert mail needs at least one recipient")
        config = SmtpConfig(
            host=settings.alert_smtp_host,
            recipients=recipients,
            port=settings.alert_smtp_port,
            user=settings.alert_smtp_user,
            password=settings.alert_smtp_password,
            sender=settings.alert_smtp_from,
            starttls=settings.alert_smtp_starttls,
            use_ssl=settings.alert_smtp_ssl,
            timeout=settings.alert_smtp_timeout,
        )
        sinks.append(SmtpSink(config))
    thresholds = AlertThresholds(
        failure_rate=settings.alert_failure_rate,
        avg_duration_ms=settings.alert_avg_duration_seconds * 1000,
        avg_summary_tokens=settings.alert_avg_summary_tokens,
        queue_depth=settings.alert_queue_depth,
        min_runs=settings.alert_min_runs,
        window_seconds=parse_duration(settings.alert_window),
    )
    policy = DeliveryPolicy(max_attempts=settings.alert_delivery_max_attempts)
    return AlertService(SqlAlertStore(db or open_database(settings)), thresholds, sinks, policy=policy)


def build_metrics_registry(settings: Settings, db: Database | None = None) -> CollectorRegistry:
    """The fleet's Prometheus metrics, read from the database at each scrape (`summarizer metrics` and
    the HTTP API's `GET /metrics` serve this registry)."""
    # Imported here: summarizer.metrics loads prometheus_client, which only the metrics endpoints need.
    from summarizer.metrics import build_registry

    db = db or open_database(settings)
    return build_registry(SqlMetricsReader(db), build_costs(settings, db))
