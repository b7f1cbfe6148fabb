"""The fallback chain and its per-process provider health, with scripted LLMs and a manual clock."""

from __future__ import annotations

import threading

import pytest

from summarizer.engine.ports import LLMAnswer, LLMPermanentError, LLMTransientError
from summarizer.llm.fake import FakeLLM
from summarizer.llm.fallback import FallbackLLM
from summarizer.llm.provider_errors import MissingCredentials, ProviderUnreachable
from summarizer.llm.provider_health import CooldownHealth
from tests.integration.test_anthropic_adapter import request
from tests.unit.engine.helpers import exchange


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer(model: str) -> LLMAnswer:
    return LLMAnswer(tool_input={"add": []}, model=model)


def chain(primary: FakeLLM, clock: Clock, cooldown: float = 60) -> FallbackLLM:
    fallback = FakeLLM(fallback=lambda _request: answer("backup"))
    return FallbackLLM(
        primary, fallback, CooldownHealth("primary", cooldown, clock=clock), fallback_name="backup"
    )


@pytest.mark.parametrize(
    "error",
    [
        LLMPermanentError("HTTP 401: invalid key", status=401),
        LLMTransientError("HTTP 429: quota", status=429),
        LLMTransientError("HTTP 529: overloaded", status=529),
        ProviderUnreachable("connection refused"),
        MissingCredentials("no key"),
    ],
)
def test_a_provider_failure_is_answered_by_the_fallback_at_once(error: Exception) -> None:
    primary = FakeLLM([error])
    got = chain(primary, Clock()).complete(request(exchange(1)))
    assert got.model == "backup"
    assert got.extra["fallback"] == "backup"
    assert primary.calls == 1


@pytest.mark.parametrize(
    "error",
    [
        LLMPermanentError("HTTP 400: bad request", status=400),
        LLMPermanentError("the model refused to summarize"),
        LLMPermanentError("the answer was cut at the token limit"),
        LLMTransientError("request timed out"),
    ],
)
def test_a_request_failure_is_raised_and_the_primary_stays_in_use(error: Exception) -> None:
    primary = FakeLLM([error], fallback=lambda _request: answer("primary"))
    llm = chain(primary, Clock())
    with pytest.raises(type(error)):
        llm.complete(request(exchange(1)))
    assert llm.complete(request(exchange(1))).model == "primary"
    assert primary.calls == 2


def test_while_open_calls_skip_the_primary_then_one_probe_closes_it() -> None:
    clock = Clock()
    primary = FakeLLM(
        [LLMTransientError("HTTP 503", status=503)], fallback=lambda _request: answer("primary")
    )
    llm = chain(primary, clock, cooldown=60)
    assert llm.complete(request(exchange(1))).model == "backup"
    clock.now += 59
    assert [llm.complete(request(exchange(1))).model for _ in range(3)] == ["backup"] * 3
    assert primary.calls == 1
    clock.now += 2
    assert llm.complete(request(exchange(1))).model == "primary"  # the probe
    assert llm.complete(request(exchange(1))).model == "primary"
    assert primary.calls == 3


def test_a_failed_probe_reopens_for_another_cooldown() -> None:
    clock = Clock()
    down = LLMPermanentError("HTTP 401", status=401)
    primary = FakeLLM([down, down], fallback=lambda _request: answer("primary"))
    llm = chain(primary, clock, cooldown=10)
    llm.complete(request(exchange(1)))
    clock.now += 11
    assert llm.complete(request(exchange(1))).model == "backup"  # probe failed
    assert primary.calls == 2
    clock.now += 9
    assert llm.complete(request(exchange(1))).model == "backup"
    assert primary.calls == 2
    clock.now += 2
    assert llm.complete(request(exchange(1))).model == "primary"


def test_only_one_caller_probes_at_a_time() -> None:
    clock = Clock()
    health = CooldownHealth("primary", 5, clock=clock)
    health.record_failure(LLMTransientError("HTTP 503", status=503))
    clock.now += 6
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(health.allow_call())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    health.record_success()
    assert health.allow_call()
    assert not health.is_open


def test_a_failing_fallback_raises_its_own_error() -> None:
    primary = FakeLLM([ProviderUnreachable("refused")])
    fallback = FakeLLM([LLMTransientError("HTTP 529", status=529)])
    llm = FallbackLLM(primary, fallback, CooldownHealth("primary", 60, clock=Clock()))
    with pytest.raises(LLMTransientError, match="529"):
        llm.complete(request(exchange(1)))


def test_a_fallback_answer_keeps_every_figure_it_is_priced_by() -> None:
    """The cost ledger prices cache reads and writes apart from other input: an answer passed on by the
    chain keeps them, with its tokens and model."""
    served = LLMAnswer(
        tool_input={"add": []},
        input_tokens=1_200,
        output_tokens=80,
        model="backup",
        cache_read_tokens=900,
        cache_write_tokens=200,
    )
    fallback = FakeLLM(fallback=lambda _request: served)
    primary = FakeLLM([ProviderUnreachable("connection refused")])
    health = CooldownHealth("primary", 60, clock=Clock())
    got = FallbackLLM(primary, fallback, health, fallback_name="backup").complete(request(exchange(1)))
    assert (got.input_tokens, got.output_tokens, got.cache_read_tokens, got.cache_write_tokens) == (
        1_200,
        80,
        900,
        200,
    )
    assert got.model == "backup"
    assert got.extra["fallback"] == "backup"
