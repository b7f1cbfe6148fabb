"""The composition root's worker side (Celery workers and beat): the update service (claim, engine,
commit) with its provider breaker, fallback, model routing and cost budgets, the workers' configuration,
and the wake-up that sends a worker an update task right after a batch is queued."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from summarizer.broker.wakeup import CeleryWakeup
from summarizer.composition.costs import build_cost_budgets
from summarizer.composition.database import build_sql_store, open_database
from summarizer.composition.llm import build_engine, build_llm, chosen_llm
from summarizer.domain.clock import utcnow
from summarizer.domain.retry import RetryPolicy
from summarizer.llm.offline import OfflineLLM
from summarizer.service.breaker import BreakerConfig, FleetHealth, ProviderBreaker
from summarizer.service.model_routing import ModelRouting
from summarizer.service.results import WorkerConfig
from summarizer.service.update import UpdateService
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.writers.breakers import SqlBreakerStore


def build_worker_config(settings: Settings) -> WorkerConfig:
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
    db = db or open_database(settings)
    breaker = build_breaker(settings, db)
    if breaker is not None and settings.llm_fallback is not None:
        # The fallback answers while the primary's breaker is open: the chain consults it, and
        # updates are never paused (a failure of the fallback too is retried like any other).
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
    return ProviderBreaker(SqlBreakerStore(db), config, utcnow)


def build_wakeup(settings: Settings) -> Callable[[Sequence[str]], None]:
    """The `on_queued` hook for `Summarizer`: sends an update task right after an eviction commits (Celery
    itself is imported at the first send, not here)."""
    return CeleryWakeup(settings)
