"""Merges and shortenings are measured too: they may bring the summary down to half of its cap, no lower,
and may not shrink a summary that was already under that."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import AnswerRejected, EngineConfig, LLMAnswer, LLMRequest, Summary, SummaryEngine
from summarizer.engine.budget_gate import Budget, check_forgetting, shrink_floor
from summarizer.engine.cap import estimate_text
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import Importance, SummaryItem
from summarizer.engine.operations import MergeOp, Operations, ShortenOp
from summarizer.engine.render import render_items
from summarizer.llm.fake import FakeLLM
from tests.unit.engine.helpers import NOW, add_op, exchange, item
from tests.unit.engine.test_forgetting_gate import setup_at

FOLDED = "Reviewed the earlier work on the service."
"""One short text, unlike any other of the answer: what an injected "forget everything" merge writes."""


def _steps(ctx: Any) -> list[dict[str, object]]:
    return [add_op([x.id], f"Carried on with step {x.id}.", "medium") for x in ctx.batch]


def merge_everything(request: LLMRequest) -> LLMAnswer:
    ctx = request.context
    merge = {"item_ids": [i.id for i in ctx.visible_items], "text": FOLDED, "importance": "high"}
    return LLMAnswer(tool_input={"add": _steps(ctx), "merge": [merge]})


def shorten_everything(request: LLMRequest) -> LLMAnswer:
    ctx = request.context
    shorten = [{"item_id": i.id, "text": f"Item {n}."} for n, i in enumerate(ctx.visible_items, start=1)]
    return LLMAnswer(tool_input={"add": _steps(ctx), "shorten": shorten})


def engine(llm: FakeLLM, max_tokens: int) -> SummaryEngine:
    return SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=max_tokens))


@pytest.mark.parametrize("fraction", [0.31, 0.35, 0.42])
@pytest.mark.parametrize("path", [UpdatePath.MERGE, UpdatePath.FULL])
@pytest.mark.parametrize("hostile", [merge_everything, shorten_everything], ids=lambda f: f.__name__)
def test_folding_a_small_summary_into_a_few_words_is_rejected(
    fraction: float, path: UpdatePath, hostile: Callable[[LLMRequest], LLMAnswer]
) -> None:
    summary, cap, new = setup_at(fraction, path)
    llm = FakeLLM([hostile])
    with pytest.raises(AnswerRejected, match="takes the summary from"):
        engine(llm, cap).update(summary, "a", new, NOW)
    assert llm.requests[0].context.path is path
    # The same answer without touching the old items is accepted: it is the folding that is refused.
    honest = engine(FakeLLM([{"add": _steps(llm.requests[0].context)}]), cap)
    assert honest.update(summary, "a", new, NOW).summary.items[: len(summary.items)] == summary.items


def _topic_items(count: int = 10, chars: int = 300) -> tuple[SummaryItem, ...]:
    topics = ["the auth module", "the billing API", "the CI pipeline", "the schema", "the rate limiter"]
    return tuple(
        item(
            (n,),
            text=(f"Worked on {topics[n % len(topics)]} in step {n}: " + "what changed and why. " * 20)[
                :chars
            ],
            ended_ago=timedelta(hours=2, minutes=-5 * n),
            importance=Importance.MEDIUM,
        )
        for n in range(1, count + 1)
    )


def _over_target(fraction: float) -> tuple[Summary, int]:
    """Ten items of five topics, with the summary at `fraction` of its cap."""
    items = _topic_items()
    current = estimate_text(render_items(items, NOW))
    summary = Summary(agent_id="a", version=2, items=items, covered_through_exchange_id=len(items))
    return summary, int(current / fraction)


def _merge(ids: list[str], text: str) -> dict[str, object]:
    return {"item_ids": ids, "text": text, "importance": "medium"}


def test_a_topic_merge_from_over_the_target_to_above_the_floor_passes() -> None:
    summary, cap = _over_target(0.83)
    answer = {
        "add": [add_op([11], "Carried on with the auth module.", "medium")],
        "merge": [
            _merge(["x1", "x6"], "Worked on the billing API in steps 1 and 6."),
            _merge(["x2", "x7"], "Worked on the CI pipeline in steps 2 and 7."),
        ],
    }
    outcome = engine(FakeLLM([answer]), cap).update(summary, "a", [exchange(11)], NOW)
    assert outcome.path is UpdatePath.MERGE
    assert cap // 2 <= outcome.summary_tokens < summary_tokens(summary)
    merged = {i.text: i.exchange_ids for i in outcome.summary.items}
    assert merged["Worked on the billing API in steps 1 and 6."] == (1, 6)
    assert outcome.forgotten == ()


def summary_tokens(summary: Summary) -> int:
    return estimate_text(render_items(summary.items, NOW))


def test_a_merge_from_just_over_the_target_to_under_the_floor_is_rejected() -> None:
    summary, cap = _over_target(0.83)
    ids = [f"x{n}" for n in range(1, 11)]
    # Eight of ten items into one: the summary would end at about a third of its cap.
    too_much = {"add": [add_op([11], "Carried on.", "medium")], "merge": [_merge(ids[:8], FOLDED)]}
    with pytest.raises(AnswerRejected, match=r"under the \d+ it may shrink to"):
        engine(FakeLLM([too_much]), cap).update(summary, "a", [exchange(11)], NOW)
    # Four into one is as far as the budget could want and stays above the floor.
    enough = {"add": [add_op([11], "Carried on.", "medium")], "merge": [_merge(ids[:4], FOLDED)]}
    outcome = engine(FakeLLM([enough]), cap).update(summary, "a", [exchange(11)], NOW)
    assert outcome.summary_tokens >= cap // 2


def test_the_offline_summarizer_merges_by_topic_and_passes() -> None:
    items = _topic_items(40, 260)
    current = summary_tokens(Summary(agent_id="a", version=1, items=items))
    summary = Summary(agent_id="a", version=1, items=items, covered_through_exchange_id=40)
    for fraction in (0.81, 0.9, 0.97, 1.02):
        cap = int(current / fraction)
        outcome = engine(FakeLLM(), cap).update(summary, "a", [exchange(41)], NOW)
        assert outcome.path in (UpdatePath.MERGE, UpdatePath.FULL)
        assert len(outcome.summary.items) < len(items)
        assert outcome.summary_tokens >= cap // 2
        assert outcome.forgotten == ()


def _counter(items: Any) -> int:
    return sum(len(i.text) for i in items)


def test_shrink_floor_is_half_the_cap_or_where_the_summary_was() -> None:
    budget = Budget.for_cap(1000, 0.8)
    assert (budget.target_tokens, budget.floor_tokens) == (800, 500)
    assert shrink_floor(900, budget) == 500
    assert shrink_floor(350, budget) == 350
    # A target configured under the floor is what the budget needs: merges may go down to it.
    assert shrink_floor(450, Budget.for_cap(1000, 0.4)) == 400


def test_check_forgetting_measures_the_result_of_merges_and_shortenings() -> None:
    before = [item((n,), text="a" * 100) for n in range(1, 7)]  # 600 "tokens" with the length counter
    budget = Budget.for_cap(1000, 0.8)

    def after(kept: int, extra: int) -> list[SummaryItem]:
        return [*before[:kept], item((99,), text="b" * extra, item_id="m")]

    merge = Operations(merge=(MergeOp(("x5", "x6"), "b", Importance.LOW),))
    check_forgetting(before, after(4, 100), (), merge, budget, _counter)  # 500: at the floor
    with pytest.raises(AnswerRejected):
        check_forgetting(before, after(4, 99), (), merge, budget, _counter)
    shorten = Operations(shorten=(ShortenOp("x1", "b"),))
    with pytest.raises(AnswerRejected, match="shortening 1"):
        check_forgetting(before, after(3, 10), (), shorten, budget, _counter)
    # Without merges or shortenings nothing shrinks by the model's hand: not measured here.
    check_forgetting(before, after(0, 1), (), Operations(), budget, _counter)


_TOPICS = [
    "src/auth.py",
    "the billing API",
    "`RateLimiter`",
    "migrations/0004.sql",
    "the CI job",
    "PyJWT 2.1.0",
]


@st.composite
def summaries(draw: st.DrawFn) -> tuple[tuple[SummaryItem, ...], float, int]:
    """Items of mixed topics, lengths, ages and importance; a size relative to the cap; a batch size."""
    count = draw(st.integers(min_value=2, max_value=45))
    gaps = draw(st.lists(st.integers(min_value=1, max_value=240), min_size=count, max_size=count))
    items = []
    for n in range(1, count + 1):
        after_last = sum(gaps[n:])  # minutes from this item's end to the last item's
        topic = draw(st.sampled_from(_TOPICS))
        decided = draw(st.booleans())
        words = draw(st.integers(min_value=3, max_value=60))
        text = f"Asked: work on {topic} (step {n}). Done: " + "changed it and ran the tests; " * (words // 5)
        if decided:
            text += f"Decided: Decision: keep {topic} as it is."
        items.append(
            item(
                (n,),
                text=text[:590],
                ended_ago=timedelta(minutes=60 + after_last),
                importance=draw(st.sampled_from(list(Importance))),
            )
        )
    fraction = draw(st.floats(min_value=0.3, max_value=1.1))
    return tuple(items), fraction, draw(st.integers(min_value=1, max_value=12))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(summaries())
def test_the_offline_summarizer_always_passes_the_shrink_gate(
    drawn: tuple[tuple[SummaryItem, ...], float, int],
) -> None:
    items, fraction, batch_size = drawn
    summary = Summary(agent_id="a", version=1, items=items, covered_through_exchange_id=len(items))
    cap = max(200, int(summary_tokens(summary) / fraction))
    batch = [exchange(len(items) + n, ended_ago=timedelta(minutes=10)) for n in range(1, batch_size + 1)]
    llm = FakeLLM()
    outcome = engine(llm, cap).update(summary, "a", batch, NOW)  # raises AnswerRejected on a refusal
    event(f"path {outcome.path.value}")
    if llm.requests and llm.requests[0].context.path is not UpdatePath.APPEND:
        before = llm.requests[0].context.current_tokens
        assert outcome.tokens_before_cap >= min(before, cap // 2)


@pytest.mark.parametrize("path", [UpdatePath.MERGE, UpdatePath.FULL])
def test_the_prompt_states_how_far_merging_may_go(path: UpdatePath) -> None:
    summary, cap, new = setup_at(0.35, path)
    llm = FakeLLM([{"add": [add_op([x.id for x in new], "Carried on.", "medium")]}])
    engine(llm, cap).update(summary, "a", new, NOW)
    floor = EngineConfig(max_tokens=cap).budget.floor_tokens
    assert f"must not bring the summary under about {floor} tokens" in llm.requests[0].user_text
