"""FakeLLM: a scripted stand-in for the LLM port, for tests and benchmarks.

Each call takes the next scripted step: an LLMAnswer, a tool-input dict, an exception to raise, or a
callable that builds an answer from the request. With the script used up (or none given) it answers like
the offline summarizer, labelled as the fake, so that long runs need no script at all. Faults can be set
per call number (by kind: transient, permanent, auth, quota, overloaded, rate_limit, server, connection),
or for as long as an outage file exists, and the most recent requests are kept for assertions (a bounded history, so a worker
running the fake for hours does not grow).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from summarizer.engine.ports import LLMAnswer, LLMError, LLMPermanentError, LLMRequest, LLMTransientError
from summarizer.llm.offline import offline_operations
from summarizer.llm.provider_errors import ProviderUnreachable

FAKE_MODEL = "fake-llm"
HISTORY = 100

Step = LLMAnswer | Mapping[str, Any] | BaseException | Callable[[LLMRequest], LLMAnswer]


def default_answer(request: LLMRequest) -> LLMAnswer:
    """A valid answer for any request: one extractive item per exchange."""
    return LLMAnswer(
        tool_input=offline_operations(request).to_tool_input(),
        input_tokens=len(request.system + request.user_text) // 4,
        output_tokens=50 * len(request.context.batch),
        model=FAKE_MODEL,
    )


def fault(kind: str) -> LLMError:
    """The error a real provider gives for `kind` (its status and, for provider-scoped kinds, its fault)."""
    makers: dict[str, Callable[[], LLMError]] = {
        "transient": lambda: LLMTransientError("fake transient fault", status=529),
        "permanent": lambda: LLMPermanentError("fake permanent fault", status=400),
        "auth": lambda: LLMPermanentError("HTTP 401: fake invalid x-api-key", status=401),
        "quota": lambda: LLMPermanentError("HTTP 402: fake credit balance too low", status=402),
        "overloaded": lambda: LLMTransientError("HTTP 529: fake Overloaded", status=529),
        "rate_limit": lambda: LLMTransientError("HTTP 429: fake rate limit", status=429, retry_after=1.0),
        "server": lambda: LLMTransientError("HTTP 500: fake internal error", status=500),
        "connection": lambda: ProviderUnreachable("fake connection refused"),
    }
    maker = makers.get(kind)
    if maker is None:
        raise ValueError(f"unknown fault kind {kind!r}: expected one of {', '.join(sorted(makers))}")
    return maker()


def parse_faults(spec: str) -> dict[int, BaseException]:
    """ "1:transient,3:auth" -> errors raised on the first and third calls (kinds: see `fault`)."""
    faults: dict[int, BaseException] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        number, _, kind = part.partition(":")
        if not number.strip().isdigit():
            raise ValueError(f"fault {part!r}: expected NUMBER:KIND")
        try:
            faults[int(number)] = fault(kind.strip())
        except ValueError as exc:
            raise ValueError(f"fault {part!r}: {exc}") from None
    return faults


class FakeLLM:
    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        fallback: Callable[[LLMRequest], LLMAnswer] | None = default_answer,
        latency: float = 0.0,
        faults: Mapping[int, BaseException] | None = None,
        history: int = HISTORY,
        outage_file: Path | None = None,
    ) -> None:
        self._script: deque[Step] = deque(script)
        self._fallback = fallback
        self._latency = latency
        self._faults = dict(faults or {})
        self._outage_file = outage_file
        self._lock = threading.Lock()
        self._calls = 0
        self.requests: deque[LLMRequest] = deque(maxlen=history)
        """The last `history` requests, oldest first."""

    @property
    def calls(self) -> int:
        return self._calls

    def push(self, *steps: Step) -> None:
        with self._lock:
            self._script.extend(steps)

    def complete(self, request: LLMRequest) -> LLMAnswer:
        with self._lock:
            self.requests.append(request)
            self._calls += 1
            number = self._calls
            step: Step | None = self._script.popleft() if self._script else None
        if self._latency:
            time.sleep(self._latency)  # simulated model latency, not a wait for a condition
        outage = self._outage()
        if outage is not None:
            raise outage
        scripted_fault = self._faults.get(number)
        if scripted_fault is not None:
            raise scripted_fault
        if step is None:
            if self._fallback is None:
                raise AssertionError(f"FakeLLM: call {number} has no scripted answer")
            return self._fallback(request)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, LLMAnswer):
            return step
        if isinstance(step, Mapping):
            return LLMAnswer(tool_input=step, model=FAKE_MODEL)
        return step(request)

    def _outage(self) -> BaseException | None:
        """While the outage file exists, every call fails with the fault kind written in it (a provider
        outage that a test starts and ends from outside the worker processes)."""
        if self._outage_file is None:
            return None
        try:
            kind = self._outage_file.read_text().strip()
        except OSError:
            return None
        return fault(kind or "overloaded")
