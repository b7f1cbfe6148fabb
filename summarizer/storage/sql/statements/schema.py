"""The tables. Alembic migrations must produce exactly this (a test diffs them on both databases)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)

from summarizer.storage.sql.statements.types import (
    BigId,
    Json,
    OptionalJson,
    RedactedJson,
    RedactedText,
    UTCDateTime,
)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)

agents = Table(
    "agents",
    metadata,
    Column("id", String(200), primary_key=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("parent_id", String(200), nullable=True),
    Column("window_budget", Integer, nullable=True, comment="per-agent override of SUMMARIZER_WINDOW_TOKENS"),
    # Running totals: the window is preamble + exchanges window_start..last_exchange.
    Column("preamble_tokens", Integer, nullable=False),
    Column("window_tokens", Integer, nullable=False),
    Column("next_message_seq", Integer, nullable=False),
    Column("last_exchange", Integer, nullable=False),
    Column("window_start", Integer, nullable=False),
    Column("current_complete", Boolean, nullable=False),
    Column("current_tool_calls", Json, nullable=False),
    Column("last_created_at", UTCDateTime(), nullable=True),
    # Evicted exchanges not yet folded into the summary, and since when (wall clock) the oldest has waited.
    Column("unsummarized", Integer, nullable=False),
    Column("unsummarized_since", UTCDateTime(), nullable=True),
    Column(
        "rebuild_requested_at",
        UTCDateTime(),
        nullable=True,
        comment="set by `resummarize`: the next update rebuilds the summary from the stored history",
    ),
    # Steering (migration 0016): the operator's words added to what the model is asked, and the agent's
    # own choice for the "Now" pin (NULL: SUMMARIZER_NOW_ITEM decides). Pins live in `summaries.items`.
    Column("summary_instructions", Text, nullable=True),
    Column("now_item", Boolean, nullable=True),
    # Cost (migration 0017): the agent's own daily budget in micro-dollars (NULL: the default setting).
    Column("cost_budget_micros", BigInteger, nullable=True),
    # Source (migration 0018): the front end that created the agent (watch | ingest | hook | api; NULL:
    # created before 0018) and the log file it came from (domain/agent_source.py).
    Column("source", String(20), nullable=True),
    Column("source_path", String(1000), nullable=True),
    Column("source_format", String(20), nullable=True),
    Index(None, "unsummarized_since"),
)

AGENT_ACTIVITY = func.coalesce(agents.c.last_created_at, agents.c.created_at)
"""An agent's last activity: its newest message's time, else when it was created."""
# `summarizer agents` pages by last activity (migration 0018): one index range per page.
Index("ix_agents_activity", AGENT_ACTIVITY, agents.c.id)

TODO_CALLS = "kind = 'tool_call' AND name IN ('TodoWrite', 'update_plan', 'write_todos')"
"""The todo-list tool calls the "Now" pin reads (engine/now_item.py's TODO_TOOLS), as the predicate of their
partial index (migration 0016) and of the lookup that uses it (storage/sql/writers/steering.py)."""

messages = Table(
    "messages",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("exchange_id", Integer, nullable=True, comment="NULL: the agent's preamble"),
    Column("kind", String(20), nullable=False),
    Column("content", Text, nullable=False),
    Column("tool_call_id", String(200), nullable=True),
    Column("name", String(200), nullable=True),
    Column("input", OptionalJson, nullable=True),
    Column("is_error", Boolean, nullable=True),
    Column("continues_exchange", Boolean, nullable=False),
    Column("tokens", Integer, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("host_id", String(200), nullable=True),
    UniqueConstraint("agent_id", "host_id"),
    Index(None, "agent_id", "exchange_id"),
    # The newest todo-list call of an agent in one index probe, however long its log (the "Now" pin).
    Index(
        "ix_messages_todo_calls",
        "agent_id",
        "seq",
        postgresql_where=text(TODO_CALLS),
        sqlite_where=text(TODO_CALLS),
    ),
    # Whether a message is in the window is not stored here: it is (exchange_id IS NULL or exchange_id >=
    # agents.window_start), and when it left is its exchange's evicted_at. Eviction writes no message row.
)

exchanges = Table(
    "exchanges",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("id", Integer, primary_key=True, autoincrement=False, comment="1, 2, 3... within the agent"),
    Column("first_seq", Integer, nullable=False),
    Column("last_seq", Integer, nullable=False),
    Column("message_count", Integer, nullable=False),
    Column("tokens", Integer, nullable=False),
    Column("title", String(200), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("ended_at", UTCDateTime(), nullable=False),
    Column("completed", Boolean, nullable=False),
    Column("evicted_at", UTCDateTime(), nullable=True),
    Column("evict_reason", String(20), nullable=True),
    Column("summarized_in_version", Integer, nullable=True),
)

summary_update_queue = Table(
    "summary_update_queue",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("state", String(10), nullable=False, comment="pending | running | idle | failed"),
    Column("priority", Integer, nullable=False),
    Column("queued_at", UTCDateTime(), nullable=False),
    Column("available_at", UTCDateTime(), nullable=False),
    Column("lease_expires_at", UTCDateTime(), nullable=True),
    Column("claim_token", String(64), nullable=True),
    Column("attempts", Integer, nullable=False),
    Column("consecutive_failures", Integer, nullable=False),
    Column("dirty", Boolean, nullable=False, comment="new work arrived while running"),
    Column("last_error", RedactedText(), nullable=True),
    Column("updated_at", UTCDateTime(), nullable=False),
    Index(None, "state", "available_at"),
    # Pending rows in claim order: a claim reads one entry (storage/sql/writers/queue.py, _due_rows).
    Index(
        "ix_summary_update_queue_pending_due",
        "priority",
        "available_at",
        "agent_id",
        postgresql_where=text("state = 'pending'"),
        sqlite_where=text("state = 'pending'"),
    ),
)

summaries = Table(
    "summaries",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("items", Json, nullable=False),
    Column("token_count", Integer, nullable=False),
    Column("covered_through_exchange_id", Integer, nullable=True),
    Column("last_aged_on", Date, nullable=True),
    Column("updated_at", UTCDateTime(), nullable=False),
)

summary_runs = Table(
    "summary_runs",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("agent_id", String(200), nullable=False),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("finished_at", UTCDateTime(), nullable=False),
    Column("duration_ms", Integer, nullable=False),
    Column("worker", String(200), nullable=True),
    Column("from_version", Integer, nullable=True),
    Column("to_version", Integer, nullable=True),
    Column("exchange_count", Integer, nullable=False),
    Column("first_exchange_id", Integer, nullable=True),
    Column("last_exchange_id", Integer, nullable=True),
    Column("path", String(20), nullable=True),
    Column("llm_input_tokens", Integer, nullable=False),
    Column("llm_output_tokens", Integer, nullable=False),
    Column("llm_cache_read_tokens", Integer, nullable=False, server_default="0"),
    Column("llm_cache_write_tokens", Integer, nullable=False, server_default="0"),
    Column("summary_tokens", Integer, nullable=True),
    Column("truncated", Boolean, nullable=False),
    Column("tokens_before_cap", Integer, nullable=True),
    Column("outcome", String(20), nullable=False),
    Column("error", RedactedText(), nullable=True),
    Column("model", String(200), nullable=True, comment="the model that answered (NULL: before 0017)"),
    Index(None, "finished_at"),
    Index(None, "agent_id", "finished_at"),
)

alerts = Table(
    "alerts",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("kind", String(50), nullable=False),
    Column("agent_id", String(200), nullable=True),
    Column("severity", String(20), nullable=False),
    Column("message", RedactedText(), nullable=False),
    Column("details", RedactedJson(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("resolved_at", UTCDateTime(), nullable=True),
    Column("acknowledged_at", UTCDateTime(), nullable=True),
    Column("delivery", Json, nullable=False),
    Index(None, "kind", "agent_id", "resolved_at"),
    Index(None, "agent_id", "resolved_at"),  # an agent's open alerts (migration 0018)
)

# The LLM provider's circuit breaker, one row per provider, shared by every worker of the fleet: while it
# is open no update calls the provider (one probe at a time, every probe_at, with backoff).
provider_breakers = Table(
    "provider_breakers",
    metadata,
    Column("provider", String(50), primary_key=True),
    Column("state", String(10), nullable=False),  # closed | open
    Column("fault", String(20), nullable=True),
    Column("last_error", RedactedText(), nullable=True),
    Column("opened_at", UTCDateTime(), nullable=True),
    Column("probe_at", UTCDateTime(), nullable=True),
    Column("probe_until", UTCDateTime(), nullable=True, comment="a half-open probe's lease"),
    Column("backoff_seconds", Float, nullable=False),
    Column("probes", Integer, nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
)

summary_versions = Table(
    "summary_versions",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("items", Json, nullable=False),
    Column("token_count", Integer, nullable=False),
    Column("covered_through_exchange_id", Integer, nullable=True),
    Column("made_by", String(20), nullable=False, comment="update | aging | rollback | resummarize"),
    Column("run_path", String(20), nullable=True, comment="the ladder rung of the update that made it"),
    Column("worker", String(200), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
)

exchange_drops = Table(
    "exchange_drops",
    metadata,
    Column("agent_id", String(200), ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True),
    Column("exchange_id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, primary_key=True, autoincrement=False, comment="the version that forgot it"),
    Column("reason", String(20), nullable=False, comment="model | cap | aging | unsummarizable | rollback"),
    Column("item_id", String(100), nullable=True),
    Column("detail", Text, nullable=False),
    Column("dropped_at", UTCDateTime(), nullable=False),
)

# Agent log files `summarizer watch` follows: how far each has been recorded. The offset moves in the
# transaction that records the lines before it, so a restart neither loses nor repeats a line.
followed_files = Table(
    "followed_files",
    metadata,
    Column("path", String(1000), primary_key=True),
    Column("format", String(20), nullable=False),
    Column("file_id", String(100), nullable=False, comment="device:inode when the offset was taken"),
    Column(
        "head", String(64), nullable=False, comment="sha256 of the file's first bytes (a rewrite changes it)"
    ),
    Column("offset", BigId, nullable=False, comment="bytes recorded: the next read starts here"),
    Column("state", Json, nullable=False, comment="the reader's state at the offset (ids, times, session)"),
    Column("updated_at", UTCDateTime(), nullable=False),
)

# ----- full-text search (migration 0009): kept by each database's own engine, outside this metadata -----
SEARCH_OBJECTS = frozenset({"search_document", "ix_messages_search", "message_search"})
"""PostgreSQL's generated `messages.search_document` and its GIN index; SQLite's FTS5 `message_search`
(whose shadow tables are named `message_search_*`)."""


def compared(name: str | None, type_: str, parent_names: object) -> bool:
    """Alembic's `include_name` hook: the schema comparison leaves the search objects out."""
    if name is None:
        return True
    return name not in SEARCH_OBJECTS and not name.startswith("message_search_")
