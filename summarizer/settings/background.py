"""The background side's settings: the workers and their queue (retries, leases, batches, the Celery
pool), beat's sweeps, Flower's login, and the alert rules and sinks beat evaluates and delivers to."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class BackgroundSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

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
