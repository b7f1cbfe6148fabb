"""The token counting module: provider, model and bytes in, a token count out.

Callers never pick an algorithm; they ask a counter, which dispatches on the provider and falls back to the
bytes estimate (about four UTF-8 bytes per token). A real tokenizer for a provider is one more entry in
the dispatch table, with no change to the callers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Protocol

from summarizer.domain.kinds import Kind, is_conversation
from summarizer.domain.messages import NewMessage

BYTES_PER_TOKEN = 4


def estimate_from_bytes(data: bytes) -> int:
    """ceil(len / 4): slightly generous, which is the safe side for a budget ceiling."""
    return -(-len(data) // BYTES_PER_TOKEN)


class TokenCounter(Protocol):
    def count(self, provider: str, model: str, data: bytes) -> int: ...


class ByteEstimateCounter:
    """The default counter: no network, no tokenizer, deterministic."""

    def count(self, provider: str, model: str, data: bytes) -> int:
        return estimate_from_bytes(data)


class DispatchingCounter:
    """Picks a counter by provider; anything without its own counter gets the bytes estimate."""

    def __init__(
        self, by_provider: Mapping[str, TokenCounter] | None = None, fallback: TokenCounter | None = None
    ) -> None:
        self._by_provider = dict(by_provider or {})
        self._fallback = fallback or ByteEstimateCounter()

    def count(self, provider: str, model: str, data: bytes) -> int:
        counter = self._by_provider.get(provider, self._fallback)
        return counter.count(provider, model, data)


def message_bytes(message: NewMessage) -> bytes:
    """The bytes a message costs: its content plus its serialized tool fields."""
    data = message.content.encode("utf-8")
    tool_fields = {
        key: value
        for key, value in (
            ("name", message.name),
            ("input", message.input),
            ("tool_call_id", message.tool_call_id),
        )
        if value is not None
    }
    if tool_fields and message.kind is not Kind.USER:
        data += json.dumps(tool_fields, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode(
            "utf-8"
        )
    return data


def message_tokens(message: NewMessage, counter: TokenCounter, provider: str = "", model: str = "") -> int:
    """A message's token cost: the host's own figure when given, 0 for metadata, else the counter's."""
    if not is_conversation(message.kind):
        return 0
    if message.tokens is not None:
        return message.tokens
    return counter.count(provider, model, message_bytes(message))
