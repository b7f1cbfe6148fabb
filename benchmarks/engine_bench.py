"""Engine timings: the per-update core on a full summary, and emergency truncation of a huge answer.

    uv run python benchmarks/engine_bench.py [--runs N]

Targets: validate + apply + cap + render on a ~10k-token summary <= 5 ms (median); emergency truncation of
a ~100k-token answer <= 50 ms (median). The LLM is an instant fake, so only the engine's own work counts.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import structlog

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, Summary, SummaryEngine
from summarizer.engine.aging import age_items
from summarizer.engine.apply import apply_operations
from summarizer.engine.cap import enforce_cap, estimate_text
from summarizer.engine.model import Importance, SummaryItem, Tier
from summarizer.engine.ports import LLMAnswer
from summarizer.engine.render import render_items
from summarizer.engine.validation import GateContext, validate_answer
from summarizer.llm.fake import FakeLLM

NOW = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)
MAX_TOKENS = 10_000
SENTENCE = "Implemented the {n}th part of the feature with tests, and settled the API shape for it. "


def make_items(target_tokens: int, first_id: int = 1) -> list[SummaryItem]:
    items: list[SummaryItem] = []
    n = first_id
    tiers = [
        (Tier.SESSION, timedelta(hours=2)),
        (Tier.YESTERDAY, timedelta(days=3)),
        (Tier.WEEK, timedelta(days=9)),
    ]
    total = 0
    while total < target_tokens:
        tier, age = tiers[n % 3]
        ended = NOW - age - timedelta(minutes=n)
        items.append(
            SummaryItem(
                id=f"x{n}",
                tier=tier,
                text=(SENTENCE.format(n=n) * 3).strip(),
                started_at=ended - timedelta(minutes=10),
                ended_at=ended,
                source_tokens=3_000 + n,
                importance=list(Importance)[n % 3],
                exchange_ids=(n,),
            )
        )
        total += estimate_text(items[-1].text)  # about the line; topped up below against the real rendering
        if total >= target_tokens:
            total = estimate_text(render_items(items, NOW))
        n += 1
    while estimate_text(render_items(items, NOW)) > target_tokens:
        items.pop()
    return items


def make_exchange(n: int) -> EvictedExchange:
    at = NOW - timedelta(minutes=30)
    messages = (
        StoredMessage(1, Kind.USER, "Please add rate limiting to the API.", 10, at, n, False),
        StoredMessage(2, Kind.ASSISTANT, "Added a token bucket per API key with tests.", 12, at, n, False),
    )
    return EvictedExchange(
        id=n, started_at=at, ended_at=at + timedelta(minutes=4), tokens=4_000, messages=messages
    )


def median_ms(runs: int, fn: Callable[[], object]) -> float:
    fn()  # warm up
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def report(label: str, value: float, target: float) -> None:
    verdict = "ok" if value <= target else "OVER TARGET"
    print(f"{label:<62} {value:8.2f} ms   (target <= {target:g} ms: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    # Truncation warnings would flood the output; the timings are what this script is for.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))

    items = make_items(9_600)
    summary = Summary(agent_id="bench", version=1, items=tuple(items), covered_through_exchange_id=len(items))
    batch = [make_exchange(len(items) + k) for k in range(1, 4)]
    answer = {
        "add": [
            {
                "exchange_ids": [x.id],
                "text": "Added per-key rate limiting with a token bucket.",
                "importance": "high",
            }
            for x in batch
        ]
    }
    by_id = {x.id: x for x in batch}
    gate = GateContext([x.id for x in batch], {}, 600)

    def core() -> str:
        ops = validate_answer(answer, gate)
        applied = apply_operations(age_items(items, NOW).items, ops, by_id, NOW)
        capped = enforce_cap(applied.items, NOW, MAX_TOKENS, estimate_text)
        return render_items(capped.items, NOW)

    llm = FakeLLM(fallback=lambda request: LLMAnswer(tool_input=answer, model="bench"))
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig())

    def full_update() -> object:
        return engine.update(summary, "bench", batch, NOW)

    huge = make_items(100_000)  # what an LLM ignoring the budget could hand back

    def truncate() -> object:
        return enforce_cap(huge, NOW, MAX_TOKENS, estimate_text)

    result = enforce_cap(huge, NOW, MAX_TOKENS, estimate_text)
    print(
        f"summary: {len(items)} items, {estimate_text(render_items(items, NOW))} tokens; batch of {len(batch)}"
    )
    print(
        f"huge answer: {len(huge)} items, {result.tokens_before} tokens -> {result.tokens_after} tokens "
        f"({len(result.dropped_ids)} dropped)"
    )
    report("validate + apply + cap + render, ~10k-token summary (median)", median_ms(args.runs, core), 5)
    report(
        "engine.update incl. prompt build, instant fake LLM (median)", median_ms(args.runs, full_update), 5
    )
    report(
        "emergency truncation of a ~100k-token answer (median)",
        median_ms(max(20, args.runs // 10), truncate),
        50,
    )


if __name__ == "__main__":
    main()
