"""The summary engine's settings: which LLM writes the summaries (and which answers while it fails), the
providers' keys and servers, the engine's limits, the prices and daily budgets, the token counter, and the
fake LLM's faults for tests."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


class LLMChoice(StrEnum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    OFFLINE = "offline"
    FAKE = "fake"


class LLMSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

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
