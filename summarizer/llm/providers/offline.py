"""The offline extractive summarizer (llm/offline): no SDK, no network, no cost."""

from __future__ import annotations

from summarizer.domain.prices import OFFLINE_PRICES
from summarizer.engine.ports import LLM
from summarizer.llm.offline import OfflineLLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.providers.base import Provider


def build(config: ProviderConfig) -> LLM:
    return OfflineLLM()


OFFLINE = Provider(name="offline", build=build, prices=OFFLINE_PRICES)
