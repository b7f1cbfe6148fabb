"""Retention: what share of the planted facts younger than 14 days the summary still holds.

    uv run python benchmarks/retention_bench.py [--llm offline|anthropic|both] [--days N]

Replays the bundled three-week conversation (`benchmarks/data/retention_conversation.jsonl`, written by
`benchmarks/retention_data.py`) through the real code paths, in process, on an embedded SQLite database
in a temporary directory: the host API records the messages an hour at a time (the sliding window evicts
as it would live), the update service drains the queue with the summary engine under the 10k-token cap,
and the daily aging pass runs at each day's end. The clock of the store, the queue and the engine is the
replayed one, so tiers and aging follow the conversation's own days.

At the end it renders the summary as of the last message and looks for each planted fact's needle (a
version, path, number or endpoint) by exact substring, or after normalising case, spaces and punctuation.
Facts planted 14 days or more before the end are expected to have aged out and are not counted. With
`--llm anthropic` (or `both`, when ANTHROPIC_API_KEY is set) the same replay runs with Claude.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import groupby
from pathlib import Path

import structlog

from summarizer.api import Summarizer
from summarizer.composition import (
    build_database,
    build_sql_store,
    build_token_counter,
    build_worker_config,
    render_summary,
)
from summarizer.composition.llm import build_engine
from summarizer.domain.messages import NewMessage
from summarizer.engine.engine import SummaryEngine
from summarizer.ingest.reader import read_records
from summarizer.service.update import UpdateService
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade
from summarizer.storage.sql.readers.reading import load_summary
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.retention_data import AGENT, CONVERSATION, FACTS

KEEP_DAYS = 14
WINDOW_TOKENS = 20_000
"""The host's window: about four hours of this conversation's exchanges (its messages are short)."""
TARGET = 0.90


@dataclass(slots=True)
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


@dataclass(slots=True)
class Result:
    llm: str
    counted: int
    found: int
    missing: list[str] = field(default_factory=list)
    summary_tokens: int = 0
    items: int = 0
    exchanges_cited: int = 0
    largest_item_exchanges: int = 0
    max_ellipses: int = 0
    in_window: int = 0
    updates: int = 0
    seconds: float = 0.0
    text: str = ""

    @property
    def share(self) -> float:
        return self.found / self.counted if self.counted else 0.0


def normalised(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", text.casefold()).strip()


def findable(needle: str, summary: str) -> bool:
    return needle in summary or normalised(needle) in normalised(summary)


def hours(records: Sequence[tuple[str, NewMessage]]) -> list[list[tuple[str, NewMessage]]]:
    def hour(record: tuple[str, NewMessage]) -> datetime:
        created = record[1].created_at
        assert created is not None
        return created.replace(minute=0, second=0, microsecond=0)

    return [list(group) for _, group in groupby(records, key=hour)]


def conversation(settings: Settings, days: int | None) -> list[tuple[str, NewMessage]]:
    """The bundled conversation's records, its first `days` days only when given."""
    records = [
        (r.agent_id, r.message)
        for r in read_records(CONVERSATION, "canonical", None, settings.max_message_bytes)
    ]
    first = records[0][1].created_at
    assert first is not None
    if days is None:
        return records
    return [r for r in records if r[1].created_at and r[1].created_at < first + timedelta(days=days)]


@dataclass(slots=True)
class Replay:
    """The host API and the update service over one database, on the replayed clock."""

    clock: Clock
    host: Summarizer
    service: UpdateService

    @classmethod
    def build(cls, settings: Settings, db: Database, clock: Clock, engine: SummaryEngine) -> Replay:
        store = ConversationStore(
            db,
            StoreConfig(
                window_tokens=settings.window_tokens,
                batch_size=settings.batch_size,
                counter=build_token_counter(settings),
                provider=settings.token_provider,
                model=settings.model,
            ),
            clock=clock,
        )
        host = Summarizer(
            store,
            default_budget=settings.window_tokens,
            render_summary=render_summary,
            clock=clock,
        )
        service = UpdateService(build_sql_store(db), engine, build_worker_config(settings), clock=clock)
        return cls(clock, host, service)

    def run(self, records: Sequence[tuple[str, NewMessage]], batch_max_wait: float) -> int:
        """Record an hour at a time, draining after each and aging at each day's end; then flush the last
        batch past the wait. The number of updates."""
        updates = self.feed(hours(records), AGENT)
        self.clock.now += timedelta(minutes=30)  # the last batch waits past SUMMARIZER_BATCH_MAX_WAIT
        self.clock.now += timedelta(seconds=batch_max_wait)
        return updates + self.service.drain(AGENT).runs

    def feed(self, chunks: Iterable[Sequence[tuple[str, NewMessage]]], agent: str) -> int:
        """Record each chunk at its last message's time, draining `agent` after each and aging at each
        day's end. The number of updates."""
        clock, updates = self.clock, 0
        day = clock.now.date()
        for chunk in chunks:
            at = chunk[-1][1].created_at
            assert at is not None
            if at.date() != day:
                self.service.age(clock.now)
                day = at.date()
            clock.now = at
            self.host.record_many(chunk)
            updates += self.service.drain(agent).runs
        return updates


def replay(choice: LLMChoice, days: int | None) -> Result:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="retention-") as tmp:
        settings = Settings(
            data_dir=Path(tmp), database_url="", broker_url="", llm=choice, window_tokens=WINDOW_TOKENS
        )
        db = build_database(settings)
        upgrade(db)
        records = conversation(settings, days)
        first = records[0][1].created_at
        assert first is not None
        run = Replay.build(settings, db, Clock(first), build_engine(settings))
        updates = run.run(records, settings.batch_max_wait)
        clock, host = run.clock, run.host
        end = clock.now
        with db.read() as conn:
            record = load_summary(conn, AGENT)
        text = render_summary(record, end) if record else ""
        window = "\n".join(m.content for m in host.get_context(AGENT, end).messages)
        result = Result(choice.value, 0, 0, updates=updates, text=text)
        if record is not None:
            summary = record
            result.summary_tokens = summary.token_count
            result.items = len(summary.items)
            result.exchanges_cited = len({x for i in summary.items for x in i.exchange_ids})
            result.largest_item_exchanges = max((len(i.exchange_ids) for i in summary.items), default=0)
            result.max_ellipses = max((i.text.count("…") for i in summary.items), default=0)
        db.engine.dispose()
    for fact in json.loads(FACTS.read_text(encoding="utf-8")):
        planted = datetime.fromisoformat(fact["at"])
        if planted > end or end - planted >= timedelta(days=KEEP_DAYS):
            continue
        if fact["statement"] in window:  # not evicted yet: the host still sends it verbatim
            result.in_window += 1
            continue
        result.counted += 1
        if findable(fact["needle"], text):
            result.found += 1
        else:
            result.missing.append(f"day {fact['day']}: {fact['needle']}")
    result.seconds = time.perf_counter() - started
    return result


def report(result: Result) -> None:
    verdict = "meets" if result.share >= TARGET else "BELOW"
    print(
        f"{result.llm}: {result.found}/{result.counted} planted facts younger than {KEEP_DAYS} days findable "
        f"= {result.share:.1%} ({verdict} the {TARGET:.0%} target); {result.in_window} more still in the window"
    )
    print(
        f"  summary: {result.summary_tokens} tokens, {result.items} items citing {result.exchanges_cited} "
        f"exchanges; largest item covers {result.largest_item_exchanges} exchanges; at most "
        f"{result.max_ellipses} shortened piece(s) per item; {result.updates} updates in {result.seconds:.1f}s"
    )
    for missing in result.missing:
        print(f"  missing: {missing}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--llm", choices=("offline", "anthropic", "both"), default="both")
    parser.add_argument("--days", type=int, default=None, help="replay only the first N days")
    parser.add_argument("--show", action="store_true", help="print the final summary")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    choices = [LLMChoice.OFFLINE] if args.llm in ("offline", "both") else []
    if args.llm == "anthropic" or (args.llm == "both" and os.environ.get("ANTHROPIC_API_KEY")):
        choices.append(LLMChoice.ANTHROPIC)
    elif args.llm == "both":
        print("anthropic: skipped (no ANTHROPIC_API_KEY)")
    for choice in choices:
        result = replay(choice, args.days)
        report(result)
        if args.show:
            print(result.text)


if __name__ == "__main__":
    main()
