"""Whether a provider may be called right now: the seam for a circuit breaker.

`ProviderHealth` is what the fallback chain asks before calling its primary provider and tells after each
call. `CooldownHealth` is the per-process implementation: a provider-scoped failure opens it for a
cool-down; afterwards ONE call probes the provider (the others keep using the fallback) and its outcome
closes or re-opens it. A fleet-wide breaker that shares this state between workers implements the same
protocol.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

import structlog

from summarizer.engine.ports import LLMError

log = structlog.get_logger("summarizer.llm")


class ProviderHealth(Protocol):
    def allow_call(self) -> bool:
        """True when the provider may be called now (closed, or this caller holds the probe)."""
        ...

    def record_success(self) -> None:
        """The provider answered (even with a request-scoped error): it is up."""
        ...

    def record_failure(self, error: LLMError) -> None:
        """The provider failed in a way every caller would see."""
        ...


class CooldownHealth:
    def __init__(self, name: str, cooldown: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self._cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._open_until: float | None = None
        self._probing = False

    @property
    def is_open(self) -> bool:
        with self._lock:
            return self._open_until is not None

    def allow_call(self) -> bool:
        with self._lock:
            if self._open_until is None:
                return True
            if self._probing or self._clock() < self._open_until:
                return False
            self._probing = True
            return True

    def record_success(self) -> None:
        with self._lock:
            was_open = self._open_until is not None
            self._open_until = None
            self._probing = False
        if was_open:
            log.warning("llm.provider.closed", provider=self.name)

    def record_failure(self, error: LLMError) -> None:
        with self._lock:
            was_open = self._open_until is not None
            self._open_until = self._clock() + self._cooldown
            self._probing = False
        if not was_open:
            log.warning(
                "llm.provider.open", provider=self.name, cooldown_s=self._cooldown, error=str(error)[:300]
            )
