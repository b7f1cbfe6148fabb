from __future__ import annotations

import pytest

from summarizer.engine.ports import LLMAnswer, LLMError, LLMPermanentError, LLMTransientError
from summarizer.engine.validation import GateContext, validate_answer
from summarizer.llm.fake import FAKE_MODEL, FakeLLM, parse_faults
from tests.unit.engine.helpers import exchange
from tests.unit.engine.test_offline_llm import request


def test_scripted_steps_are_played_in_order_and_recorded() -> None:
    scripted = LLMAnswer(tool_input={"add": []}, model="scripted")
    llm = FakeLLM([scripted, {"add": [1]}, LLMTransientError("busy"), lambda r: LLMAnswer(None, text="hi")])
    req = request(exchange(1))
    assert llm.complete(req) is scripted
    assert llm.complete(req).tool_input == {"add": [1]}
    with pytest.raises(LLMTransientError):
        llm.complete(req)
    assert llm.complete(req).text == "hi"
    assert llm.calls == 4
    assert llm.requests[0] is req


def test_history_is_bounded_but_calls_count_them_all() -> None:
    llm = FakeLLM(history=3)
    requests = [request(exchange(n)) for n in range(1, 6)]
    for req in requests:
        llm.complete(req)
    assert llm.calls == 5
    assert list(llm.requests) == requests[-3:]


def test_without_a_script_the_fake_answers_validly() -> None:
    answer = FakeLLM().complete(request(exchange(1), exchange(2)))
    assert answer.model == FAKE_MODEL
    assert not answer.offline
    validate_answer(answer.tool_input, GateContext([1, 2], {}, 300))


def test_exhausted_script_without_fallback_fails_loudly() -> None:
    llm = FakeLLM(fallback=None)
    with pytest.raises(AssertionError, match="no scripted answer"):
        llm.complete(request(exchange(1)))


def test_faults_by_call_number() -> None:
    llm = FakeLLM(faults=parse_faults("2:transient, 3:permanent"))
    req = request(exchange(1))
    llm.complete(req)
    with pytest.raises(LLMTransientError):
        llm.complete(req)
    with pytest.raises(LLMPermanentError):
        llm.complete(req)
    llm.complete(req)


def test_bad_fault_spec_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fault kind 'sometimes'"):
        parse_faults("1:sometimes")
    with pytest.raises(ValueError, match="NUMBER:KIND"):
        parse_faults("first:auth")


def test_provider_fault_kinds_raise_what_a_provider_raises() -> None:
    from summarizer.llm.provider_errors import is_provider_scoped

    llm = FakeLLM(faults=parse_faults("1:auth,2:overloaded,3:connection,4:permanent"))
    scoped = []
    for _ in range(4):
        try:
            llm.complete(request(exchange(1)))
        except LLMError as exc:
            scoped.append(is_provider_scoped(exc))
    assert scoped == [True, True, True, False]
