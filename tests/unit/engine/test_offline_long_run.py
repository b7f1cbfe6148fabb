"""A long real conversation through the summary engine with the offline summarizer.

The fixture `project-fixtures/tau_bench_airline.jsonl` of the corpora holds the first 25 airline-support trajectories of
tau-bench's published `historical_trajectories/gpt-4o-airline.json` (github.com/sierra-research/tau-bench,
commit 59a200c6d575d595120f1cb70fea53cef0632f6b, MIT licence), converted to the canonical message format:
system prompts left out, tool results over 400 characters shortened, one trajectory after another on a
replayed clock. It is real model and user text: 244 exchanges of booking, changing and cancelling flights.
"""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange, StoredMessage
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine import EngineConfig, LLMAnswer, LLMRequest, Summary, SummaryEngine, UpdatePath
from summarizer.engine.cap import estimate_text
from summarizer.ingest.reader import read_records
from summarizer.llm.offline import OFFLINE_PREFIX, OfflineLLM
from tests.support.corpora import fixture_path

pytestmark = pytest.mark.usefixtures("corpora")

FIXTURE = fixture_path("tau_bench_airline.jsonl")
FRAGMENT_LIST = re.compile(r"(?:[^;]*…\s*;){2,}")
CAP = 2_000
BATCH = 3


def exchanges() -> list[EvictedExchange]:
    out: list[list[StoredMessage]] = []
    for seq, record in enumerate(read_records(FIXTURE, "canonical", None, 1 << 20), start=1):
        m = record.message
        assert m.created_at is not None
        if m.starts_exchange or not out:
            out.append([])
        out[-1].append(
            StoredMessage(
                seq=seq,
                kind=m.kind,
                content=m.content,
                tokens=max(1, len(m.content.encode()) // 4),
                created_at=m.created_at,
                exchange_id=len(out),
                in_window=False,
                tool_call_id=m.tool_call_id,
                name=m.name,
                input=m.input,
                is_error=m.is_error,
            )
        )
    return [
        EvictedExchange(
            id=n,
            started_at=messages[0].created_at,
            ended_at=messages[-1].created_at,
            tokens=sum(x.tokens for x in messages),
            messages=tuple(messages),
        )
        for n, messages in enumerate(out, start=1)
        if any(x.kind is Kind.USER for x in messages)
    ]


class RungChecker:
    """The offline LLM, with each answer checked against what its rung allows."""

    def __init__(self) -> None:
        self.inner = OfflineLLM()
        self.merges = 0

    def complete(self, request: LLMRequest) -> LLMAnswer:
        answer = self.inner.complete(request)
        ops = answer.tool_input
        assert ops is not None
        path = request.context.path
        per_exchange: dict[int, int] = {}
        for add in ops["add"]:
            for x in add["exchange_ids"]:
                per_exchange[x] = per_exchange.get(x, 0) + 1
        assert max(per_exchange.values()) <= 2, "at most two items per exchange"
        assert not ops.get("drop"), "the offline summarizer never drops"
        if path is UpdatePath.APPEND:
            assert not ops.get("merge"), "the append rung only adds"
            assert not ops.get("shorten"), "the append rung only adds"
        shown = {i.id for i in request.context.visible_items}
        texts = {i.id: i.text for i in request.context.visible_items}
        for shorten in ops.get("shorten", []):
            old = texts[shorten["item_id"]]
            assert len(shorten["text"]) < len(old), "a shortening saves room"
            for decision in re.findall(r"Decided: ([^.]+)\.", old):
                assert decision in shorten["text"], "a shortening keeps every decision whole"
        for merge in ops.get("merge", []):
            assert set(merge["item_ids"]) <= shown
        self.merges += len(ops.get("merge", []))
        return answer


def test_a_long_real_conversation_stays_readable_and_nothing_is_dropped() -> None:
    llm = RungChecker()
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=CAP))
    all_exchanges = exchanges()
    assert len(all_exchanges) > 200
    summary: Summary | None = None
    paths = set()
    for start in range(0, len(all_exchanges), BATCH):
        batch = all_exchanges[start : start + BATCH]
        outcome = engine.update(summary, "tau", batch, batch[-1].ended_at)
        summary = outcome.summary
        paths.add(outcome.path)
        assert not outcome.truncated, "merging kept the summary under its cap without emergency truncation"
        assert estimate_text(engine.render(summary, batch[-1].ended_at)) <= CAP
    assert summary is not None
    assert {UpdatePath.APPEND, UpdatePath.MERGE} <= paths
    assert llm.merges > 10

    cited = sorted(x for i in summary.items for x in i.exchange_ids)
    assert cited == [x.id for x in all_exchanges], "every exchange is cited by exactly one item"
    largest = max(len(i.exchange_ids) for i in summary.items)
    assert largest < len(all_exchanges) // 2, "no single item swallows the conversation"
    assert len(summary.items) >= 8
    for item in summary.items:
        assert item.text.startswith(OFFLINE_PREFIX)
        assert item.text.count("…") <= 1, item.text
        assert not FRAGMENT_LIST.search(item.text), item.text
        assert len(item.text) <= EngineConfig().item_max_chars
    for a, b in pairwise(sorted(summary.items, key=lambda i: i.started_at)):
        assert a.id != b.id
    # Named artifacts of the conversation survive: reservation ids and user ids appear in the summary.
    text = " ".join(i.text for i in summary.items)
    assert re.search(r"\b[a-z]+_[a-z]+_\d{4}\b", text), "a user id such as mia_li_3668 is kept"
