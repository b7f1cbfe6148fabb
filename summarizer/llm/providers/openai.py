"""OpenAI's Chat Completions API and the servers that speak it (llm/openai_adapter.py)."""

from __future__ import annotations

from summarizer.domain.prices import OPENAI_PRICES
from summarizer.engine.ports import LLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import SdkErrors
from summarizer.llm.providers.base import Provider, SettingNames


def build(config: ProviderConfig) -> LLM:
    from summarizer.llm.openai_adapter import OpenAILLM  # the SDK costs seconds to import

    return OpenAILLM.from_config(config)


def errors() -> SdkErrors:
    from summarizer.llm.openai_adapter import ERRORS

    return ERRORS


OPENAI = Provider(
    name="openai",
    build=build,
    prices=OPENAI_PRICES,
    settings=SettingNames(model="openai_model", api_key="openai_api_key", base_url="openai_base_url"),
    errors=errors,
)
