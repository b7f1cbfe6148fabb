"""OpenAI's Chat Completions API and the servers that speak it (llm/openai_adapter.py)."""

from __future__ import annotations

from summarizer.domain.prices import OPENAI_PRICES
from summarizer.llm.providers.base import SdkAdapter, SettingNames, sdk_provider


def _adapter() -> SdkAdapter:
    from summarizer.llm import openai_adapter  # the SDK costs seconds to import

    return SdkAdapter(build=openai_adapter.OpenAILLM.from_config, errors=openai_adapter.ERRORS)


OPENAI = sdk_provider(
    "openai",
    _adapter,
    prices=OPENAI_PRICES,
    settings=SettingNames(model="openai_model", api_key="openai_api_key", base_url="openai_base_url"),
)
