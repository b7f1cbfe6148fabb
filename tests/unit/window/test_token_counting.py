"""The token counting module: dispatch on provider, the bytes default, what a message costs."""

from __future__ import annotations

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import (
    ByteEstimateCounter,
    DispatchingCounter,
    estimate_from_bytes,
    message_tokens,
)


class FixedCounter:
    def __init__(self, value: int) -> None:
        self.value = value
        self.calls: list[tuple[str, str, bytes]] = []

    def count(self, provider: str, model: str, data: bytes) -> int:
        self.calls.append((provider, model, data))
        return self.value


def test_default_is_ceil_of_utf8_bytes_over_four() -> None:
    assert estimate_from_bytes(b"") == 0
    assert estimate_from_bytes(b"abcd") == 1
    assert estimate_from_bytes(b"abcde") == 2
    assert ByteEstimateCounter().count("any", "model", "é".encode()) == 1  # 2 bytes


def test_dispatch_picks_the_providers_counter_and_falls_back_to_bytes() -> None:
    special = FixedCounter(42)
    counter = DispatchingCounter({"anthropic": special})
    assert counter.count("anthropic", "claude-x", b"hello") == 42
    assert special.calls == [("anthropic", "claude-x", b"hello")]
    assert counter.count("openai", "gpt", b"12345678") == 2


def test_tool_fields_are_counted_with_the_content() -> None:
    bare = NewMessage(Kind.TOOL_CALL, "", tool_call_id="c1")
    rich = NewMessage(
        Kind.TOOL_CALL,
        "",
        tool_call_id="c1",
        name="file_write",
        input={"path": "src/auth.c", "body": "x" * 400},
    )
    counter = ByteEstimateCounter()
    assert message_tokens(rich, counter) > message_tokens(bare, counter) + 100


def test_hosts_own_token_figure_wins_and_metadata_counts_zero() -> None:
    counter = FixedCounter(999)
    assert message_tokens(NewMessage(Kind.USER, "hi", tokens=7), counter) == 7
    assert message_tokens(NewMessage(Kind.MARK, "checkpoint " * 100), counter) == 0
    assert message_tokens(NewMessage(Kind.CLEAR, "", tokens=50), counter) == 0
    assert counter.calls == []
    assert message_tokens(NewMessage(Kind.ASSISTANT, "answer"), counter, "anthropic", "m") == 999
