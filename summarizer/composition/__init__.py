"""The composition root: the one place that reads Settings and turns them into wired objects.

CLI commands, the HTTP API, the MCP server, the framework integrations and the workers ask this package
for what they need; each module builds one side of the system:

- `environment`: `load()`, the only call of `load_settings()` (a process's settings, their secrets
  registered for masking);
- `database`: the database handle for the URL's scheme (SQLite or PostgreSQL), `open_database()` (the
  only place a database is brought to the current schema; every `build_*` given no database opens one
  through it), the storage port's store for the backend, the conversation store, database outages;
- `hosts`: the Python facade `build_summarizer()` (without settings it loads them through `load()`),
  steering, and the HTTP app;
- `workers`: the update service, its breaker and configuration, the wake-up sent to a worker;
- `operators`: the operators' facade, alerts, provenance and metrics;
- `llm`, `costs`, `timeouts`, `follow`, `fleet`: the LLM adapter, token counter and engine (adapters get
  their own `ProviderConfig`, never Settings), prices and budgets, database timeouts, log followers, the
  fleet listing.

This module only re-exports the names callers import from `summarizer.composition`.
"""

from summarizer.composition.database import (
    build_database,
    build_schema,
    build_sql_store,
    build_store,
    database_outage,
    database_outage_types,
    open_database,
    wait_for_database,
)
from summarizer.composition.environment import load
from summarizer.composition.hosts import build_http_app, build_steering, build_summarizer, render_summary
from summarizer.composition.llm import build_token_counter
from summarizer.composition.operators import (
    build_alert_service,
    build_metrics_registry,
    build_operations,
    build_provenance,
)
from summarizer.composition.workers import (
    build_breaker,
    build_update_service,
    build_wakeup,
    build_worker_config,
)

__all__ = [
    "build_alert_service",
    "build_breaker",
    "build_database",
    "build_http_app",
    "build_metrics_registry",
    "build_operations",
    "build_provenance",
    "build_schema",
    "build_sql_store",
    "build_steering",
    "build_store",
    "build_summarizer",
    "build_token_counter",
    "build_update_service",
    "build_wakeup",
    "build_worker_config",
    "database_outage",
    "database_outage_types",
    "load",
    "open_database",
    "render_summary",
    "wait_for_database",
]
