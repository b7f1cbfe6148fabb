"""The Anthropic Messages API (llm/anthropic_adapter.py)."""

from __future__ import annotations

from summarizer.domain.prices import ANTHROPIC_PRICES
from summarizer.engine.ports import LLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import SdkErrors
from summarizer.llm.providers.base import Provider, SettingNames


def build(config: ProviderConfig) -> LLM:
    from summarizer.llm.anthropic_adapter import AnthropicLLM  # the SDK costs seconds to import

    return AnthropicLLM.from_config(config)


def errors() -> SdkErrors:
    from summarizer.llm.anthropic_adapter import ERRORS

    return ERRORS


ANTHROPIC = Provider(
    name="anthropic",
    build=build,
    prices=ANTHROPIC_PRICES,
    settings=SettingNames(model="model", api_key="anthropic_api_key", base_url="anthropic_base_url"),
    errors=errors,
)
