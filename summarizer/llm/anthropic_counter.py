"""A TokenCounter backed by the Messages count_tokens endpoint.

Counts are cached by a hash of the model and the bytes (a bounded LRU): the engine counts the same
renderings again and again, and a host re-sends the same messages. The factory gives every counter of a
process one shared cache (`PROCESS_CACHE`), so the conversation store and the summary engine of a worker
never pay twice for the same text.

The endpoint's answer is untrusted input. Whatever goes wrong (an HTTP error, a timeout, a 200 whose body
is HTML or JSON without a usable count, a count no text of that size can have, a bug in the SDK), the count
falls back to the bytes estimate and the API is left alone for a cool-down, so a dead endpoint costs one
timeout, not one per count. A fallback is never cached: the next count after the cool-down asks again.
The API's count includes a few tokens of message framing, which errs on the safe side of a cap.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anthropic
import structlog

from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter

log = structlog.get_logger("summarizer.llm")

FRAMING_ALLOWANCE = 64
"""Tokens of message framing a count may add on top of one token per byte (no tokenizer does worse)."""
PROCESS_CACHE_SIZE = 65_536


class CountCache:
    """A thread-safe LRU of token counts keyed by (model, bytes) digests."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[bytes, int] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(model: str, data: bytes) -> bytes:
        return hashlib.sha256(model.encode() + b"\0" + data).digest()

    def get(self, key: bytes) -> int | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: bytes, tokens: int) -> None:
        with self._lock:
            self._entries[key] = tokens
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


PROCESS_CACHE = CountCache(PROCESS_CACHE_SIZE)
"""The one cache every counter built by the factory shares within a process."""


class UnusableCount(ValueError):
    """count_tokens answered, but not with a count this text can have."""


def checked_count(result: Any, data: bytes) -> int:
    """The `input_tokens` of a count_tokens answer, if it is a plausible count for `data`."""
    tokens = getattr(result, "input_tokens", None)
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        raise UnusableCount(f"input_tokens is {tokens!r}, not an integer")
    if tokens < 0 or tokens > len(data) + FRAMING_ALLOWANCE:
        raise UnusableCount(f"input_tokens {tokens} is impossible for {len(data)} bytes")
    return tokens


class AnthropicTokenCounter:
    def __init__(
        self,
        client: anthropic.Anthropic,
        model: str,
        *,
        cache: CountCache | None = None,
        cache_size: int = 4096,
        cooldown: float = 60.0,
        fallback: TokenCounter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`cache`: a cache to share (the factory passes PROCESS_CACHE); by default a private one."""
        self._client = client
        self._model = model
        self._cache = cache if cache is not None else CountCache(cache_size)
        self._cooldown = cooldown
        self._fallback = fallback or ByteEstimateCounter()
        self._clock = clock
        self._lock = threading.Lock()
        self._down_until = 0.0
        self.api_calls = 0
        self.fallbacks = 0

    def count(self, provider: str, model: str, data: bytes) -> int:
        if not data:
            return 0
        model = model or self._model
        key = self._cache.key(model, data)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        with self._lock:
            api_down = self._clock() < self._down_until
        if api_down:
            return self._estimate(provider, model, data)
        try:
            with self._lock:
                self.api_calls += 1
            result = self._client.messages.count_tokens(
                model=model, messages=[{"role": "user", "content": data.decode("utf-8", errors="replace")}]
            )
            tokens = checked_count(result, data)
        except Exception as exc:  # any failure at all: the estimate is always a usable answer
            log.warning("token_count.fallback", error=type(exc).__name__, detail=str(exc)[:200])
            with self._lock:
                self._down_until = self._clock() + self._cooldown
            return self._estimate(provider, model, data)
        self._cache.put(key, tokens)
        return tokens

    def _estimate(self, provider: str, model: str, data: bytes) -> int:
        with self._lock:
            self.fallbacks += 1
        return self._fallback.count(provider, model, data)
