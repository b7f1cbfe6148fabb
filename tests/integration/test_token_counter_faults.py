"""The count_tokens counter against the fake Messages API: any bad answer is the bytes estimate, never a crash."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from summarizer.domain.tokens import estimate_from_bytes
from summarizer.llm.anthropic_counter import AnthropicTokenCounter, CountCache
from summarizer.testing.fake_messages_api import (
    COUNT_TOKENS_PATH,
    FakeMessagesAPI,
    Reply,
    count_reply,
    slow,
)

MODEL = "claude-haiku-4-5"
TEXT = b"Please fix the failing auth test; the token check used the wrong clock skew."


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def client_for(api: FakeMessagesAPI, *, timeout: float = 5.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=api.base_url, timeout=timeout, max_retries=0)


BAD_BODIES: list[Any] = [
    b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    b"",
    b'{"input_tokens": 12',
    {},
    {"input_tokens": None},
    {"input_tokens": "many"},
    {"input_tokens": 12.5},
    {"input_tokens": True},
    {"input_tokens": -3},
    {"input_tokens": 10**30},
    [1, 2, 3],
    "twelve",
]


@pytest.mark.parametrize("body", BAD_BODIES, ids=[repr(b)[:30] for b in BAD_BODIES])
def test_a_200_without_a_usable_count_falls_back_to_the_estimate(api: FakeMessagesAPI, body: Any) -> None:
    api.script_count_tokens(Reply(status=200, body=body))
    counter = AnthropicTokenCounter(client_for(api), MODEL)
    assert counter.count("anthropic", "", TEXT) == estimate_from_bytes(TEXT)
    assert counter.fallbacks == 1
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 1


def test_a_fallback_is_not_cached_and_the_api_is_asked_again_after_the_cool_down(
    api: FakeMessagesAPI,
) -> None:
    now = [0.0]
    counter = AnthropicTokenCounter(client_for(api), MODEL, cooldown=30, clock=lambda: now[0])
    api.script_count_tokens(Reply(body=b"<html>maintenance</html>"))
    assert counter.count("anthropic", "", TEXT) == estimate_from_bytes(TEXT)
    assert counter.count("anthropic", "", TEXT) == estimate_from_bytes(TEXT)  # cooling down: no request
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 1
    now[0] = 31
    api.script_count_tokens(count_reply(17))
    assert counter.count("anthropic", "", TEXT) == 17
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 2


def test_a_timeout_falls_back_to_the_estimate(api: FakeMessagesAPI) -> None:
    api.script_count_tokens(slow(5, count_reply(17)))
    counter = AnthropicTokenCounter(client_for(api, timeout=0.5), MODEL)
    assert counter.count("anthropic", "", TEXT) == estimate_from_bytes(TEXT)
    assert counter.fallbacks == 1


def test_an_sdk_failure_of_any_kind_falls_back(api: FakeMessagesAPI) -> None:
    class Broken:
        class messages:
            @staticmethod
            def count_tokens(**_: Any) -> Any:
                raise RuntimeError("a bug in the SDK")

    counter = AnthropicTokenCounter(Broken(), MODEL)  # type: ignore[arg-type]
    assert counter.count("anthropic", "", TEXT) == estimate_from_bytes(TEXT)


def test_counters_sharing_a_cache_ask_once_for_the_same_text(api: FakeMessagesAPI) -> None:
    shared = CountCache(100)
    api.script_count_tokens(count_reply(17), count_reply(99))
    store_side = AnthropicTokenCounter(client_for(api), MODEL, cache=shared)
    engine_side = AnthropicTokenCounter(client_for(api), MODEL, cache=shared)
    assert store_side.count("anthropic", "", TEXT) == 17
    assert engine_side.count("anthropic", "", TEXT) == 17
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 1
    assert len(shared) == 1


def test_the_factory_gives_every_counter_of_a_process_the_same_cache(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summarizer.composition.llm import build_token_counter
    from summarizer.llm import anthropic_counter
    from summarizer.settings import Settings

    monkeypatch.setattr(anthropic_counter, "PROCESS_CACHE", CountCache(100))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    settings = Settings(token_counter="anthropic", model=MODEL)
    api.script_count_tokens(count_reply(17), count_reply(99))
    first, second = build_token_counter(settings), build_token_counter(settings)
    assert first is not second
    assert first.count("anthropic", "", TEXT) == 17
    assert second.count("anthropic", "", TEXT) == 17
    assert len(api.requests_to(COUNT_TOKENS_PATH)) == 1
