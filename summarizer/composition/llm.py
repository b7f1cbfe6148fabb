"""The composition root's LLM side: the adapter, the token counter and the engine, built from Settings.

Adapters take only their `ProviderConfig`; nothing under summarizer/llm reads Settings."""

from __future__ import annotations

from pathlib import Path

from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ladder import LadderConfig
from summarizer.engine.ports import LLM
from summarizer.llm.fake import FakeLLM, parse_faults
from summarizer.llm.offline import OfflineLLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_health import ProviderHealth
from summarizer.settings import LLMChoice, Settings, SettingsError

COUNT_TOKENS_TIMEOUT = 10.0


def chosen_llm(settings: Settings) -> LLMChoice:
    """SUMMARIZER_LLM when set; otherwise anthropic when ANTHROPIC_API_KEY is set, else offline."""
    if settings.llm is not None:
        return settings.llm
    return LLMChoice.ANTHROPIC if settings.anthropic_api_key else LLMChoice.OFFLINE


def anthropic_config(settings: Settings) -> ProviderConfig:
    return ProviderConfig(
        model=settings.model,
        api_key=settings.anthropic_api_key,
        base_url=settings.anthropic_base_url,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
    )


def openai_config(settings: Settings) -> ProviderConfig:
    return ProviderConfig(
        model=settings.openai_model,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
    )


def build_provider(settings: Settings, choice: LLMChoice) -> LLM:
    """One provider's adapter, without any fallback; with SUMMARIZER_MERGE_MODEL, the merge and full
    rungs go to that model of the same provider (llm/rungs.py)."""
    session = _provider(settings, choice)
    if not settings.merge_model or choice not in (LLMChoice.ANTHROPIC, LLMChoice.OPENAI):
        return session
    from summarizer.llm.rungs import RungLLM

    cheaper = settings.model_copy(
        update={"model": settings.merge_model, "openai_model": settings.merge_model}
    )
    return RungLLM(session, _provider(cheaper, choice))


def _provider(settings: Settings, choice: LLMChoice) -> LLM:
    if choice is LLMChoice.ANTHROPIC:
        from summarizer.llm.anthropic_adapter import AnthropicLLM  # the SDK costs seconds to import

        return AnthropicLLM.from_config(anthropic_config(settings))
    if choice is LLMChoice.OPENAI:
        from summarizer.llm.openai_adapter import OpenAILLM

        return OpenAILLM.from_config(openai_config(settings))
    if choice is LLMChoice.FAKE:
        return FakeLLM(
            latency=settings.fake_llm_latency,
            faults=parse_faults(settings.fake_llm_faults),
            outage_file=Path(settings.fake_llm_outage_file) if settings.fake_llm_outage_file else None,
        )
    return OfflineLLM()


def build_llm(settings: Settings, health: ProviderHealth | None = None) -> LLM:
    """The configured provider, wrapped in a fallback chain when SUMMARIZER_LLM_FALLBACK names another."""
    choice = chosen_llm(settings)
    primary = build_provider(settings, choice)
    fallback_choice = settings.llm_fallback
    if fallback_choice is None:
        return primary
    if fallback_choice is choice:
        raise SettingsError(f"SUMMARIZER_LLM_FALLBACK: the fallback must differ from the primary ({choice})")
    from summarizer.llm.fallback import FallbackLLM
    from summarizer.llm.provider_health import CooldownHealth

    # The fleet-wide breaker when the composition root passes one; otherwise a per-process cool-down.
    health = health or CooldownHealth(str(choice), settings.llm_fallback_cooldown)
    return FallbackLLM(
        primary, build_provider(settings, fallback_choice), health, fallback_name=str(fallback_choice)
    )


def build_token_counter(settings: Settings) -> TokenCounter:
    if settings.token_counter == "anthropic":
        from summarizer.llm.anthropic_adapter import make_client
        from summarizer.llm.anthropic_counter import PROCESS_CACHE, AnthropicTokenCounter

        client = make_client(
            min(settings.llm_timeout, COUNT_TOKENS_TIMEOUT),
            max_retries=0,
            api_key=settings.anthropic_api_key,
            base_url=settings.anthropic_base_url,
        )
        return AnthropicTokenCounter(client, settings.model, cache=PROCESS_CACHE)
    return ByteEstimateCounter()


def build_engine_config(settings: Settings) -> EngineConfig:
    return EngineConfig(
        max_tokens=settings.summary_max_tokens,
        ladder=LadderConfig(
            merge_threshold=settings.merge_threshold, compress_threshold=settings.compress_threshold
        ),
        clip_message_chars=settings.clip_message_chars,
        item_max_chars=settings.item_max_chars,
        max_output_tokens=settings.llm_max_output_tokens,
        token_provider=settings.token_provider,
        token_model=settings.model,
    )


def build_engine(
    settings: Settings, *, llm: LLM | None = None, counter: TokenCounter | None = None
) -> SummaryEngine:
    return SummaryEngine(
        llm or build_llm(settings), counter or build_token_counter(settings), build_engine_config(settings)
    )
