"""The composition root's LLM side: the adapter, the token counter and the engine, built from Settings.

Providers are chosen through their descriptors (llm/providers/registry.py): each names the Settings
attributes that make its `ProviderConfig`, and builds its adapter from that config alone; nothing under
summarizer/llm reads Settings."""

from __future__ import annotations

from dataclasses import replace

from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.ladder import LadderConfig
from summarizer.engine.ports import LLM
from summarizer.llm.fallback import FallbackLLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_health import CooldownHealth, ProviderHealth
from summarizer.llm.providers.anthropic import ANTHROPIC
from summarizer.llm.providers.base import Provider
from summarizer.llm.providers.registry import provider_named
from summarizer.llm.rungs import RungLLM
from summarizer.settings import LLMChoice, Settings, SettingsError

COUNT_TOKENS_TIMEOUT = 10.0


def chosen_llm(settings: Settings) -> LLMChoice:
    """SUMMARIZER_LLM when set; otherwise anthropic when ANTHROPIC_API_KEY is set, else offline."""
    if settings.llm is not None:
        return settings.llm
    return LLMChoice.ANTHROPIC if settings.anthropic_api_key else LLMChoice.OFFLINE


def provider_config(settings: Settings, provider: Provider) -> ProviderConfig:
    """The provider's own config: the Settings attributes its descriptor names, and the shared timeout and
    retries."""
    names = provider.settings
    return ProviderConfig(
        model=_setting(settings, names.model),
        api_key=_setting(settings, names.api_key),
        base_url=_setting(settings, names.base_url),
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        options={name: _setting(settings, name) for name in names.options},
    )


def _setting(settings: Settings, name: str) -> str:
    return str(getattr(settings, name)) if name else ""


def anthropic_config(settings: Settings) -> ProviderConfig:
    return provider_config(settings, ANTHROPIC)


def build_provider(settings: Settings, choice: LLMChoice) -> LLM:
    """One provider's adapter, without any fallback; with SUMMARIZER_MERGE_MODEL, the merge and full
    rungs go to that model of the same provider (llm/rungs.py)."""
    provider = provider_named(str(choice))
    config = provider_config(settings, provider)
    session = provider.build(config)
    if not settings.merge_model or not provider.takes_merge_model:
        return session
    return RungLLM(session, provider.build(replace(config, model=settings.merge_model)))


def build_llm(settings: Settings, health: ProviderHealth | None = None) -> LLM:
    """The configured provider, wrapped in a fallback chain when SUMMARIZER_LLM_FALLBACK names another."""
    choice = chosen_llm(settings)
    primary = build_provider(settings, choice)
    fallback_choice = settings.llm_fallback
    if fallback_choice is None:
        return primary
    if fallback_choice is choice:
        raise SettingsError(f"SUMMARIZER_LLM_FALLBACK: the fallback must differ from the primary ({choice})")
    # The fleet-wide breaker when the composition root passes one; otherwise a per-process cool-down.
    health = health or CooldownHealth(str(choice), settings.llm_fallback_cooldown)
    return FallbackLLM(
        primary, build_provider(settings, fallback_choice), health, fallback_name=str(fallback_choice)
    )


def build_token_counter(settings: Settings) -> TokenCounter:
    if settings.token_counter == "anthropic":
        # Imported here: the Anthropic SDK takes seconds to import, and only this counter needs it.
        from summarizer.llm.anthropic_adapter import make_client
        from summarizer.llm.anthropic_counter import PROCESS_CACHE, AnthropicTokenCounter

        config = anthropic_config(settings)
        client = make_client(
            min(config.timeout, COUNT_TOKENS_TIMEOUT),
            max_retries=0,
            api_key=config.api_key,
            base_url=config.base_url,
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
