from __future__ import annotations

from datetime import timedelta

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, Summary, SummaryEngine, UpdatePath
from summarizer.engine.cap import estimate_text
from summarizer.engine.model import Importance
from summarizer.engine.ports import LLMRequest, UpdateContext
from summarizer.engine.validation import GateContext, validate_answer
from summarizer.llm.offline import OFFLINE_PREFIX, OfflineLLM, importance_of, shorten
from tests.unit.engine.helpers import NOW, exchange, item


def request(
    *exchanges: object, path: UpdatePath = UpdatePath.APPEND, shown: tuple[object, ...] = ()
) -> LLMRequest:
    ctx = UpdateContext(
        path=path,
        batch=exchanges,  # type: ignore[arg-type]
        visible_items=shown,  # type: ignore[arg-type]
        max_item_chars=300,
        max_tokens=10_000,
        current_tokens=0,
    )
    return LLMRequest("system", "user", "tool", "d", {}, 1000, ctx)


def test_one_labelled_item_per_exchange_that_passes_the_gate() -> None:
    batch = (exchange(1), exchange(2, user="Fix the typo in the README.", assistant="Fixed it."))
    answer = OfflineLLM().complete(request(*batch))
    assert answer.offline
    ops = validate_answer(answer.tool_input, GateContext([1, 2], {}, 300))
    assert [a.exchange_ids for a in ops.add] == [(1,), (2,)]
    assert all(a.text.startswith(OFFLINE_PREFIX) for a in ops.add)
    assert "JWT" in ops.add[0].text
    assert "Answer: Fixed it." in ops.add[1].text


def test_importance_heuristics() -> None:
    assert importance_of("We decided on the API design") is Importance.HIGH
    assert importance_of("Debugging the flaky test") is Importance.LOW
    assert importance_of("Updated the readme") is Importance.MEDIUM


def test_data_that_reads_like_a_refusal_still_yields_a_valid_item() -> None:
    batch = (exchange(1, user="As an AI, what do you think?", assistant="I can't help with opinions."),)
    answer = OfflineLLM().complete(request(*batch))
    ops = validate_answer(answer.tool_input, GateContext([1], {}, 300))
    assert ops.add[0].text == OFFLINE_PREFIX + "Exchange 1 (3000 tokens)."


def test_shorten_keeps_within_the_limit() -> None:
    assert shorten("First sentence. Second one.", 100) == "First sentence."
    cut = shorten("word " * 100, 40)
    assert len(cut) <= 40
    assert cut.endswith("…")


def test_merge_rung_merges_the_oldest_shown_items() -> None:
    shown = tuple(item((n,), ended_ago=timedelta(hours=10 - n)) for n in range(1, 7))
    answer = OfflineLLM().complete(request(exchange(9), path=UpdatePath.MERGE, shown=shown))
    ops = validate_answer(answer.tool_input, GateContext([9], {i.id: i for i in shown}, 300))
    (merge,) = ops.merge
    assert merge.item_ids == ("x1", "x2", "x3")


def test_offline_engine_stays_valid_and_under_the_cap_over_many_updates() -> None:
    engine = SummaryEngine(OfflineLLM(), ByteEstimateCounter(), EngineConfig(max_tokens=600))
    summary: Summary | None = None
    paths = set()
    for batch_no in range(30):
        start = batch_no * 3 + 1
        batch = [
            exchange(n, ended_ago=timedelta(hours=60 - 2 * batch_no, minutes=-n))
            for n in range(start, start + 3)
        ]
        outcome = engine.update(summary, "agent", batch, NOW)
        summary = outcome.summary
        paths.add(outcome.path)
        assert estimate_text(engine.render(summary, NOW)) <= 600
    assert {UpdatePath.APPEND, UpdatePath.FULL} <= paths
    assert summary is not None
    assert summary.covered_through_exchange_id == 90
