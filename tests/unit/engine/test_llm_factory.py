from __future__ import annotations

import pytest

from summarizer.composition.llm import (
    build_engine,
    build_engine_config,
    build_llm,
    build_token_counter,
    chosen_llm,
)
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.llm.anthropic_adapter import AnthropicLLM
from summarizer.llm.anthropic_counter import AnthropicTokenCounter
from summarizer.llm.fake import FakeLLM
from summarizer.llm.fallback import FallbackLLM
from summarizer.llm.offline import OfflineLLM
from summarizer.llm.openai_adapter import OpenAILLM
from summarizer.llm.provider_errors import MissingCredentials
from summarizer.settings import LLMChoice, Settings, SettingsError, load_settings


def test_llm_defaults_to_anthropic_with_a_key_else_offline() -> None:
    assert chosen_llm(load_settings(anthropic_api_key="sk-test")) is LLMChoice.ANTHROPIC
    assert chosen_llm(load_settings(anthropic_api_key="")) is LLMChoice.OFFLINE
    assert isinstance(build_llm(load_settings(anthropic_api_key="")), OfflineLLM)


def test_the_choice_comes_from_settings_not_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ambient")
    assert chosen_llm(Settings(anthropic_api_key="")) is LLMChoice.OFFLINE
    assert load_settings().anthropic_api_key == "sk-ambient"  # the provider's own variable is read once, here


def test_explicit_choice_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    assert chosen_llm(load_settings(llm="offline", anthropic_api_key="k")) is LLMChoice.OFFLINE
    assert isinstance(build_llm(load_settings(llm="fake")), FakeLLM)
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    assert load_settings().llm is LLMChoice.FAKE


def test_openai_llm_uses_its_own_model_key_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("SUMMARIZER_OPENAI_MODEL", "qwen2.5:7b")
    settings = load_settings(llm="openai", llm_timeout=7.5)
    llm = build_llm(settings)
    assert isinstance(llm, OpenAILLM)
    assert llm.model == "qwen2.5:7b"
    assert settings.model == "claude-haiku-4-5"  # the Anthropic model setting is untouched
    client = llm._require_client()
    assert (client.api_key, str(client.base_url), client.timeout) == (
        "sk-openai",
        "http://127.0.0.1:11434/v1/",
        7.5,
    )


def test_openai_without_key_or_base_url_fails_each_call_as_missing_credentials() -> None:
    llm = build_llm(load_settings(llm="openai", openai_api_key="", openai_base_url=""))
    assert isinstance(llm, OpenAILLM)
    with pytest.raises(MissingCredentials, match="OPENAI_API_KEY"):
        llm.probe()


def test_a_fallback_wraps_the_primary() -> None:
    llm = build_llm(load_settings(llm="fake", llm_fallback="offline", llm_fallback_cooldown=5))
    assert isinstance(llm, FallbackLLM)
    assert isinstance(llm.primary, FakeLLM)
    assert isinstance(llm.fallback, OfflineLLM)


def test_a_fallback_equal_to_the_primary_is_refused() -> None:
    with pytest.raises(SettingsError, match="SUMMARIZER_LLM_FALLBACK"):
        build_llm(load_settings(llm="offline", llm_fallback="offline"))


def test_anthropic_llm_uses_settings_for_model_timeout_and_retries() -> None:
    settings = load_settings(
        llm="anthropic", model="claude-test", llm_timeout=12.5, llm_max_retries=1, anthropic_api_key="sk-t"
    )
    llm = build_llm(settings)
    assert isinstance(llm, AnthropicLLM)
    assert llm.model == "claude-test"
    assert llm._client.max_retries == 1
    assert llm._client.timeout == 12.5
    assert llm._client.api_key == "sk-t"


def test_retries_above_two_are_refused() -> None:
    with pytest.raises(Exception, match="SUMMARIZER_LLM_MAX_RETRIES"):
        load_settings(llm_max_retries=5)


def test_token_counter_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert isinstance(build_token_counter(load_settings()), ByteEstimateCounter)
    assert isinstance(build_token_counter(load_settings(token_counter="anthropic")), AnthropicTokenCounter)


def test_engine_config_follows_settings() -> None:
    settings = Settings(
        summary_max_tokens=5000,
        merge_threshold=0.5,
        compress_threshold=0.7,
        item_max_chars=300,
        llm="offline",
    )
    config = build_engine_config(settings)
    assert (config.max_tokens, config.ladder.merge_threshold, config.ladder.compress_threshold) == (
        5000,
        0.5,
        0.7,
    )
    assert config.item_max_chars == 300
    assert build_engine(settings).config == config
