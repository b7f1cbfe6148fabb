"""Billed input tokens per folded exchange, with prompt caching priced as Anthropic prices it.

    uv run python benchmarks/cache_bench.py [--days N]

Replays the retention benchmark's three-week conversation (benchmarks/data/retention_conversation.jsonl)
through the real code paths on an embedded SQLite database with the replayed clock, an hour at a time,
with the daily aging pass, exactly as benchmarks/retention_bench.py does. The model is the offline
summarizer; every request the engine sends is priced as the Messages API would bill it:

- tokens are the byte estimate (about four bytes a token) of what the adapter sends: the tool definition
  with its stable schema, the system text, the summary parts and the rest of the user message;
- the cache breakpoints are the adapter's: after the system text, and after each shown tier;
- a prefix is cached only from 1,024 tokens on (Claude Sonnet's minimum), lives 5 minutes of replayed
  time and is refreshed by each hit; a hit is billed at 0.1 of the input price, a write at 1.25;
- "one agent" keeps only its own requests in the cache; "fleet" assumes other agents keep the shared
  tools-and-system prefix warm (with more than a handful of agents updating every few minutes it is).

The naive baseline is one call per evicted exchange that rewrites the whole summary: the same tools and
system text, the whole current summary and that one exchange, uncached.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import accumulate
from pathlib import Path

import structlog

from benchmarks.retention_bench import WINDOW_TOKENS, Clock, Replay, conversation
from summarizer.composition import (
    build_database,
)
from summarizer.composition.llm import build_engine
from summarizer.domain.tokens import estimate_from_bytes
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.llm.offline import OfflineLLM
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.migrations import upgrade

MIN_CACHEABLE = 1_024
TTL = timedelta(minutes=5)
READ_PRICE, WRITE_PRICE = 0.1, 1.25


def tokens(text: str) -> int:
    return estimate_from_bytes(text.encode("utf-8"))


@dataclass(slots=True)
class Bill:
    calls: int = 0
    exchanges: int = 0
    uncached: int = 0
    read: int = 0
    written: int = 0
    naive: int = 0

    @property
    def plain_input(self) -> int:
        return self.uncached + self.read + self.written

    @property
    def billed(self) -> float:
        return self.uncached + READ_PRICE * self.read + WRITE_PRICE * self.written


@dataclass(slots=True)
class PricedLLM:
    """The offline summarizer answering, each request priced with a simulated prompt cache."""

    clock: Clock
    fleet_warm: bool
    bill: Bill = field(default_factory=Bill)
    cache: dict[int, datetime] = field(default_factory=dict)
    inner: OfflineLLM = field(default_factory=OfflineLLM)

    def complete(self, request: LLMRequest) -> LLMAnswer:
        tool = json.dumps(
            {
                "name": request.tool_name,
                "description": request.tool_description,
                "input_schema": request.stable_tool_schema or request.tool_schema,
            }
        )
        blocks = [tool + request.system, *request.user_prefix_parts]
        ends = list(accumulate(tokens(block) for block in blocks))
        whole = ends[-1] + tokens(request.user)
        now = self.clock.now
        keys = [hash(tuple(blocks[: i + 1])) for i in range(len(blocks))]
        hit = 0
        for i in reversed(range(len(blocks))):
            warm = self.fleet_warm and i == 0
            at = self.cache.get(keys[i])
            if ends[i] >= MIN_CACHEABLE and (warm or (at is not None and now - at <= TTL)):
                hit = i + 1
                break
        read = ends[hit - 1] if hit else 0
        cacheable = [i for i in range(hit, len(blocks)) if ends[i] >= MIN_CACHEABLE]
        written = ends[cacheable[-1]] - read if cacheable else 0
        for i in range(len(blocks)):
            if i < hit or i in cacheable:
                self.cache[keys[i]] = now
        bill = self.bill
        bill.calls += 1
        bill.read += read
        bill.written += written
        bill.uncached += whole - read - written
        system_and_tools = ends[0]
        context = request.context
        bill.exchanges += len(context.batch)
        bill.naive += sum(system_and_tools + context.current_tokens + x.tokens for x in context.batch)
        return self.inner.complete(request)


def replay(days: int | None, fleet_warm: bool) -> Bill:
    with tempfile.TemporaryDirectory(prefix="cache-bench-") as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="",
            broker_url="",
            llm=LLMChoice.OFFLINE,
            window_tokens=WINDOW_TOKENS,
        )
        db = build_database(settings)
        upgrade(db)
        records = conversation(settings, days)
        first = records[0][1].created_at
        assert first is not None
        clock = Clock(first)
        llm = PricedLLM(clock, fleet_warm)
        Replay.build(settings, db, clock, build_engine(settings, llm=llm)).run(
            records, settings.batch_max_wait
        )
        db.engine.dispose()
    return llm.bill


def report(label: str, bill: Bill) -> None:
    per = bill.exchanges or 1
    print(f"{label}: {bill.calls} calls for {bill.exchanges} exchanges")
    print(
        f"  input tokens: {bill.plain_input:,} ({bill.uncached:,} uncached, {bill.read:,} cache reads,"
        f" {bill.written:,} cache writes)"
    )
    print(f"  naive baseline input: {bill.naive:,}")
    print(
        f"  per folded exchange: {bill.plain_input / per:,.0f} sent, {bill.billed / per:,.0f} billed;"
        f" naive {bill.naive / per:,.0f}"
    )
    print(
        f"  share of naive: {bill.plain_input / max(bill.naive, 1):.1%} sent,"
        f" {bill.billed / max(bill.naive, 1):.1%} billed (target <= 25%)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--days", type=int, default=None, help="replay only the first N days")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    report("one agent", replay(args.days, fleet_warm=False))
    report("fleet (shared prefix warm)", replay(args.days, fleet_warm=True))


if __name__ == "__main__":
    main()
