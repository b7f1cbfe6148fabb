"""The servers' settings: the HTTP API of `summarizer serve` and MCP over streamable HTTP."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServerSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

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
