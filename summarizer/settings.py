"""Settings from the environment (prefix ``SUMMARIZER_``), validated, and never built at import time.

Call `load_settings()` where a process starts (CLI command, worker boot, test fixture) and pass the
object down; nothing in this package reads the environment on its own.
"""

from __future__ import annotations

import re
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from summarizer.domain.errors import SummarizerError
from summarizer.domain.secrets import url_password

DEFAULT_DATA_DIR = Path(".summarizer")
DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


class LLMChoice(StrEnum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    OFFLINE = "offline"
    FAKE = "fake"


class SettingsError(SummarizerError):
    """The environment holds a value that cannot be used; the message names the variable."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SUMMARIZER_", extra="ignore", frozen=True, populate_by_name=True
    )

    database_url: str = Field(
        default="", description="SQLAlchemy URL; empty means the embedded SQLite file under ./.summarizer/"
    )
    database_prepare_threshold: int | None = Field(
        default=5,
        ge=0,
        description="psycopg prepares a statement after this many runs on a connection; `none` never "
        "(needed behind PgBouncer in transaction mode, see docs/scaling.md)",
    )
    broker_url: str = Field(default="", description="Celery broker URL; empty means the embedded broker")
    data_dir: Path = Field(default=DEFAULT_DATA_DIR, description="Where embedded files live")
    window_tokens: int = Field(
        default=100_000, ge=0, description="Sliding-window budget; 0 disables eviction"
    )
    batch_size: int = Field(default=3, ge=1, description="Evicted exchanges that trigger a summary update")
    batch_max_wait: float = Field(default=900.0, ge=0, description="Seconds a smaller batch may wait")
    summary_max_tokens: int = Field(default=10_000, ge=100, description="Hard cap on a rendered summary")
    pins_max_share: float = Field(
        default=0.25,
        gt=0,
        le=0.9,
        description="Share of SUMMARIZER_SUMMARY_MAX_TOKENS an agent's pins may take (a pin past it is refused)",
    )
    now_item: Literal["auto", "on", "off"] = Field(
        default="auto",
        description='The "Now" pin (latest request, open todos) for agents that set nothing: auto (once the '
        "log holds a todo list), on, off",
    )
    keep_versions: int = Field(
        default=0, ge=0, description="Kept summary versions per agent after `versions prune`; 0 keeps all"
    )
    max_message_bytes: int = Field(default=1_048_576, ge=1, description="Largest message accepted on ingest")
    keep_raw_credentials: bool = Field(
        default=False,
        description="Store message text as it came, credentials included (API keys, tokens, passwords "
        "pasted into a conversation); by default they are masked before storage. Raw, they reach the "
        "summary, the model's prompt, recall, every view and the database (docs/secrets.md)",
    )
    follow_max_document_bytes: int = Field(
        default=67_108_864,
        ge=1,
        description="Largest JSON document log (*.json) `watch` and the hooks read; a larger one is refused",
    )
    hook_log_folders: str = Field(
        default="",
        description="More folders the hooks may read transcripts from, separated like PATH; the agents' "
        "own log folders are always allowed",
    )
    llm: LLMChoice | None = Field(
        default=None,
        description="anthropic | openai | offline | fake; unset: anthropic with ANTHROPIC_API_KEY, else offline",
    )
    model: str = Field(default=DEFAULT_MODEL, description="Anthropic model for summary updates")
    openai_model: str = Field(
        default=DEFAULT_OPENAI_MODEL,
        description="Model for summary updates with SUMMARIZER_LLM=openai (any OpenAI-compatible server)",
    )
    llm_fallback: LLMChoice | None = Field(
        default=None,
        description="anthropic | openai | offline | fake: answers while the primary provider fails "
        "with a provider-wide error (credentials, quota, overload, unreachable); unset: no fallback",
    )
    llm_fallback_cooldown: float = Field(
        default=60.0, gt=0, description="Seconds the fallback answers before the primary is probed again"
    )
    anthropic_api_key: str = Field(
        default="",
        repr=False,
        validation_alias=AliasChoices("ANTHROPIC_API_KEY"),
        description="Anthropic API key (read from `ANTHROPIC_API_KEY`)",
    )
    anthropic_base_url: str = Field(
        default="",
        validation_alias=AliasChoices("ANTHROPIC_BASE_URL"),
        description="Anthropic API base URL (read from `ANTHROPIC_BASE_URL`); empty: the public API",
    )
    openai_api_key: str = Field(
        default="",
        repr=False,
        validation_alias=AliasChoices("OPENAI_API_KEY"),
        description="API key of the OpenAI-compatible server (read from `OPENAI_API_KEY`); "
        "may stay empty for a local server that wants none",
    )
    openai_base_url: str = Field(
        default="",
        validation_alias=AliasChoices("OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible server (read from `OPENAI_BASE_URL`), "
        "e.g. http://localhost:11434/v1 for Ollama; empty: api.openai.com",
    )
    token_provider: str = Field(default="", description="Provider name passed to the token counter")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Log level of workers and beat (the CLI logs warnings and above)"
    )
    # Summary engine and LLM adapters.
    llm_timeout: float = Field(default=60.0, gt=0, description="Seconds one LLM request may take")
    llm_max_retries: int = Field(
        default=0, ge=0, le=2, description="Retries inside the LLM SDK; the worker owns real retries"
    )
    llm_max_output_tokens: int = Field(default=4_096, ge=256, description="Output token limit of an update")
    clip_message_chars: int = Field(
        default=4_000, ge=200, description="Characters of one message shown to the LLM before clipping"
    )
    item_max_chars: int = Field(default=600, ge=80, description="Longest text the gate accepts for an item")
    merge_threshold: float = Field(
        default=0.8, gt=0, le=1, description="Projected share of the cap above which the LLM may merge"
    )
    compress_threshold: float = Field(
        default=0.95, gt=0, le=1, description="Projected share of the cap above which the LLM compresses all"
    )
    breaker_threshold: int = Field(
        default=5,
        ge=1,
        description="Overload/rate-limit/5xx failures in a row that open the provider breaker",
    )
    breaker_probe_seconds: float = Field(
        default=5.0, gt=0, description="Seconds after the provider breaker opens before the first probe"
    )
    breaker_max_probe_seconds: float = Field(
        default=300.0, gt=0, description="Longest wait between two probes of an open provider breaker"
    )
    model_breaker_threshold: int = Field(
        default=3,
        ge=1,
        description="Updates in a row the offline summarizer had to fold that route an agent around its model",
    )
    model_breaker_seconds: float = Field(
        default=3_600.0, gt=0, description="How long an agent is routed around its model before a new try"
    )
    merge_model: str = Field(
        default="",
        description="A cheaper model of the same provider for merges and the older tiers (the merge and full "
        "rungs); the configured model then writes only the session tier; empty: one model for all",
    )
    prices: str = Field(
        default="",
        description="More model prices, USD per million tokens: JSON "
        '{"model": {"input": 1, "output": 5, "cache_read": 0.1, "cache_write": 1.25}} or a JSON file path; '
        "they add to or replace the shipped list prices (docs/cost.md)",
    )
    cost_budget_agent_usd: Decimal | None = Field(
        default=None,
        ge=0,
        description="Every agent's daily model budget in USD unless it has its own (`agent budget-cost`); "
        "once spent, its updates go to the offline summarizer until midnight UTC; unset: none",
    )
    cost_budget_fleet_usd: Decimal | None = Field(
        default=None,
        ge=0,
        description="The whole fleet's daily model budget in USD; once spent, every update goes to the "
        "offline summarizer until midnight UTC; unset: none",
    )
    token_counter: Literal["bytes", "anthropic"] = Field(
        default="bytes", description="bytes (estimate, no network) | anthropic (count_tokens API, cached)"
    )
    fake_llm_latency: float = Field(default=0.0, ge=0, description="Seconds the fake LLM waits per call")
    fake_llm_faults: str = Field(
        default="", description="Fake LLM faults by call number, e.g. '1:transient,3:auth,4:overloaded'"
    )
    fake_llm_outage_file: str = Field(
        default="",
        description="While this file exists every fake LLM call fails with the fault kind it names",
    )

    # Background workers (queue, retries, Celery).
    max_retries: int = Field(
        default=5, ge=0, description="Consecutive transient failures retried before an agent is parked"
    )
    retry_base_seconds: float = Field(
        default=2.0, ge=0, description="First retry delay (doubles per failure)"
    )
    retry_max_seconds: float = Field(default=300.0, ge=0, description="Longest retry delay")
    lease_seconds: float = Field(
        default=360.0, gt=0, description="How long a claimed update may run before another worker may take it"
    )
    dispatch_interval: float = Field(default=3.0, gt=0, description="Seconds between dispatcher runs (beat)")
    dispatch_limit: int = Field(default=2_000, ge=1, description="Most wake-ups one dispatcher run sends")
    max_batch_input_tokens: int = Field(
        default=60_000, ge=1, description="Token bound on the exchanges one update sends to the LLM"
    )
    max_batch_exchanges: int = Field(default=64, ge=1, description="Most exchanges folded in by one update")
    worker_pool: Literal["threads", "prefork", "solo", "gevent"] = Field(
        default="threads",
        description="Celery pool; threads/gevent hold many LLM calls in one process (gevent: the `gevent` extra)",
    )
    worker_concurrency: int = Field(default=8, ge=1, description="Concurrent updates per worker process")
    task_time_limit: float = Field(
        default=300.0, gt=0, description="Hard time limit of one task (prefork); the lease must exceed it"
    )
    aging_interval: float = Field(
        default=3_600.0, gt=0, description="Seconds between aging sweeps (each agent ages once per day)"
    )
    rescue_interval: float = Field(default=30.0, gt=0, description="Seconds between stuck-lease sweeps")

    # Monitoring.
    flower_basic_auth: str = Field(
        default="",
        repr=False,
        description="Flower's basic auth, user:password (comma-separated for several); "
        "`summarizer flower` refuses to start without it (or FLOWER_BASIC_AUTH)",
    )

    # Alerts: rules evaluated by beat, and the sinks they are delivered to.
    alert_failure_rate: float = Field(
        default=0.05, ge=0, le=1, description="Alert when this share of update runs in the window fails"
    )
    alert_min_runs: int = Field(
        default=20, ge=1, description="Fewest runs in the window before failure rate or averages can alert"
    )
    alert_avg_duration_seconds: float = Field(
        default=30.0, gt=0, description="Alert when completed updates take longer than this on average"
    )
    alert_avg_summary_tokens: int = Field(
        default=9_500, ge=1, description="Alert when updated summaries average more tokens than this"
    )
    alert_queue_depth: int = Field(
        default=50, ge=0, description="Alert when more agents than this are pending, running or parked"
    )
    alert_window: str = Field(
        default="1h", description="Window of runs the rules judge, e.g. 30m, 1h, 1d (bare number: seconds)"
    )
    alert_interval: float = Field(default=60.0, gt=0, description="Seconds between alert evaluations (beat)")
    alert_webhook_url: str = Field(
        default="",
        repr=False,
        description="POST each alert as JSON with a Slack-compatible `text`; empty disables the webhook",
    )
    alert_http_timeout: float = Field(default=10.0, gt=0, description="Seconds one webhook request may take")
    alert_smtp_host: str = Field(default="", description="SMTP server for alert mail; empty disables mail")
    alert_smtp_port: int = Field(default=587, ge=1, le=65_535, description="SMTP server port")
    alert_smtp_user: str = Field(default="", description="SMTP login; empty: send without logging in")
    alert_smtp_password: str = Field(default="", repr=False, description="SMTP password")
    alert_smtp_from: str = Field(
        default="", description="Sender address of alert mail; empty: the SMTP user, else summarizer@HOST"
    )
    alert_smtp_to: str = Field(default="", description="Recipients of alert mail, comma-separated")
    alert_smtp_starttls: bool = Field(default=True, description="Upgrade the SMTP connection with STARTTLS")
    alert_smtp_ssl: bool = Field(
        default=False, description="Connect with implicit TLS (port 465 style) instead of STARTTLS"
    )
    alert_smtp_timeout: float = Field(
        default=10.0, gt=0, description="Seconds one SMTP conversation may take"
    )
    alert_delivery_max_attempts: int = Field(
        default=5, ge=1, description="Attempts per sink to deliver one alert before giving up"
    )

    # HTTP API (`summarizer serve`).
    api_tokens: str = Field(
        default="",
        repr=False,
        description="Bearer tokens of the HTTP API and MCP, comma-separated; `token@team-a/` limits one to "
        "agent ids starting with `team-a/`, `token@team-a` to the agent `team-a` alone; `summarizer serve` "
        "refuses to start without one",
    )
    api_read_tokens: str = Field(
        default="",
        repr=False,
        description="Read-only bearer tokens of the HTTP API and MCP, in the form of SUMMARIZER_API_TOKENS: "
        "they read what their scope covers; recording messages, pins, instructions, budgets, re-queues and "
        "alert acknowledgements answer 403",
    )
    api_host: str = Field(default="127.0.0.1", description="Address `summarizer serve` listens on")
    api_port: int = Field(default=8000, ge=0, le=65_535, description="Port `summarizer serve` listens on")
    api_max_request_bytes: int = Field(
        default=16_777_216, ge=1, description="Largest request body the HTTP API accepts"
    )

    # MCP over streamable HTTP (`summarizer mcp --transport http`).
    mcp_max_sessions: int = Field(
        default=1000, ge=1, description="Open MCP sessions in all; one more is answered 503"
    )
    mcp_sessions_per_token: int = Field(
        default=32,
        ge=1,
        description="Open MCP sessions one bearer token may hold; one more is answered 429, so one token "
        "cannot fill the table the others share",
    )
    mcp_session_idle_seconds: float = Field(
        default=600.0,
        gt=0,
        le=86_400,
        description="An MCP session with no request in flight for this long is closed (the client opens "
        "a new one)",
    )

    @field_validator("alert_window")
    @classmethod
    def _check_alert_window(cls, value: str) -> str:
        from summarizer.domain.alert_rules import parse_duration

        parse_duration(value)
        return value.strip()

    @field_validator(
        "database_prepare_threshold", "cost_budget_agent_usd", "cost_budget_fleet_usd", mode="before"
    )
    @classmethod
    def _none_means_never(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in ("none", "never", "off", ""):
            return None
        return value

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, value: str) -> str:
        value = value.strip()
        for prefix in ("postgresql://", "postgres://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    def secret_values(self) -> list[str]:
        """Every configured secret: the fields kept out of `repr` (API keys, tokens, passwords, the webhook
        URL), whole and each listed token, and the password inside any URL setting."""
        found: list[str] = []
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                continue
            if not info.repr:
                found.append(value)
                for part in re.split(r"[,\s]+", value):
                    # `token@prefix`: the token is secret, the agent-id prefix is not.
                    found.append(part if "://" in part else part.split("@", 1)[0])
            password = url_password(value)
            if password:
                found.append(password)
        return found

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'summarizer.db').as_posix()}"

    @property
    def embedded_database(self) -> bool:
        return not self.database_url

    @property
    def sqlite_database(self) -> bool:
        """Whether the database is SQLite, embedded or given by an explicit `sqlite:` URL (what decides
        the beat guard and the other single-host behaviours; `embedded_database` only says who chose it)."""
        return self.resolved_database_url().startswith("sqlite")


def load_settings(**overrides: object) -> Settings:
    """Read the environment; overrides win. Raises SettingsError naming each bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "?"
            problems.append(f"SUMMARIZER_{field.upper()}: {err['msg']} (got {err.get('input')!r})")
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
