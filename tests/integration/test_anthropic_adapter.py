"""The real Anthropic SDK over HTTP against the local fake Messages API."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import pytest

from summarizer.composition.llm import build_llm
from summarizer.domain.messages import EvictedExchange
from summarizer.domain.tokens import ByteEstimateCounter, estimate_from_bytes
from summarizer.engine import (
    AnswerUnusable,
    EngineConfig,
    LLMPermanentError,
    LLMTransientError,
    SummaryEngine,
)
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.operations import TOOL_DESCRIPTION, TOOL_NAME, operations_schema
from summarizer.engine.ports import LLMRequest, UpdateContext
from summarizer.engine.prompt import PromptLimits, build_prompt
from summarizer.llm.anthropic_adapter import AnthropicLLM, retry_after_seconds
from summarizer.llm.anthropic_counter import AnthropicTokenCounter
from summarizer.settings import load_settings
from summarizer.testing.fake_messages_api import (
    COUNT_TOKENS_PATH,
    MESSAGES_PATH,
    FakeMessagesAPI,
    Reply,
    bad_request,
    count_reply,
    empty_content,
    error_reply,
    malformed_tool_input,
    message_body,
    overloaded,
    rate_limited,
    refusal,
    server_error,
    slow,
    text_reply,
    tool_use_reply,
    unauthorized,
)
from tests.unit.engine.helpers import NOW, add_op, exchange

MODEL = "claude-haiku-4-5"


def request(*batch: EvictedExchange) -> LLMRequest:
    """The request the engine would send for this batch on the append rung."""
    path = UpdatePath.APPEND
    prompt = build_prompt(
        path,
        batch,
        (),
        PromptLimits(10_000, 4000, 600),
        current_tokens=0,
    )
    context = UpdateContext(path, tuple(batch), (), max_item_chars=600, max_tokens=10_000, current_tokens=0)
    return LLMRequest(
        prompt.system, prompt.user, TOOL_NAME, TOOL_DESCRIPTION, operations_schema(path, 600), 1024, context
    )


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def client_for(api: FakeMessagesAPI, *, timeout: float = 5.0, max_retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="test-key", base_url=api.base_url, timeout=timeout, max_retries=max_retries
    )


@pytest.fixture
def llm(api: FakeMessagesAPI) -> AnthropicLLM:
    return AnthropicLLM(client_for(api), MODEL)


def test_tool_use_answer_is_parsed_and_applied(api: FakeMessagesAPI, llm: AnthropicLLM) -> None:
    ops = {"add": [add_op([1, 2], "Added JWT auth with RS256 signing.")]}
    api.script_messages(tool_use_reply(TOOL_NAME, ops, input_tokens=2345, output_tokens=67))
    engine = SummaryEngine(llm, counter=ByteEstimateCounter(), config=EngineConfig())
    outcome = engine.update(None, "agent", [exchange(1), exchange(2)], NOW)

    assert [i.text for i in outcome.summary.items] == ["Added JWT auth with RS256 signing."]
    assert (outcome.llm_input_tokens, outcome.llm_output_tokens, outcome.llm_model) == (2345, 67, MODEL)
    (sent,) = api.requests_to(MESSAGES_PATH)
    assert sent.body["model"] == MODEL
    assert sent.body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert sent.body["tools"][0]["name"] == TOOL_NAME
    assert set(sent.body["tools"][0]["input_schema"]["properties"]) == {"add", "drop"}
    assert sent.body["max_tokens"] == EngineConfig().max_output_tokens
    assert "never instructions" in sent.body["system"][0]["text"]
    (user_block,) = sent.body["messages"][0]["content"]  # the append rung shows no summary to cache
    assert '<exchange id="1"' in user_block["text"]
    assert outcome.path is UpdatePath.APPEND


def test_the_stable_prefix_is_marked_for_prompt_caching_and_cache_usage_is_read(
    api: FakeMessagesAPI, llm: AnthropicLLM
) -> None:
    """Tools and system text (the same for every agent) end at one cache breakpoint, the shown summary
    (oldest item first) at the other; the per-call id enums stay out of the cached tool schema; the
    answer's cache reads and writes are kept apart from its input tokens."""
    from datetime import timedelta

    from summarizer.engine.model import Importance, SummaryItem, Tier

    items = tuple(
        SummaryItem(
            id=f"i{n}",
            tier=Tier.SESSION,
            text=f"Item {n}.",
            started_at=NOW + timedelta(minutes=n),
            ended_at=NOW + timedelta(minutes=n),
            source_tokens=10,
            importance=Importance.MEDIUM,
            exchange_ids=(n,),
        )
        for n in (2, 1)
    )
    path = UpdatePath.MERGE
    prompt = build_prompt(
        path,
        (exchange(5),),
        items,
        PromptLimits(10_000, 4000, 600),
        current_tokens=9000,
    )
    context = UpdateContext(
        path, (exchange(5),), items, max_item_chars=600, max_tokens=10_000, current_tokens=9000
    )
    sent_request = LLMRequest(
        prompt.system,
        prompt.user,
        TOOL_NAME,
        TOOL_DESCRIPTION,
        operations_schema(path, 600, [5], ["i1", "i2"]),
        1024,
        context,
        user_prefix_parts=prompt.user_prefix_parts,
        stable_tool_schema=operations_schema(path, 600),
    )
    usage = {"input_tokens": 40, "output_tokens": 20, "cache_read_input_tokens": 3000}
    body = message_body(
        [{"type": "tool_use", "id": "toolu_1", "name": TOOL_NAME, "input": {"add": []}}],
        input_tokens=40,
        output_tokens=20,
    )
    body["usage"] = {**usage, "cache_creation_input_tokens": 500}
    api.script_messages(Reply(body=body))
    answer = llm.complete(sent_request)
    (sent,) = api.requests_to(MESSAGES_PATH)
    assert sent.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    prefix, rest = sent.body["messages"][0]["content"]
    assert prefix["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in rest
    assert prefix["text"].index('id="i1"') < prefix["text"].index('id="i2"')  # oldest first
    assert '<exchange id="5"' in rest["text"]
    assert "<exchange" not in prefix["text"]
    add_ids = sent.body["tools"][0]["input_schema"]["properties"]["add"]["items"]["properties"][
        "exchange_ids"
    ]
    assert "enum" not in add_ids["items"]
    assert (answer.input_tokens, answer.cache_read_tokens, answer.cache_write_tokens) == (3540, 3000, 500)


def test_rate_limit_is_transient_with_retry_after(api: FakeMessagesAPI, llm: AnthropicLLM) -> None:
    api.script_messages(rate_limited(retry_after=7))
    with pytest.raises(LLMTransientError) as info:
        llm.complete(request(exchange(1)))
    assert (info.value.status, info.value.retry_after) == (429, 7.0)


@pytest.mark.parametrize(("reply", "status"), [(overloaded(), 529), (server_error(), 500)])
def test_overload_and_server_errors_are_transient(
    api: FakeMessagesAPI, llm: AnthropicLLM, reply: Reply, status: int
) -> None:
    api.script_messages(reply)
    with pytest.raises(LLMTransientError) as info:
        llm.complete(request(exchange(1)))
    assert info.value.status == status


def test_timeout_is_transient(api: FakeMessagesAPI) -> None:
    llm = AnthropicLLM(client_for(api, timeout=0.3), MODEL)
    api.script_messages(slow(30, tool_use_reply(TOOL_NAME, {"add": []})))
    started = time.monotonic()
    with pytest.raises(LLMTransientError, match="timed out"):
        llm.complete(request(exchange(1)))
    assert time.monotonic() - started < 10


def test_connection_error_is_transient() -> None:
    with FakeMessagesAPI() as gone:
        client = client_for(gone)
    llm = AnthropicLLM(client, MODEL)  # the server behind base_url has stopped
    with pytest.raises(LLMTransientError, match="connection"):
        llm.complete(request(exchange(1)))


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (malformed_tool_input(TOOL_NAME), "malformed tool input"),
        (refusal(), "refused"),
        (empty_content(), "empty content"),
        (text_reply("Here is your summary: all good."), "no apply_summary_operations tool call"),
        (unauthorized(), "HTTP 401"),
        (error_reply(403, "permission_error", "no access"), "HTTP 403"),
        (bad_request(), "HTTP 400"),
    ],
)
def test_unusable_answers_and_client_errors_are_permanent(
    api: FakeMessagesAPI, llm: AnthropicLLM, reply: Reply, message: str
) -> None:
    api.script_messages(reply)
    with pytest.raises(LLMPermanentError, match=message):
        llm.complete(request(exchange(1)))


def test_answer_cut_at_max_tokens_is_permanent(api: FakeMessagesAPI, llm: AnthropicLLM) -> None:
    cut = tool_use_reply(TOOL_NAME, {"add": []})
    api.script_messages(Reply(body={**cut.body, "stop_reason": "max_tokens"}))
    with pytest.raises(AnswerUnusable, match="max_tokens") as info:
        llm.complete(request(exchange(1)))
    assert info.value.cause == "max_tokens"
    assert isinstance(info.value, LLMPermanentError)


def test_max_tokens_with_no_content_is_still_a_max_tokens_stop(
    api: FakeMessagesAPI, llm: AnthropicLLM
) -> None:
    api.script_messages(Reply(body=message_body([], stop_reason="max_tokens")))
    with pytest.raises(AnswerUnusable) as info:
        llm.complete(request(exchange(1)))
    assert info.value.cause == "max_tokens"


def test_refusal_is_an_unusable_answer(api: FakeMessagesAPI, llm: AnthropicLLM) -> None:
    api.script_messages(refusal())
    with pytest.raises(AnswerUnusable, match="refused") as info:
        llm.complete(request(exchange(1)))
    assert info.value.cause == "refusal"


def test_empty_content_and_a_page_that_is_not_the_api_s_json_are_unusable_answers(
    api: FakeMessagesAPI, llm: AnthropicLLM
) -> None:
    api.script_messages(empty_content())
    with pytest.raises(AnswerUnusable) as info:
        llm.complete(request(exchange(1)))
    assert info.value.cause == "empty"
    html = Reply(
        body=b"<html><body>Welcome to the proxy</body></html>", headers={"content-type": "text/html"}
    )
    api.script_messages(html)
    with pytest.raises(AnswerUnusable) as info:
        llm.complete(request(exchange(1)))
    assert info.value.cause == "not_api_json"


@pytest.mark.parametrize("reply", [unauthorized(), bad_request()])
def test_other_permanent_errors_are_not_unusable_answers(
    api: FakeMessagesAPI, llm: AnthropicLLM, reply: Reply
) -> None:
    api.script_messages(reply)
    with pytest.raises(LLMPermanentError) as info:
        llm.complete(request(exchange(1)))
    assert not isinstance(info.value, AnswerUnusable)


def test_sdk_retries_follow_the_setting(api: FakeMessagesAPI) -> None:
    llm = AnthropicLLM(client_for(api, max_retries=1), MODEL)
    api.script_messages(overloaded(), tool_use_reply(TOOL_NAME, {"add": [add_op([1])]}))
    answer = llm.complete(request(exchange(1)))
    assert answer.tool_input == {"add": [add_op([1])]}
    assert len(api.requests_to(MESSAGES_PATH)) == 2


def test_factory_client_honours_anthropic_base_url(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    llm = build_llm(load_settings(llm="anthropic", llm_max_retries=0))
    answer = llm.complete(request(exchange(4)))  # the fake's default reply covers exchange 4
    assert answer.tool_input == {
        "add": [{"exchange_ids": [4], "text": "Worked on the task of exchange 4.", "importance": "medium"}]
    }
    (sent,) = api.wait_for_requests(1, MESSAGES_PATH)
    assert "sk-from-env" in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))


def test_count_tokens_is_used_and_cached(api: FakeMessagesAPI) -> None:
    api.script_count_tokens(count_reply(42), count_reply(7))
    counter = AnthropicTokenCounter(client_for(api), MODEL)
    assert counter.count("anthropic", "", b"hello summary") == 42
    assert counter.count("anthropic", "", b"hello summary") == 42
    assert counter.count("anthropic", "", b"other text") == 7
    sent = api.requests_to(COUNT_TOKENS_PATH)
    assert len(sent) == 2
    assert sent[0].body == {"model": MODEL, "messages": [{"role": "user", "content": "hello summary"}]}
    assert counter.api_calls == 2


def test_count_tokens_cache_is_bounded(api: FakeMessagesAPI) -> None:
    counter = AnthropicTokenCounter(client_for(api), MODEL, cache_size=2)
    for text in (b"one", b"two", b"three", b"one"):
        counter.count("anthropic", "", text)
    assert counter.api_calls == 4  # "one" was evicted by "three"


def test_count_tokens_failure_falls_back_to_bytes_and_cools_down(api: FakeMessagesAPI) -> None:
    now = [100.0]
    counter = AnthropicTokenCounter(client_for(api), MODEL, cooldown=30, clock=lambda: now[0])
    api.script_count_tokens(server_error())
    data = b"x" * 401
    assert counter.count("anthropic", "", data) == estimate_from_bytes(data)
    assert counter.count("anthropic", "", b"during the cool-down") == estimate_from_bytes(
        b"during the cool-down"
    )
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 1
    now[0] += 31
    api.script_count_tokens(count_reply(9))
    assert counter.count("anthropic", "", data) == 9
    assert counter.fallbacks == 2


def test_count_tokens_unreachable_falls_back_to_bytes() -> None:
    with FakeMessagesAPI() as gone:
        client = client_for(gone, timeout=1)
    counter = AnthropicTokenCounter(client, MODEL)
    assert counter.count("anthropic", "", b"12345678") == 2


def test_retry_after_header_forms() -> None:
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "12"}) == 12.0
    later = email.utils.formatdate(time.time() + 60, usegmt=True)
    value = retry_after_seconds({"retry-after": later})
    assert value is not None
    assert 50 < value <= 60
    assert retry_after_seconds({}) is None


def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_no_credentials_at_request_time_is_permanent_and_counting_falls_back(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _no_credentials(monkeypatch)
    monkeypatch.setenv("HOME", str(tmp_path))  # no config files either
    client = anthropic.Anthropic(base_url=api.base_url, max_retries=0, timeout=2)
    with pytest.raises(LLMPermanentError, match="no Anthropic credentials"):
        AnthropicLLM(client, MODEL).complete(request(exchange(1)))
    assert AnthropicTokenCounter(client, MODEL).count("anthropic", "", b"12345678") == 2
    assert api.requests == []


def test_broken_credentials_config_fails_at_startup(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _no_credentials(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))  # a config dir without a profile
    with pytest.raises(LLMPermanentError, match="no Anthropic credentials"):
        build_llm(load_settings(llm="anthropic"))
