"""Every exchange an update touches ends cited by an item or listed once in `forgotten`, with its reason."""

from __future__ import annotations

from datetime import timedelta

import pytest

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, Summary, SummaryEngine, exchange_citations, partition_problems
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.provenance import Forgotten
from summarizer.llm.fake import FakeLLM
from tests.unit.engine.helpers import NOW, add_op, exchange, item


def engine(llm: FakeLLM, max_tokens: int = 10_000) -> SummaryEngine:
    return SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=max_tokens))


def _over_half_of(max_tokens: int) -> Summary:
    """A summary whose rendering is over half of `max_tokens` (ids 1-9 folded)."""
    text = "Reviewed the deployment checklist, the rollout plan and the rollback drill in detail. " * 3
    items = tuple(item((n,), text=text[:290], item_id=f"x{n}") for n in range(1, 10))
    return Summary(agent_id="a", version=1, items=items, covered_through_exchange_id=9)


def test_exchanges_the_model_drops_are_forgotten_with_its_reason() -> None:
    previous = _over_half_of(1_000)
    answer = {"add": [add_op([10, 11])], "drop": [{"exchange_ids": [12], "reason": "small talk about lunch"}]}
    batch = [exchange(10), exchange(11), exchange(12)]
    outcome = engine(FakeLLM([answer]), max_tokens=1_000).update(previous, "a", batch, NOW)
    assert outcome.forgotten == (Forgotten((12,), "model", None, "small talk about lunch"),)
    citations = exchange_citations(outcome.summary.items)
    assert (citations[10], citations[11]) == ("x10-11", "x10-11")
    assert 12 not in citations


def test_new_exchanges_may_not_be_dropped_while_the_summary_is_under_half_of_its_cap() -> None:
    """A weak model's "nothing worth remembering" for every new exchange, with room to spare: refused."""
    answer = {"add": [add_op([1, 2])], "drop": [{"exchange_ids": [3], "reason": "small talk about lunch"}]}
    with pytest.raises(AnswerRejected, match="not over half of its cap"):
        engine(FakeLLM([answer])).update(None, "a", [exchange(1), exchange(2), exchange(3)], NOW)


def test_expired_batch_exchanges_are_forgotten_by_aging() -> None:
    old = [exchange(1, ended_ago=timedelta(days=20)), exchange(2, ended_ago=timedelta(days=15))]
    outcome = engine(FakeLLM()).update(None, "a", [*old, exchange(3)], NOW)
    aged = [f for f in outcome.forgotten if f.reason == "aging"]
    assert [f.exchange_ids for f in aged] == [(1,), (2,)]
    assert all(f.item_id is None and "more than 14 days ago" in f.detail for f in aged)
    assert aged[0].detail.startswith("ended 2025-02-20")
    assert partition_problems((), outcome.exchange_ids, outcome.summary.items, outcome.forgotten) == []


def test_items_aged_past_fourteen_days_are_forgotten_by_aging() -> None:
    previous = Summary(
        agent_id="a",
        version=1,
        items=(item((1, 2), ended_ago=timedelta(days=15)), item((3,), ended_ago=timedelta(days=2))),
        covered_through_exchange_id=3,
    )
    outcome = engine(FakeLLM()).age(previous, NOW)
    assert outcome.forgotten == (
        Forgotten((1, 2), "aging", "x1-2", "ended 2025-02-25, more than 14 days ago"),
    )
    update = engine(FakeLLM()).update(previous, "a", [exchange(4)], NOW)
    assert [(f.exchange_ids, f.reason) for f in update.forgotten] == [((1, 2), "aging")]


def test_emergency_truncation_is_forgotten_as_cap() -> None:
    adds = [add_op([n], f"Exchange {n} work. " * 20, "low") for n in range(1, 21)]
    outcome = engine(FakeLLM([{"add": adds}]), max_tokens=500).update(
        None, "a", [exchange(n) for n in range(1, 21)], NOW
    )
    assert outcome.truncated
    cap = [f for f in outcome.forgotten if f.reason == "cap"]
    assert {f.item_id for f in cap} == set(outcome.cap_dropped_ids)
    assert all("emergency truncation" in f.detail and "cap of 500" in f.detail for f in cap)
    assert partition_problems((), outcome.exchange_ids, outcome.summary.items, outcome.forgotten) == []


def test_an_exchange_still_cited_elsewhere_is_not_forgotten() -> None:
    answer = {"add": [add_op([1], "JWT auth design.", "low"), add_op([1, 2], "JWT auth and the login fix.")]}
    first = engine(FakeLLM([answer])).update(None, "a", [exchange(1), exchange(2)], NOW)
    assert exchange_citations(first.summary.items) == {1: "x1", 2: "x1-2"}
    previous = first.summary
    # The full rung drops x1 only; exchange 1 stays cited by x1-2, so nothing is forgotten for it.
    padded = tuple(
        item((n,), text="Other work item with some words. " * 4, ended_ago=timedelta(hours=2, minutes=n))
        for n in range(3, 9)
    )
    previous = Summary(
        agent_id="a",
        version=1,
        items=(*previous.items, *padded),
        covered_through_exchange_id=8,
    )
    current = engine(FakeLLM()).count(engine(FakeLLM()).render(previous, NOW))
    drop = {"add": [add_op([9], "Carried on.")], "drop": [{"item_ids": ["x1"], "reason": "covered by x1-2"}]}
    outcome = engine(FakeLLM([drop]), max_tokens=int(current / 0.97)).update(
        previous, "a", [exchange(9)], NOW
    )
    assert outcome.path.value == "full"
    assert "x1" not in {i.id for i in outcome.summary.items}
    assert outcome.forgotten == ()
    assert (
        partition_problems(previous.items, outcome.exchange_ids, outcome.summary.items, outcome.forgotten)
        == []
    )


def test_partition_problems_name_what_is_wrong() -> None:
    items = (item((1,)), item((2, 3)))
    assert partition_problems(items, [4], items, []) == ["neither cited nor forgotten: [4]"]
    forgotten = [
        Forgotten((2,), "model", None, "r"),
        Forgotten((4,), "model", None, "r"),
        Forgotten((4,), "cap", "x", "d"),
    ]
    problems = partition_problems(items, [4], items, forgotten)
    assert problems == ["forgotten more than once: [4]", "both cited and forgotten: [2]"]
    assert partition_problems((), [], items, []) == ["cited but never known: [1, 2, 3]"]
