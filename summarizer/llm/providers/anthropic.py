"""The Anthropic Messages API (llm/anthropic_adapter.py)."""

from __future__ import annotations

from summarizer.domain.prices import ANTHROPIC_PRICES
from summarizer.llm.providers.base import SdkAdapter, SettingNames, sdk_provider


def _adapter() -> SdkAdapter:
    from summarizer.llm import anthropic_adapter  # the SDK costs seconds to import

    return SdkAdapter(build=anthropic_adapter.AnthropicLLM.from_config, errors=anthropic_adapter.ERRORS)


ANTHROPIC = sdk_provider(
    "anthropic",
    _adapter,
    prices=ANTHROPIC_PRICES,
    settings=SettingNames(model="model", api_key="anthropic_api_key", base_url="anthropic_base_url"),
)
