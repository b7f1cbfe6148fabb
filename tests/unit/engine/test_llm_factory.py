from __future__ import annotations

import pytest

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.llm.anthropic_adapter import AnthropicLLM
from summarizer.llm.anthropic_counter import AnthropicTokenCounter
from summarizer.llm.factory import (
    build_engine,
    build_engine_config,
    build_llm,
    build_token_counter,
    chosen_llm,
)
from summarizer.llm.fake import FakeLLM
from summarizer.llm.offline import OfflineLLM
from summarizer.settings import LLMChoice, Settings, load_settings


def test_llm_defaults_to_anthropic_with_a_key_else_offline() -> None:
    settings = load_settings()
    assert chosen_llm(settings, {"ANTHROPIC_API_KEY": "sk-test"}) is LLMChoice.ANTHROPIC
    assert chosen_llm(settings, {}) is LLMChoice.OFFLINE
    assert isinstance(build_llm(settings, {}), OfflineLLM)


def test_explicit_choice_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    assert chosen_llm(load_settings(llm="offline"), {"ANTHROPIC_API_KEY": "k"}) is LLMChoice.OFFLINE
    assert isinstance(build_llm(load_settings(llm="fake")), FakeLLM)
    monkeypatch.setenv("SUMMARIZER_LLM", "fake")
    assert load_settings().llm is LLMChoice.FAKE


def test_anthropic_llm_uses_settings_for_model_timeout_and_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    llm = build_llm(load_settings(llm="anthropic", model="claude-test", llm_timeout=12.5, llm_max_retries=1))
    assert isinstance(llm, AnthropicLLM)
    assert llm.model == "claude-test"
    assert llm._client.max_retries == 1
    assert llm._client.timeout == 12.5


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
