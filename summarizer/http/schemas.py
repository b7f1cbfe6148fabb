"""The documents of the HTTP API as Pydantic models: they make `/openapi.json` and check each answer.

The host documents are the ones `summarizer context|summary|history --json` print (built by the same
functions in `summarizer.views`); the operator documents are those of `queue|stats|alerts --json`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from summarizer.domain.kinds import KIND_NAMES

KindName = Literal[
    "system",
    "user",
    "assistant",
    "tool_call",
    "tool_result",
    "tool",
    "clear",
    "mark",
    "rewind",
    "agent_killed",
    "command",
    "fork",
]
assert set(KindName.__args__) == set(KIND_NAMES), "KindName must list every message kind"  # type: ignore[attr-defined]


class Document(BaseModel):
    """Answers may gain fields; clients should ignore the ones they do not know."""

    model_config = ConfigDict(extra="allow")


class Problem(BaseModel):
    """An error: `detail` is the whole message; for bad input, `where` and `reason` are its parts."""

    detail: Any
    where: str | None = None
    reason: str | None = None


Responses = dict[int | str, dict[str, Any]]
"""The error answers a route documents (its `responses=`), by status."""


def problem(description: str) -> dict[str, Any]:
    """One documented error answer: a `Problem` document, and when it comes."""
    return {"model": Problem, "description": description}


AUTH_ERRORS: Responses = {
    401: problem("Missing or invalid bearer token"),
    403: problem("The token is limited to other agents"),
}
"""What every agent route may answer for the caller's token."""
READ_ERRORS: Responses = {**AUTH_ERRORS, 404: problem("Unknown agent")}
"""What a route reading one agent may answer: the token's refusals, and an agent never seen."""


# ----- requests ---------------------------------------------------------------------------------------


class CanonicalMessage(BaseModel):
    """One message in the canonical format of `summarizer ingest`; keys starting with `x_` are ignored."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": True})

    kind: KindName
    content: str | None = Field(default=None, description="Required except on tool_call")
    tool_call_id: str | None = None
    name: str | None = None
    input: Any = None
    is_error: bool | None = None
    agent: str | None = Field(default=None, description="When given, must equal the agent in the URL")
    created_at: str | None = Field(default=None, description="ISO-8601 with a time zone")
    id: str | int | None = Field(default=None, description="Host id: a re-sent id is skipped")
    tokens: int | None = Field(default=None, ge=0, description="The host's own token count")


def messages_request_schema() -> dict[str, Any]:
    """The request body of `POST .../messages`, inline (the body is parsed by the ingest parser, not here)."""
    return {
        "type": "object",
        "required": ["messages"],
        "additionalProperties": False,
        "properties": {
            "messages": {"type": "array", "items": CanonicalMessage.model_json_schema()},
        },
    }


# ----- host answers -----------------------------------------------------------------------------------


class RecordedReport(Document):
    agent_id: str
    stored: int
    skipped: int
    evicted_exchanges: int
    window_tokens: int | None = Field(description="Tokens in the window now; null when nothing was recorded")
    summary_update_queued: bool


class MessageOut(Document):
    id: int
    host_id: str | None
    kind: str
    content: str
    tool_call_id: str | None
    name: str | None
    input: Any
    is_error: bool | None
    exchange_id: int | None
    created_at: str
    tokens: int


class ContextOut(Document):
    agent_id: str
    summary: str
    summary_version: int | None
    messages: list[MessageOut]


class SummaryItemOut(Document):
    id: str
    text: str
    started_at: str
    ended_at: str
    source_tokens: int
    importance: str
    exchange_ids: list[int]


class SummaryOut(Document):
    agent_id: str
    version: int | None
    token_count: int
    max_tokens: int
    covered_through_exchange_id: int | None
    updated_at: str | None
    tiers: dict[str, list[SummaryItemOut]]
    markdown: str


class ExchangeProvenanceOut(Document):
    """Where an exchange is: `in_window`, `waiting`, `summarized` (item and version) or `dropped` (version,
    reason, and the detail of the drop)."""

    state: str
    item_id: str | None
    version: int | None
    reason: str | None
    detail: str | None = None


class ExchangeOut(Document):
    id: int
    state: str
    evict_reason: str | None
    tokens: int
    message_count: int
    started_at: str | None
    evicted_at: str | None
    title: str
    provenance: ExchangeProvenanceOut | None = None
    """As `GET .../provenance` lists it (absent when the server has no ledger wired)."""


class ExchangeMessagesOut(Document):
    agent_id: str
    exchange_id: int
    messages: list[MessageOut]


class HistoryOut(Document):
    agent_id: str
    budget_tokens: int
    window_tokens: int
    exchanges: list[ExchangeOut]


# ----- operator answers -------------------------------------------------------------------------------


class QueueRowOut(Document):
    agent_id: str
    state: str
    priority: int
    attempts: int
    consecutive_failures: int
    queued_at: str
    available_at: str
    lease_expires_at: str | None
    last_error: str | None = None


class RequeueOut(Document):
    agent_id: str
    previous_state: str
    state: str
    woken: bool


class StatsOut(Document):
    updates_queued: int
    updates_completed: int
    updates_failed: int
    failure_rate: float
    avg_duration_ms: int | None
    avg_summary_tokens: int | None
    queue_depth: int
    llm_input_tokens: int
    llm_output_tokens: int
    llm_cache_read_tokens: int
    llm_cache_write_tokens: int
    truncations: int
    queue: dict[str, int]
    window: dict[str, Any]


class AlertOut(Document):
    id: int
    kind: str
    agent_id: str | None
    severity: str
    message: str
    details: Any
    created_at: str
    resolved_at: str | None
    acknowledged_at: str | None
    open: bool
    delivery: Any


class Health(Document):
    status: Literal["ok", "unavailable"]
    database: str


class AgentListed(Document):
    agent_id: str
    created_at: str
    last_message_at: str | None
    window_tokens: int
    unsummarized_exchanges: int = Field(description="Evicted exchanges not yet folded into the summary")
    queue_state: str | None = Field(description="pending | running | idle | failed; null: never queued")
    summary_version: int | None
    summary_tokens: int | None


class AgentSourceOut(Document):
    kind: str | None = Field(description="watch | ingest | hook | cli | api; null: created before 0018")
    path: str | None = Field(description="The log file the agent was first recorded from")
    format: str | None


class AgentOverview(Document):
    agent_id: str
    source: AgentSourceOut
    messages: int
    exchanges: int
    window_tokens: int
    summary_version: int | None
    summary_tokens: int | None
    created_at: str
    last_message_at: str | None
    last_activity_at: str = Field(description="The newest message's time, else the creation time")
    queue_state: str | None
    parked: bool
    open_alerts: int


class AgentOverviewPage(Document):
    agents: list[AgentOverview]
    next_after: str | None = Field(description="Pass as `after` for the next page; null: this was the last")


class SeriesBucket(Document):
    start: str
    completed: int
    failed: int


class SeriesOut(Document):
    since: str
    until: str
    bucket_seconds: float
    buckets: list[SeriesBucket]
