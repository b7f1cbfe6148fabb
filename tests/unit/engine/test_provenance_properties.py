"""Property: over random runs of updates (append, merge and full rungs, rejected answers, truncation,
backfilled history) and daily aging, every exchange that has been folded is at every moment either cited by
an item of the current summary or recorded once as forgotten, with a reason, and never both."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import (
    AnswerRejected,
    EngineConfig,
    LLMAnswer,
    LLMRequest,
    Summary,
    SummaryEngine,
    UpdatePath,
    exchange_citations,
    partition_problems,
)
from summarizer.engine.provenance import FORGET_REASONS, cited_exchanges
from summarizer.llm.fake import FakeLLM, default_answer
from tests.unit.engine.helpers import NOW, message

STYLES = ("adds", "drops", "merge", "shorten", "full_drop", "offline", "spam")
WORDS = [
    "decided",
    "chose",
    "implemented",
    "fixed",
    "refactored",
    "tested",
    "the",
    "parser",
    "cache",
    "API",
    "schema",
    "login",
    "queue",
    "worker",
]


def _text(rng: random.Random, lo: int = 3, hi: int = 40) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def _answer(request: LLMRequest, style: str, rng: random.Random) -> LLMAnswer:
    ctx = request.context
    if style == "offline":
        return default_answer(request)
    ids = [x.id for x in ctx.batch]
    rng.shuffle(ids)
    adds: list[dict[str, Any]] = []
    drops: list[dict[str, Any]] = []
    while ids:
        group = [ids.pop() for _ in range(min(len(ids), rng.randint(1, 2)))]
        if style == "drops" and rng.random() < 0.4:
            drops.append({"exchange_ids": group, "reason": f"nothing to keep in {group}"})
            continue
        copies = rng.randint(2, 6) if style == "spam" else 1
        for _ in range(copies):
            adds.append(
                {
                    "exchange_ids": group,
                    "text": _text(rng),
                    "importance": rng.choice(["high", "medium", "low"]),
                }
            )
    answer: dict[str, Any] = {"add": adds, "drop": drops}
    visible = list(ctx.visible_items)
    rng.shuffle(visible)
    if style == "merge" and len(visible) >= 2 and ctx.path is not UpdatePath.APPEND:
        sources = visible[: rng.randint(2, min(4, len(visible)))]
        answer["merge"] = [
            {"item_ids": [i.id for i in sources], "text": _text(rng, 3, 12), "importance": "medium"}
        ]
    elif style == "shorten" and visible and ctx.path is not UpdatePath.APPEND:
        target = visible[0]
        answer["shorten"] = [
            {"item_id": target.id, "text": target.text[: max(1, len(target.text) // 2)] + "x"}
        ]
    elif style == "full_drop" and visible:
        victims = sorted(visible, key=lambda i: -i.importance.rank)[: rng.randint(1, 3)]
        answer["drop"] = [*drops, {"item_ids": [i.id for i in victims], "reason": "least important"}]
    return LLMAnswer(tool_input=answer)


@dataclass
class Scripted:
    """The fake model's policy for the next call."""

    style: str = "adds"
    rng: random.Random = field(default_factory=random.Random)

    def __call__(self, request: LLMRequest) -> LLMAnswer:
        return _answer(request, self.style, self.rng)


def _exchange(exchange_id: int, ended_at: datetime, rng: random.Random) -> EvictedExchange:
    started = ended_at - timedelta(minutes=rng.randint(1, 30))
    messages = (
        message(1, Kind.USER, _text(rng, 3, 20), started, exchange_id),
        message(2, Kind.ASSISTANT, _text(rng, 3, 30), ended_at, exchange_id),
    )
    return EvictedExchange(
        id=exchange_id, started_at=started, ended_at=ended_at, tokens=rng.randint(50, 5000), messages=messages
    )


update_step = st.tuples(
    st.just("update"),
    st.integers(1, 7),  # new exchanges
    st.sampled_from(["recent", "recent", "backfill", "mixed"]),
    st.sampled_from(STYLES),
    st.integers(0, 2**32 - 1),
    st.integers(0, 30),  # hours to advance
)
age_step = st.tuples(
    st.just("age"), st.just(0), st.just(""), st.just(""), st.integers(0, 2**32 - 1), st.integers(1, 24 * 9)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(st.one_of(update_step, update_step, age_step), min_size=1, max_size=14),
    max_tokens=st.sampled_from([250, 600, 1_500, 10_000]),
)
def test_every_folded_exchange_is_cited_or_forgotten_once(
    steps: list[tuple[str, int, str, str, int, int]], max_tokens: int
) -> None:
    policy = Scripted()
    engine = SummaryEngine(
        FakeLLM(fallback=policy), ByteEstimateCounter(), EngineConfig(max_tokens=max_tokens)
    )
    summary: Summary | None = None
    now = NOW
    next_id = 1
    pending: list[EvictedExchange] = []
    folded: set[int] = set()
    forgotten: dict[int, str] = {}

    for kind, count, when, style, seed, advance in steps:
        rng = random.Random(seed)
        now += timedelta(hours=advance)
        previous = summary.items if summary else ()
        if kind == "age":
            if summary is None:
                continue
            aged = engine.age(summary, now)
            if aged.skipped:
                continue
            assert partition_problems(previous, (), aged.summary.items, aged.forgotten) == []
            assert {f.reason for f in aged.forgotten} <= {"aging", "cap"}
            summary = aged.summary
            outcome_forgotten = aged.forgotten
        else:
            for _ in range(count):
                age = timedelta(minutes=rng.randint(1, 600))
                if when == "backfill" or (when == "mixed" and rng.random() < 0.5):
                    age = timedelta(days=rng.randint(1, 20), hours=rng.randint(0, 23))
                pending.append(_exchange(next_id, now - age, rng))
                next_id += 1
            policy.style, policy.rng = style, rng
            try:
                outcome = engine.update(summary, "a", pending, now)
            except AnswerRejected:
                event("rejected")
                continue  # the previous summary stands; the worker retries the same exchanges
            event(f"path {outcome.path.value}")
            if outcome.truncated:
                event("truncated")
            assert set(outcome.exchange_ids) == {x.id for x in pending}
            assert (
                partition_problems(previous, outcome.exchange_ids, outcome.summary.items, outcome.forgotten)
                == []
            )
            folded.update(outcome.exchange_ids)
            pending = []
            summary = outcome.summary
            outcome_forgotten = outcome.forgotten

        for record in outcome_forgotten:
            event(f"forgotten: {record.reason}")
            assert record.reason in FORGET_REASONS
            assert record.detail
            for x in record.exchange_ids:
                assert x not in forgotten, f"exchange {x} forgotten twice"
                forgotten[x] = record.reason
        cited = cited_exchanges(summary.items)
        assert set(exchange_citations(summary.items)) == cited
        assert not cited & set(forgotten), "an exchange is both cited and forgotten"
        assert cited | set(forgotten) == folded, "the ledger does not partition the folded exchanges"
        assert summary.token_count <= max_tokens
