"""The composition root's host side: what an agent host talks to. The Python facade (`build_summarizer`,
with its recall, steering and summary rendering), which the MCP server and the framework integrations
(summarizer/integrations) are built over, and the HTTP API `summarizer serve` runs."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from summarizer.api import Summarizer
from summarizer.composition.costs import build_costs
from summarizer.composition.database import build_sql_store, build_store, database_outage_types, open_database
from summarizer.composition.environment import load
from summarizer.composition.llm import build_token_counter
from summarizer.composition.operators import build_metrics_registry, build_operations, build_provenance
from summarizer.composition.workers import build_wakeup
from summarizer.domain import secrets
from summarizer.engine.model import Summary
from summarizer.engine.pins import PinLimits
from summarizer.engine.render import render_summary as render
from summarizer.service.recall import Recall
from summarizer.service.steering import Steering
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.fleet_view import SqlFleetView
from summarizer.storage.sql.readers.recall import SqlRecallStore

if TYPE_CHECKING:
    from fastapi import FastAPI


def render_summary(summary: Summary, now: datetime) -> str:
    """The stored summary as the Markdown a host sends, with times relative to `now`."""
    return render(summary, now)


def build_summarizer(settings: Settings | None = None, db: Database | None = None) -> Summarizer:
    """The host facade. Without `settings`, the process's settings are loaded through `load()` (their
    secrets registered for masking). With a broker configured, each armed queue row also wakes a worker at
    once; embedded, the worker's own dispatcher picks the row up within SUMMARIZER_DISPATCH_INTERVAL."""
    if settings is None:
        settings = load()
    db = db or open_database(settings)
    return Summarizer(
        build_store(settings, db),
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
    counter, provider, model = build_token_counter(settings), settings.token_provider, settings.model
    return Steering(
        build_sql_store(db or open_database(settings)),
        PinLimits(settings.summary_max_tokens, settings.pins_max_share),
        lambda text: counter.count(provider, model, text.encode("utf-8")),
        mask=not settings.keep_raw_credentials,
    )


def build_http_app(settings: Settings, db: Database | None = None) -> FastAPI:
    """The HTTP API with the host facade, the operators' facade and the tokens of SUMMARIZER_API_TOKENS
    (SettingsError when there is none, checked before the database is touched). A re-queued agent gets a
    wake-up, as with `summarizer requeue`."""
    # Imported here: summarizer.http loads FastAPI (and the metrics prometheus_client), which only
    # `summarizer serve` and the tests of the API need; every other command starts without them.
    from summarizer.http.app import create_app
    from summarizer.http.auth import parse_api_tokens
    from summarizer.http.wiring import ApiServices, BodyLimits

    tokens = parse_api_tokens(settings.api_tokens, settings.api_read_tokens)
    secrets.register(settings.secret_values())  # the server's own tokens are masked in all it stores
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
