"""The composition root: the one place that reads Settings and turns them into wired objects.

`load()` is the only call of `load_settings()`; `open_database()` the only place a database is built and
brought to the current schema (every `build_*` given no database opens one through it); the storage
port's backends are chosen here and nowhere else: the database handle for the URL's scheme
(`connect_database`: SQLite or PostgreSQL), the update and operator store for that database
(`build_sql_store`: `SqliteStore` or `PostgresStore`), and the conversation and alert stores over it.
CLI commands, the HTTP API and workers ask this package for what they need; its `llm` module builds the
LLM adapter, the token counter and the engine (adapters get their own `ProviderConfig`, never Settings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from summarizer.api import Summarizer
from summarizer.domain import secrets
from summarizer.domain.tokens import TokenCounter
from summarizer.settings import Settings, load_settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.conversations import ConversationStore, StoreConfig
from summarizer.storage.sql.database import Database

if TYPE_CHECKING:
    from fastapi import FastAPI
    from prometheus_client.core import CollectorRegistry

    from summarizer.alerting.service import AlertService
    from summarizer.engine.model import Summary
    from summarizer.service.breaker import ProviderBreaker
    from summarizer.service.operations import Operations
    from summarizer.service.provenance import Provenance
    from summarizer.service.results import WorkerConfig
    from summarizer.service.steering import Steering
    from summarizer.service.update import UpdateService
    from summarizer.storage.sql.migrations import SchemaAdmin
    from summarizer.storage.sql.store import SqlStore


_loaded: list[Settings] = []


def load() -> Settings:
    """The process's settings, read from the environment (the one call of `load_settings`). Their secret
    values are registered for masking: from here on no stored, logged, alerted or served text holds them."""
    settings = load_settings()
    secrets.register(settings.secret_values())
    _loaded[:] = [settings]
    return settings


def database_outage_types() -> tuple[type[Exception], ...]:
    """The errors that mean "the database cannot be reached now" (as opposed to a bug or bad input)."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    return (OperationalError, InterfaceError)


def database_outage(exc: BaseException, settings: Settings | None = None) -> str | None:
    """One line naming the database (password masked) and why it cannot be reached, when `exc` is such an
    outage; None for any other error."""
    if not isinstance(exc, database_outage_types()):
        return None
    settings = settings or (_loaded[0] if _loaded else None)
    shown = secrets.mask_url(settings.resolved_database_url()) if settings else "the database"
    cause = getattr(exc, "orig", None) or exc
    reason = next((line.strip() for line in str(cause).splitlines() if line.strip()), type(cause).__name__)
    return f"database {shown} is unreachable: {secrets.redact(reason)}"


def wait_for_database(settings: Settings, *, max_backoff: float = 30.0) -> Database:
    """`open_database`, retried with doubling backoff while the database is unreachable (a worker or the
    HTTP server starts before its database); logged once when it is found down and once when it is back."""
    import time

    import structlog

    log = structlog.get_logger("summarizer.database")
    delay, down = 1.0, False
    while True:
        try:
            db = open_database(settings)
        except database_outage_types() as exc:
            if not down:
                log.error("database.unreachable", error=database_outage(exc, settings), retry_in=delay)
                down = True
            time.sleep(delay)  # a backoff between connection attempts, not a wait for another process
            delay = min(delay * 2, max_backoff)
            continue
        if down:
            log.warning("database.reachable_again")
        return db


def build_database(settings: Settings, *, url: str | None = None) -> Database:
    """A database handle, schema unchecked (for `summarizer db` commands, which manage the schema, and
    `doctor`, which passes the configured URL with a connect timeout as `url`)."""
    return connect_database(
        url or settings.resolved_database_url(), prepare_threshold=settings.database_prepare_threshold
    )


def build_sql_store(db: Database) -> SqlStore[Any]:
    """The storage port's update and operator store for `db`'s backend."""
    from summarizer.storage.postgres.database import PostgresDatabase
    from summarizer.storage.sqlite.database import SqliteDatabase

    if isinstance(db, PostgresDatabase):
        from summarizer.storage.postgres.store import PostgresStore

        return PostgresStore(db)
    if isinstance(db, SqliteDatabase):
        from summarizer.storage.sqlite.store import SqliteStore

        return SqliteStore(db)
    raise TypeError(f"no store for {type(db).__name__}")


def open_database(settings: Settings, *, migrate: bool | None = None) -> Database:
    """The database at the current schema. `migrate` (default: only for the embedded database) upgrades a
    schema that is behind instead of refusing to run."""
    from summarizer.storage.sql.migrations import ensure_schema

    db = build_database(settings)
    ensure_schema(db, auto_upgrade=settings.embedded_database if migrate is None else migrate)
    return db


def build_schema(settings: Settings) -> SchemaAdmin:
    """The schema of the configured database, for `summarizer db upgrade|downgrade|current`."""
    from summarizer.storage.sql.migrations import SchemaAdmin

    return SchemaAdmin(build_database(settings))


def build_token_counter(settings: Settings) -> TokenCounter:
    """The counter for window budgets and the summary cap (`SUMMARIZER_TOKEN_COUNTER`)."""
    from summarizer.composition.llm import build_token_counter as counter_from_settings

    return counter_from_settings(settings)


def build_store(settings: Settings, db: Database) -> ConversationStore:
    config = StoreConfig(
        window_tokens=settings.window_tokens,
        batch_size=settings.batch_size,
        counter=build_token_counter(settings),
        provider=settings.token_provider,
        model=settings.model,
        mask_credentials=not settings.keep_raw_credentials,
    )
    return ConversationStore(db, config)


def render_summary(summary: Summary, now: datetime) -> str:
    """The stored summary as the Markdown a host sends, with times relative to `now`."""
    from summarizer.engine.render import render_summary as render

    return render(summary, now)


def build_summarizer(settings: Settings, db: Database | None = None) -> Summarizer:
    """The host facade. With a broker configured, each armed queue row also wakes a worker at once;
    embedded, the worker's own dispatcher picks the row up within SUMMARIZER_DISPATCH_INTERVAL."""
    from summarizer.service.recall import Recall
    from summarizer.storage.sql.conversation_store import SqlConversationStore
    from summarizer.storage.sql.recall import SqlRecallStore

    db = db or open_database(settings)
    return Summarizer(
        SqlConversationStore(build_store(settings, db)),
        departed=build_provenance(settings, db).departed,
        default_budget=settings.window_tokens,
        summary_max_tokens=settings.summary_max_tokens,
        render_summary=render_summary,
        on_queued=build_wakeup(settings) if settings.broker_url else None,
        recall=Recall(SqlRecallStore(db)),
        steering=build_steering(settings, db),
    )


def build_steering(settings: Settings, db: Database | None = None) -> Steering:
    """Pins, summary instructions and the "Now" pin's switch, counted with the cap's own counter."""
    from summarizer.engine.pins import PinLimits
    from summarizer.service.steering import Steering

    counter, provider, model = build_token_counter(settings), settings.token_provider, settings.model
    return Steering(
        build_sql_store(db or open_database(settings)),
        PinLimits(settings.summary_max_tokens, settings.pins_max_share),
        lambda text: counter.count(provider, model, text.encode("utf-8")),
        mask=not settings.keep_raw_credentials,
    )


# ----- background workers (queue, update service, wake-ups) -------------------------------------------


def build_worker_config(settings: Settings) -> WorkerConfig:
    from summarizer.domain.retry import RetryPolicy
    from summarizer.service.results import WorkerConfig

    return WorkerConfig(
        batch_size=settings.batch_size,
        batch_max_wait=settings.batch_max_wait,
        max_batch_input_tokens=settings.max_batch_input_tokens,
        max_batch_exchanges=settings.max_batch_exchanges,
        lease_seconds=settings.lease_seconds,
        dispatch_limit=settings.dispatch_limit,
        now_item=settings.now_item,
        pins_max_share=settings.pins_max_share,
        retry=RetryPolicy(
            max_retries=settings.max_retries,
            base_seconds=settings.retry_base_seconds,
            max_seconds=max(settings.retry_max_seconds, settings.retry_base_seconds),
        ),
    )


def build_update_service(settings: Settings, db: Database | None = None) -> UpdateService:
    """The worker side: claim -> engine -> commit. The LLM adapter is chosen in `composition/llm.py`."""
    from summarizer.composition.costs import build_cost_budgets
    from summarizer.composition.llm import build_engine, chosen_llm
    from summarizer.llm.offline import OfflineLLM
    from summarizer.service.model_routing import ModelRouting
    from summarizer.service.update import UpdateService
    from summarizer.settings import LLMChoice

    db = db or open_database(settings)
    breaker = build_breaker(settings, db)
    if breaker is not None and settings.llm_fallback is not None:
        # The fallback answers while the primary's breaker is open: the chain consults it, and
        # updates are never paused (a failure of the fallback too is retried like any other).
        from summarizer.composition.llm import build_llm
        from summarizer.service.breaker import FleetHealth

        engine = build_engine(settings, llm=build_llm(settings, health=FleetHealth(breaker)))
        breaker = None
    else:
        engine = build_engine(settings)
    # What the model cannot fold (after the poison split) the offline summarizer folds: degrade, never drop;
    # an agent whose model keeps failing is routed to it for a while (no breaker when it is the model).
    offline = engine.with_llm(OfflineLLM())
    routing = None
    if chosen_llm(settings) is not LLMChoice.OFFLINE:
        routing = ModelRouting(settings.model_breaker_threshold, settings.model_breaker_seconds)
    return UpdateService(
        build_sql_store(db),
        engine,
        build_worker_config(settings),
        breaker=breaker,
        fallback=offline,
        routing=routing,
        budgets=build_cost_budgets(settings, db) if routing is not None else None,  # offline: free
    )


def build_breaker(settings: Settings, db: Database) -> ProviderBreaker | None:
    """The configured provider's fleet-wide circuit breaker (none for the offline summarizer, which
    calls no provider)."""
    from summarizer.composition.llm import chosen_llm
    from summarizer.service.breaker import BreakerConfig, ProviderBreaker
    from summarizer.settings import LLMChoice
    from summarizer.storage.sql.breakers import SqlBreakerStore

    choice = chosen_llm(settings)
    if choice is LLMChoice.OFFLINE:
        return None
    config = BreakerConfig(
        provider=str(choice),
        threshold=settings.breaker_threshold,
        first_probe_seconds=settings.breaker_probe_seconds,
        max_probe_seconds=max(settings.breaker_max_probe_seconds, settings.breaker_probe_seconds),
        probe_lease_seconds=settings.lease_seconds,
    )
    from summarizer.domain.clock import utcnow

    return ProviderBreaker(SqlBreakerStore(db), config, utcnow)


def build_operations(settings: Settings, db: Database | None = None) -> Operations:
    """The operators' facade (queue, stats, alerts, requeue) for the CLI and any other front end."""
    from summarizer.service.operations import Operations
    from summarizer.storage.sql.breakers import SqlBreakerStore

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
    from summarizer.composition.costs import spent_budget
    from summarizer.service.provenance import Provenance

    db = db or open_database(settings)
    wakeup = build_wakeup(settings) if wake else None
    return Provenance(build_sql_store(db), wake=wakeup, spent_budget=spent_budget(settings, db))


def build_wakeup(settings: Settings) -> Callable[[Sequence[str]], None]:
    """The `on_queued` hook for `Summarizer`: sends an update task right after an eviction commits."""
    from summarizer.broker.wakeup import CeleryWakeup

    return CeleryWakeup(settings)


# ----- alerting (rules evaluated by beat, sinks) --------------------------------------------------------


def build_alert_service(settings: Settings, db: Database | None = None) -> AlertService:
    """Rules with the configured thresholds, and a sink for each one configured (webhook, SMTP)."""
    from summarizer.alerting.service import AlertService, DeliveryPolicy
    from summarizer.alerting.sinks import Sink, SmtpConfig, SmtpSink, WebhookSink
    from summarizer.domain.alert_rules import AlertThresholds, parse_duration
    from summarizer.settings import SettingsError
    from summarizer.storage.sql.alert_store import SqlAlertStore

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


# ----- HTTP API (`summarizer serve`) --------------------------------------------------------------------


def build_http_app(settings: Settings, db: Database | None = None) -> FastAPI:
    """The HTTP API with the host facade, the operators' facade and the tokens of SUMMARIZER_API_TOKENS
    (SettingsError when there is none, checked before the database is touched). A re-queued agent gets a
    wake-up, as with `summarizer requeue`."""
    from summarizer.composition.costs import build_costs
    from summarizer.http.app import create_app
    from summarizer.http.auth import parse_api_tokens
    from summarizer.http.wiring import ApiServices, BodyLimits
    from summarizer.storage.sql.fleet_view import SqlFleetView

    tokens = parse_api_tokens(settings.api_tokens, settings.api_read_tokens)
    db = db or open_database(settings)
    wired = ApiServices(
        limits=BodyLimits(settings.api_max_request_bytes, settings.max_message_bytes),
        summarizer=build_summarizer(settings, db),
        operations=build_operations(settings, db),
        fleet=SqlFleetView(db),
        metrics=build_metrics_registry(settings, db),
        provenance=build_provenance(settings, db),
        outages=database_outage_types(),
        costs=build_costs(settings, db),
    )
    return create_app(wired, tokens)


def build_metrics_registry(settings: Settings, db: Database | None = None) -> CollectorRegistry:
    """The fleet's Prometheus metrics, read from the database at each scrape (`summarizer metrics` and
    the HTTP API's `GET /metrics` serve this registry)."""
    from summarizer.composition.costs import build_costs
    from summarizer.metrics import build_registry
    from summarizer.storage.sql.metric_figures import SqlMetricsReader

    db = db or open_database(settings)
    return build_registry(SqlMetricsReader(db), build_costs(settings, db))
