"""Where the memory lives and what it holds: the database, the broker and the data folder, the window and
the summary cap, pins, kept versions, and the limits on what is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_DATA_DIR = Path(".summarizer")


class MemorySettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    database_url: str = Field(
        default="", description="SQLAlchemy URL; empty means the embedded SQLite file under ./.summarizer/"
    )
    database_prepare_threshold: int | None = Field(
        default=5,
        ge=0,
        description="psycopg prepares a statement after this many runs on a connection; `none` never "
        "(needed behind PgBouncer in transaction mode, see docs/scaling.md)",
    )
    database_connect_timeout: int = Field(
        default=5,
        ge=1,
        description="Seconds PostgreSQL has to answer a new connection; then a command says so in one "
        "line and fails, a hook exits 0 (docs/configuration.md)",
    )
    database_statement_timeout: float = Field(
        default=30.0,
        ge=0,
        description="Seconds one PostgreSQL statement may run (the server's statement_timeout); 0: no "
        "limit; migrations have none",
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
