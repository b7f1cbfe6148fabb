"""Each sliding-window rule of the foundation issue, on the pure planner (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.window import EvictReason, WindowPlanner, WindowState, title_of

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Harness:
    """Feeds a planner and remembers exchange totals the way the store would."""

    def __init__(self, budget: int) -> None:
        self.state = WindowState(budget=budget)
        self.totals: dict[int, int] = {}
        self.tick = 0

    def lookup(self, number: int) -> int:
        return self.totals.get(number, 0)

    def feed(self, *messages: NewMessage, end_batch: bool = True) -> WindowPlanner:
        planner = WindowPlanner(self.state, self.lookup)
        for m in messages:
            self.tick += 1
            placed = planner.add(m, m.tokens or 0, m.created_at or T0 + timedelta(seconds=self.tick))
            if placed.exchange is not None:
                self.totals[placed.exchange] = self.totals.get(placed.exchange, 0) + placed.tokens
        if end_batch:
            planner.enforce_budget(T0 + timedelta(seconds=self.tick))
        return planner


def user(text: str = "do it", tokens: int = 10) -> NewMessage:
    return NewMessage(Kind.USER, text, tokens=tokens)


def assistant(text: str = "done", tokens: int = 10) -> NewMessage:
    return NewMessage(Kind.ASSISTANT, text, tokens=tokens)


def call(call_id: str, tokens: int = 10) -> NewMessage:
    return NewMessage(
        Kind.TOOL_CALL, "", tool_call_id=call_id, name="bash", input={"cmd": "ls"}, tokens=tokens
    )


def result(call_id: str, tokens: int = 10) -> NewMessage:
    return NewMessage(Kind.TOOL_RESULT, "ok", tool_call_id=call_id, tokens=tokens)


def test_messages_before_first_user_are_preamble_and_never_evicted() -> None:
    h = Harness(budget=30)
    h.feed(NewMessage(Kind.SYSTEM, "you are helpful", tokens=25))
    h.feed(user(), assistant(), user(), assistant())
    assert h.state.preamble_tokens == 25
    assert h.state.window_start == 2  # exchange 1 went, the preamble stayed
    assert h.state.window_tokens == 25 + 20


def test_user_message_starts_exchange_and_holds_everything_until_next() -> None:
    h = Harness(budget=0)
    planner = h.feed(user(), call("c1"), result("c1"), assistant(), user(), assistant())
    exchanges = [p.exchange for p in planner.plan.messages]
    assert exchanges == [1, 1, 1, 1, 2, 2]


def test_tool_result_carrier_does_not_start_an_exchange() -> None:
    h = Harness(budget=0)
    carrier_text = NewMessage(Kind.USER, "here you go", continues_exchange=True, tokens=1)
    planner = h.feed(user(), call("c1"), result("c1"), carrier_text, assistant())
    assert {p.exchange for p in planner.plan.messages} == {1}


def test_exchange_complete_only_while_last_message_is_assistant() -> None:
    h = Harness(budget=0)
    seen = []
    for message in (user(), assistant("let me look"), call("c1"), result("c1"), assistant()):
        h.feed(message)
        seen.append(h.state.current_complete)
    assert seen == [False, True, False, False, True]


def test_interrupted_exchange_is_still_a_whole_unit() -> None:
    h = Harness(budget=35)
    h.feed(user(), call("c1"), result("c1"))  # interrupted: no final answer
    planner = h.feed(user("actually do Y"), assistant())
    assert planner.plan.evictions
    assert planner.plan.evictions[0].first == 1
    assert planner.plan.evictions[0].last == 1


def test_metadata_messages_count_zero_and_belong_to_their_exchange() -> None:
    h = Harness(budget=0)
    mark = NewMessage(Kind.MARK, "checkpoint")
    planner = h.feed(user(), mark, assistant())
    assert planner.plan.messages[1].exchange == 1
    assert h.totals[1] == 20


def test_budget_eviction_removes_oldest_whole_exchanges_until_under_budget() -> None:
    h = Harness(budget=50)
    planner = h.feed(user(), assistant(), user(), assistant(), user(), call("c"), result("c"), assistant())
    assert h.state.window_tokens <= 50
    # 20 + 20 + 40 = 80 > 50 -> drop exchange 1 (60, still over) -> drop exchange 2 (40)
    assert [(e.first, e.last, e.reason) for e in planner.plan.evictions] == [(1, 2, EvictReason.BUDGET)]
    assert h.state.window_start == 3


def test_newest_exchange_is_never_evicted_even_over_budget() -> None:
    h = Harness(budget=10)
    h.feed(user(tokens=500), assistant(tokens=500))
    assert h.state.exchanges_in_window == 1
    assert h.state.window_tokens == 1000
    h.feed(user(tokens=400), assistant(tokens=400))
    assert h.state.window_start == 2
    assert h.state.exchanges_in_window == 1


def test_budget_zero_never_evicts() -> None:
    h = Harness(budget=0)
    planner = h.feed(*(m for _ in range(50) for m in (user(tokens=1000), assistant(tokens=1000))))
    assert planner.plan.evictions == []
    assert h.state.window_tokens == 100_000


def test_eviction_checked_after_each_completed_exchange_not_mid_exchange() -> None:
    h = Harness(budget=25)
    planner = h.feed(user(), assistant(), user(), call("c"), end_batch=False)
    assert planner.plan.evictions == []  # exchange 2 is not complete yet
    planner = h.feed(result("c"), assistant(), end_batch=False)
    assert planner.plan.evictions[0].first == 1


def test_end_of_batch_enforces_budget_for_an_incomplete_exchange() -> None:
    h = Harness(budget=25)
    planner = h.feed(user(), assistant(), user(), call("c"), result("c"))
    assert [(e.first, e.last) for e in planner.plan.evictions] == [(1, 1)]


def test_clear_evicts_every_exchange_that_began_before_it_whatever_the_budget() -> None:
    h = Harness(budget=0)
    h.feed(NewMessage(Kind.SYSTEM, "sys", tokens=5), user(), assistant(), user(), assistant())
    planner = h.feed(NewMessage(Kind.COMMAND, "/clear"), NewMessage(Kind.CLEAR, ""))
    assert [(e.first, e.last, e.reason) for e in planner.plan.evictions] == [(1, 2, EvictReason.CLEAR)]
    assert h.state.window_tokens == 5
    assert h.state.exchanges_in_window == 0
    h.feed(user(), assistant())
    assert h.state.window_start == 3
    assert h.state.window_tokens == 25


def test_messages_after_clear_join_the_cleared_exchange_out_of_window() -> None:
    h = Harness(budget=0)
    h.feed(user(), assistant(), NewMessage(Kind.CLEAR, ""))
    before = h.state.window_tokens
    planner = h.feed(assistant("context cleared"))
    assert planner.plan.messages[0].exchange == 1
    assert h.state.window_tokens == before


def test_tool_result_without_matching_call_in_same_exchange_is_rejected() -> None:
    h = Harness(budget=0)
    h.feed(user(), call("c1"), result("c1"), assistant())
    with pytest.raises(InvalidMessage, match="matches no tool_call earlier in the same exchange"):
        h.feed(user(), result("c1"))


def test_tool_call_needs_an_id() -> None:
    h = Harness(budget=0)
    with pytest.raises(InvalidMessage, match="tool_call needs a tool_call_id"):
        h.feed(user(), NewMessage(Kind.TOOL_CALL, "", name="bash"))


def test_decreasing_created_at_is_rejected_with_where() -> None:
    h = Harness(budget=0)
    h.feed(NewMessage(Kind.USER, "a", created_at=T0 + timedelta(hours=1)))
    late = NewMessage(Kind.ASSISTANT, "b", created_at=T0, where="chat.jsonl:2")
    with pytest.raises(InvalidMessage, match=r"^chat.jsonl:2: created_at .* is before"):
        h.feed(late)


def test_title_is_first_non_empty_line_shortened() -> None:
    assert title_of("\n  Implement auth  \nwith JWT") == "Implement auth"
    long = title_of("x" * 500)
    assert len(long) <= 72
    assert long.endswith("…")
    assert title_of("   ") == "(empty)"
