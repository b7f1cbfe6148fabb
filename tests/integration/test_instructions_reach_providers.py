"""Summary instructions reach the request each provider's API receives (the local fakes of the Anthropic
Messages and OpenAI Chat Completions APIs, through the real SDK adapters); pins never do."""

from __future__ import annotations

import json

import anthropic
import openai
import pytest

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, SummaryEngine
from summarizer.engine.model import Pin, Summary
from summarizer.engine.prompt import OPERATOR_LEAD
from summarizer.llm.anthropic_adapter import AnthropicLLM
from summarizer.llm.openai_adapter import OpenAILLM
from summarizer.testing.fake_chat_completions import CHAT_PATH, FakeChatCompletionsAPI
from summarizer.testing.fake_messages_api import MESSAGES_PATH, FakeMessagesAPI
from tests.unit.engine.helpers import NOW, exchange

WORDS = "Keep decisions with their reasons, file paths and open questions."
PINNED = Summary("agent", pins=(Pin("secret-plan", "Pinned text the model never reads.", NOW, "test"),))


@pytest.mark.parametrize("instructions", [WORDS, None])
def test_anthropic_messages_api_receives_the_instructions(instructions: str | None) -> None:
    with FakeMessagesAPI() as api:
        client = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
        engine = SummaryEngine(
            AnthropicLLM(client, "claude-haiku-4-5"), ByteEstimateCounter(), EngineConfig()
        )
        engine.update(PINNED, "agent", [exchange(1)], NOW, instructions)
        (sent,) = api.requests_to(MESSAGES_PATH)
    body = json.dumps(sent.body)
    assert (WORDS in body) is (instructions is not None)
    assert (OPERATOR_LEAD in body) is (instructions is not None)
    assert "Pinned text" not in body


@pytest.mark.parametrize("instructions", [WORDS, None])
def test_openai_chat_completions_api_receives_the_instructions(instructions: str | None) -> None:
    with FakeChatCompletionsAPI(api_key="sk-test", models=("gpt-4o-mini",)) as api:
        client = openai.OpenAI(api_key="sk-test", base_url=api.base_url, max_retries=0)
        engine = SummaryEngine(OpenAILLM(client, "gpt-4o-mini"), ByteEstimateCounter(), EngineConfig())
        engine.update(PINNED, "agent", [exchange(1)], NOW, instructions)
        (sent,) = api.requests_to(CHAT_PATH)
    body = json.dumps(sent.body)
    assert (WORDS in body) is (instructions is not None)
    assert "Pinned text" not in body
