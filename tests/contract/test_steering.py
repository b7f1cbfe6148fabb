"""Pins, the "Now" pin and summary instructions on every backend (the in-memory fake, SQLite, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.engine.cap import estimate_text
from summarizer.engine.model import NOW_PIN
from summarizer.engine.pins import PinLimits
from summarizer.engine.prompt import OPERATOR_LEAD
from summarizer.llm.fake import FakeLLM
from summarizer.service.results import Outcome
from summarizer.service.steering import Steering
from summarizer.storage.values import AgentSteering
from tests.contract.harness import ContractStore
from tests.contract.support import T0, Clock, exchange, service


def _with_todos(i: int, steps: list[tuple[str, str]]) -> EvictedExchange:
    plain = exchange(i)
    todos = [{"step": text, "status": status} for text, status in steps]
    call = StoredMessage(
        100 * i,
        Kind.TOOL_CALL,
        "",
        5,
        T0,
        i,
        False,
        tool_call_id=f"p{i}",
        name="update_plan",
        input={"plan": todos},
    )
    return replace(plain, messages=(*plain.messages, call))


def test_a_pin_rides_through_updates_and_the_now_pin_follows_the_log(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(1)], clock())
    pins = Steering(store, PinLimits(10_000, 0.25), estimate_text, clock=clock)
    made = pins.pin("a", "Keep the public API stable.", name="api", by="test")
    store.evict(
        "a", [_with_todos(2, [("Write docs", "in_progress"), ("Tag v2", "pending")]), exchange(3)], clock()
    )
    assert service(store, clock, batch_size=1).run("a").outcome is Outcome.OK
    summary = store.load_summary("a")
    assert summary is not None
    assert summary.version == 2
    assert [p.name for p in summary.pins] == [NOW_PIN, "api"]
    assert summary.pins[1] == made
    assert summary.pins[0].text == (
        "Latest request (2026-03-02 09:00 UTC):\nPlease implement feature 3.\n\n"
        "Open todos (update_plan, 2026-03-02 09:00 UTC):\n- [in_progress] Write docs\n- [pending] Tag v2"
    )
    kept = store.summary_versions("a")
    assert [(v.summary.version, v.made_by) for v in kept] == [(1, "pin"), (2, "update")]


def test_instructions_reach_the_prompt_from_the_agents_state(store: ContractStore) -> None:
    clock = Clock()
    store.evict("a", [exchange(1), exchange(2), exchange(3)], clock())
    assert store.set_instructions("a", "Name every file touched.")
    assert store.set_now_item("a", False)
    assert store.steering("a") is not None
    assert not store.set_instructions("nobody", "x")
    assert not store.set_now_item("nobody", True)
    assert store.steering("nobody") is None
    llm = FakeLLM()
    assert service(store, clock, llm).run("a").outcome is Outcome.OK
    (request,) = llm.requests
    assert OPERATOR_LEAD in request.user_text
    assert "Name every file touched." in request.user_text


class _Interleaved:
    """The store, with `meanwhile` run once just after the first call the service makes through it
    returns: a second operator's whole call landing between one call's read and its write."""

    def __init__(self, store: ContractStore, meanwhile: Callable[[], None]) -> None:
        self._store = store
        self._meanwhile: Callable[[], None] | None = meanwhile

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            answer = found(*args, **kwargs)
            meanwhile, self._meanwhile = self._meanwhile, None
            if meanwhile is not None:
                meanwhile()
            return answer

        return call


def test_instructions_and_the_now_choice_set_at_once_keep_each_other(store: ContractStore) -> None:
    store.evict("a", [exchange(1)], Clock()())
    limits = PinLimits(10_000, 0.25)
    other = Steering(store, limits, estimate_text)

    def racing(meanwhile: Callable[[], None]) -> Steering:
        return Steering(cast(ContractStore, _Interleaved(store, meanwhile)), limits, estimate_text)

    racing(lambda: other.set_now_item("a", False)).set_instructions("a", "Name every file touched.")
    assert store.steering("a") == AgentSteering("Name every file touched.", False)
    racing(lambda: other.set_instructions("a", "Keep it short.")).set_now_item("a", True)
    assert store.steering("a") == AgentSteering("Keep it short.", True)
