"""The real OpenAI SDK over HTTP against the local fake Chat Completions API."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from summarizer.composition.llm import build_llm
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, LLMPermanentError, LLMTransientError, SummaryEngine
from summarizer.engine.operations import TOOL_NAME
from summarizer.engine.ports import AnswerUnusable
from summarizer.llm.openai_adapter import OpenAILLM
from summarizer.llm.provider_errors import ProviderUnreachable, is_provider_scoped
from summarizer.settings import load_settings
from summarizer.testing.fake_chat_completions import (
    FakeChatCompletionsAPI,
    Reply,
    bad_json_arguments,
    bad_request,
    insufficient_quota,
    length_cut,
    malformed_body,
    model_not_found,
    overloaded,
    rate_limited,
    raw_arguments_reply,
    refusal,
    server_error,
    text_reply,
    tool_call_reply,
    unauthorized,
)
from tests.integration.test_anthropic_adapter import request
from tests.unit.engine.helpers import NOW, add_op, exchange

MODEL = "gpt-4o-mini"
KEY = "sk-test"


@pytest.fixture
def api() -> Iterator[FakeChatCompletionsAPI]:
    with FakeChatCompletionsAPI(api_key=KEY, models=(MODEL, "llama3.1:8b")) as fake:
        yield fake


def llm_for(api: FakeChatCompletionsAPI, *, key: str = KEY, timeout: float = 5.0) -> OpenAILLM:
    client = openai.OpenAI(api_key=key, base_url=api.base_url, timeout=timeout, max_retries=0)
    return OpenAILLM(client, MODEL)


def test_forced_function_call_is_parsed_and_applied(api: FakeChatCompletionsAPI) -> None:
    ops = {"add": [add_op([1, 2], "Added JWT auth with RS256 signing.")]}
    api.script(tool_call_reply(TOOL_NAME, ops, prompt_tokens=2345, completion_tokens=67))
    engine = SummaryEngine(llm_for(api), counter=ByteEstimateCounter(), config=EngineConfig())
    outcome = engine.update(None, "agent", [exchange(1), exchange(2)], NOW)

    assert [i.text for i in outcome.summary.items] == ["Added JWT auth with RS256 signing."]
    assert (outcome.llm_input_tokens, outcome.llm_output_tokens, outcome.llm_model) == (2345, 67, MODEL)
    (sent,) = api.chat_requests()
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["model"] == MODEL
    assert sent.body["tool_choice"] == {"type": "function", "function": {"name": TOOL_NAME}}
    (tool,) = sent.body["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == TOOL_NAME
    assert set(tool["function"]["parameters"]["properties"]) == {"add", "drop"}
    assert sent.body["max_tokens"] == EngineConfig().max_output_tokens
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert "never instructions" in sent.body["messages"][0]["content"]
    assert '<exchange id="1"' in sent.body["messages"][1]["content"]


def test_the_official_api_gets_max_completion_tokens() -> None:
    with FakeChatCompletionsAPI() as fake:
        client = openai.OpenAI(api_key=KEY, base_url=fake.base_url, max_retries=0)
        OpenAILLM(client, MODEL, official_api=True).complete(request(exchange(1)))
        (sent,) = fake.chat_requests()
    assert sent.body["max_completion_tokens"] == 1024
    assert "max_tokens" not in sent.body


def test_the_factory_reads_key_base_url_and_model_from_settings(api: FakeChatCompletionsAPI) -> None:
    settings = load_settings(
        llm="openai", openai_api_key=KEY, openai_base_url=api.base_url, openai_model="llama3.1:8b"
    )
    answer = build_llm(settings).complete(request(exchange(3)))
    assert answer.tool_input is not None
    assert [op["exchange_ids"] for op in answer.tool_input["add"]] == [[3]]
    assert api.chat_requests()[0].body["model"] == "llama3.1:8b"


def test_rate_limit_is_transient_with_retry_after(api: FakeChatCompletionsAPI) -> None:
    api.script(rate_limited(retry_after=7))
    with pytest.raises(LLMTransientError) as info:
        llm_for(api).complete(request(exchange(1)))
    assert (info.value.status, info.value.retry_after) == (429, 7.0)
    assert "Rate limit reached" in str(info.value)
    assert is_provider_scoped(info.value)


@pytest.mark.parametrize(
    ("reply", "status"),
    [(overloaded(), 503), (overloaded(529), 529), (server_error(), 500), (insufficient_quota(), 429)],
)
def test_overload_quota_and_server_errors_are_transient(
    api: FakeChatCompletionsAPI, reply: Reply, status: int
) -> None:
    api.script(reply)
    with pytest.raises(LLMTransientError) as info:
        llm_for(api).complete(request(exchange(1)))
    assert info.value.status == status
    assert is_provider_scoped(info.value)


def test_a_wrong_key_is_permanent_and_provider_scoped(api: FakeChatCompletionsAPI) -> None:
    with pytest.raises(LLMPermanentError) as info:
        llm_for(api, key="sk-wrong").complete(request(exchange(1)))
    assert info.value.status == 401
    assert "Incorrect API key" in str(info.value)
    assert is_provider_scoped(info.value)


@pytest.mark.parametrize(
    ("reply", "status"), [(bad_request(), 400), (model_not_found(MODEL), 404), (unauthorized(), 401)]
)
def test_client_errors_are_permanent(api: FakeChatCompletionsAPI, reply: Reply, status: int) -> None:
    api.script(reply)
    with pytest.raises(LLMPermanentError) as info:
        llm_for(api).complete(request(exchange(1)))
    assert info.value.status == status
    assert not isinstance(info.value, LLMTransientError)


def test_a_raw_line_break_inside_a_string_is_read_and_the_gate_strips_it(api: FakeChatCompletionsAPI) -> None:
    """llama.cpp's server passes a small model's literal line break inside a JSON string through; strict
    JSON refuses it (the answer was unusable), but it is only a character the gate strips anyway."""
    raw = '{"add": [{"exchange_ids": [1], "text": "Picked RS256\nsigning,\tkeys rotate daily.", "importance": "high"}]}'
    assert "\n" in raw
    assert "\\n" not in raw
    api.script(raw_arguments_reply(TOOL_NAME, raw))
    answer = llm_for(api).complete(request(exchange(1)))
    assert answer.tool_input is not None
    assert answer.tool_input["add"][0]["text"] == "Picked RS256\nsigning,\tkeys rotate daily."
    api.script(raw_arguments_reply(TOOL_NAME, raw))
    engine = SummaryEngine(llm_for(api), ByteEstimateCounter(), EngineConfig())
    outcome = engine.update(None, "agent", [exchange(1)], NOW)
    text = outcome.summary.items[0].text
    assert "RS256" in text
    assert "\n" not in text
    assert "\t" not in text


def test_a_bad_request_is_not_the_providers_fault(api: FakeChatCompletionsAPI) -> None:
    api.script(bad_request())
    with pytest.raises(LLMPermanentError) as info:
        llm_for(api).complete(request(exchange(1)))
    assert not is_provider_scoped(info.value)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (length_cut(TOOL_NAME), "cut at the token limit"),
        (refusal(), "refused"),
        (bad_json_arguments(TOOL_NAME), "not JSON"),
        (tool_call_reply(TOOL_NAME, ["add", "everything"]), "expected an object, got list"),
        (tool_call_reply("some_other_tool", {"add": []}), f"no {TOOL_NAME} tool call"),
        (text_reply("Here is a summary: all good."), "got text"),
        (malformed_body(), "not the API's JSON"),
    ],
)
def test_unusable_answers_are_batch_failures_never_provider_failures(
    api: FakeChatCompletionsAPI, reply: Reply, message: str
) -> None:
    """One bad answer (cut, refused, malformed, no tool call, a proxy's HTML page) is the batch's failure:
    split, then folded offline; never a reason to park the agent or open the provider's breaker."""
    api.script(reply)
    with pytest.raises(AnswerUnusable, match=message) as info:
        llm_for(api).complete(request(exchange(1)))
    assert not is_provider_scoped(info.value)


def test_connection_refused_is_transient_and_provider_scoped() -> None:
    with FakeChatCompletionsAPI() as fake:
        base_url = fake.base_url
    client = openai.OpenAI(api_key=KEY, base_url=base_url, timeout=2, max_retries=0)
    with pytest.raises(ProviderUnreachable) as info:
        OpenAILLM(client, MODEL).complete(request(exchange(1)))
    assert is_provider_scoped(info.value)


def test_probe_checks_key_and_model(api: FakeChatCompletionsAPI) -> None:
    assert llm_for(api).probe() == f"model {MODEL} available"
    with pytest.raises(LLMPermanentError, match="not offered"):
        OpenAILLM(openai.OpenAI(api_key=KEY, base_url=api.base_url, max_retries=0), "gpt-9").probe()
    with pytest.raises(LLMPermanentError, match="HTTP 401"):
        llm_for(api, key="sk-wrong").probe()
