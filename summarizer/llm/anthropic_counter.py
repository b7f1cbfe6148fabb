"""A TokenCounter backed by the Messages count_tokens endpoint.

Counts are cached by a hash of the model and the bytes (a bounded LRU), since the engine counts the same
renderings and messages again and again. When the API is unreachable or fails, the count falls back to the
bytes estimate and the API is left alone for a cool-down, so a dead endpoint costs one timeout, not one per
count. The API's count includes a few tokens of message framing, which errs on the safe side of a cap.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import anthropic
import structlog

from summarizer.domain.tokens import ByteEstimateCounter, TokenCounter

log = structlog.get_logger("summarizer.llm")


class AnthropicTokenCounter:
    def __init__(
        self,
        client: anthropic.Anthropic,
        model: str,
        *,
        cache_size: int = 4096,
        cooldown: float = 60.0,
        fallback: TokenCounter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._model = model
        self._cache: OrderedDict[bytes, int] = OrderedDict()
        self._cache_size = cache_size
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
        key = hashlib.sha256(model.encode() + b"\0" + data).digest()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
            api_down = self._clock() < self._down_until
        if api_down:
            return self._estimate(provider, model, data)
        try:
            self.api_calls += 1
            result = self._client.messages.count_tokens(
                model=model, messages=[{"role": "user", "content": data.decode("utf-8", errors="replace")}]
            )
            tokens = int(result.input_tokens)
        except (anthropic.AnthropicError, TypeError) as exc:  # TypeError: the SDK found no credentials
            log.warning("token_count.fallback", error=type(exc).__name__, detail=str(exc)[:200])
            with self._lock:
                self._down_until = self._clock() + self._cooldown
            return self._estimate(provider, model, data)
        with self._lock:
            self._cache[key] = tokens
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return tokens

    def _estimate(self, provider: str, model: str, data: bytes) -> int:
        self.fallbacks += 1
        return self._fallback.count(provider, model, data)
