"""The fallback chain built from Settings, with both real SDKs over HTTP against the two local fakes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from summarizer.composition.llm import build_llm
from summarizer.engine.ports import LLMPermanentError
from summarizer.llm.fallback import FallbackLLM
from summarizer.llm.provider_health import CooldownHealth
from summarizer.settings import load_settings
from summarizer.testing.fake_chat_completions import (
    FakeChatCompletionsAPI,
    Reply,
    bad_request,
    insufficient_quota,
    overloaded,
    unauthorized,
)
from summarizer.testing.fake_messages_api import MESSAGES_PATH, FakeMessagesAPI
from tests.integration.test_anthropic_adapter import request
from tests.unit.engine.helpers import exchange


@pytest.fixture
def openai_api() -> Iterator[FakeChatCompletionsAPI]:
    with FakeChatCompletionsAPI(api_key="sk-openai") as fake:
        yield fake


@pytest.fixture
def anthropic_api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def chain(openai_api: FakeChatCompletionsAPI, anthropic_api: FakeMessagesAPI, cooldown: float) -> FallbackLLM:
    settings = load_settings(
        llm="openai",
        openai_api_key="sk-openai",
        openai_base_url=openai_api.base_url,
        llm_fallback="anthropic",
        llm_fallback_cooldown=cooldown,
        anthropic_api_key="sk-ant",
        anthropic_base_url=anthropic_api.base_url,
        llm_max_retries=0,
    )
    llm = build_llm(settings)
    assert isinstance(llm, FallbackLLM)
    return llm


@pytest.mark.parametrize("outage", [unauthorized(), insufficient_quota(), overloaded(503), overloaded(529)])
def test_a_primary_outage_goes_to_the_fallback_until_a_probe_succeeds(
    openai_api: FakeChatCompletionsAPI, anthropic_api: FakeMessagesAPI, outage: Reply
) -> None:
    llm = chain(openai_api, anthropic_api, cooldown=60)
    assert isinstance(llm.health, CooldownHealth)
    now = [0.0]
    llm.health = CooldownHealth("openai", 60, clock=lambda: now[0])  # the factory's, on a manual clock
    openai_api.start_outage(outage)

    first = llm.complete(request(exchange(1)))
    assert first.model == "claude-haiku-4-5"
    assert first.extra["fallback"] == "anthropic"
    second = llm.complete(request(exchange(2)))
    assert second.extra["fallback"] == "anthropic"
    assert len(openai_api.chat_requests()) == 1  # the open primary is not called again during the cool-down
    assert len(anthropic_api.requests_to(MESSAGES_PATH)) == 2

    openai_api.end_outage()
    now[0] += 59
    assert llm.complete(request(exchange(3))).extra["fallback"] == "anthropic"
    now[0] += 2
    answer = llm.complete(request(exchange(3)))  # the probe
    assert len(openai_api.chat_requests()) == 2
    assert answer.model == "gpt-4o-mini"
    assert "fallback" not in answer.extra
    assert answer.tool_input is not None
    assert [op["exchange_ids"] for op in answer.tool_input["add"]] == [[3]]


def test_a_bad_batch_is_not_sent_to_the_fallback(
    openai_api: FakeChatCompletionsAPI, anthropic_api: FakeMessagesAPI
) -> None:
    llm = chain(openai_api, anthropic_api, cooldown=60)
    openai_api.script(bad_request())
    with pytest.raises(LLMPermanentError, match="HTTP 400"):
        llm.complete(request(exchange(1)))
    assert anthropic_api.requests_to(MESSAGES_PATH) == []
    assert "fallback" not in llm.complete(request(exchange(2))).extra


def test_the_primary_unreachable_uses_an_offline_fallback() -> None:
    with FakeChatCompletionsAPI() as gone:
        dead_url = gone.base_url
    settings = load_settings(
        llm="openai", openai_api_key="k", openai_base_url=dead_url, llm_fallback="offline", llm_timeout=2
    )
    answer = build_llm(settings).complete(request(exchange(1)))
    assert answer.offline
    assert answer.extra["fallback"] == "offline"
    assert "connection error" in answer.extra["fallback_reason"]
