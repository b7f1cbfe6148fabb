"""Recall: how often a question finds a fact that has aged out of the summary, and what a query costs.

    uv run python benchmarks/recall_bench.py quality [--database sqlite|postgresql|both]
    uv run python benchmarks/recall_bench.py latency --messages 100000 [--queries 200]

`quality` replays the retention benchmark's three-week conversation (`benchmarks/retention_bench.py`: the
host API records it an hour at a time, the update service folds what leaves the window with the offline
summarizer, aging runs daily) and then asks, for each planted fact, a question as a user would put it
(the subject in other words, never the fact's own wording or its needle). A fact counts as found when
the exchange that holds it is in the top 5. Facts planted 14 days or more before the end have aged out
of the summary: recall is the only way back to them (target: 90% of those in the top 5).

`latency` fills a scratch PostgreSQL database with synthetic history by SQL (words drawn from a skewed
vocabulary, so a few words are in most messages and most are rare), in agents of 1k to 1M messages, and
times `Recall.search` (the word lookups, the ranking and the page's details) for rare, common and mixed
questions per agent size: p50 and p95, and the index's size per message.

What the index costs the recording path is `benchmarks/recording_bench.py`'s.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.pg import database_url, scratch_postgres
from benchmarks.retention_bench import WINDOW_TOKENS, Clock, Replay, conversation
from benchmarks.retention_data import AGENT, FACTS
from summarizer.composition import build_database
from summarizer.composition.llm import build_engine
from summarizer.service.recall import Recall
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade
from summarizer.storage.sql.readers.recall import SqlRecallStore

TOP = 5
TARGET = 0.90
KEEP_DAYS = 14


# ----- quality --------------------------------------------------------------------------------------------


def question(fact: dict[str, str]) -> str:
    """The planted fact's subject asked about the way a user would: the concept, never the fact's sentence
    or its needle (the version, path, number or endpoint the user is trying to get back)."""
    said = fact["statement"]
    if fact["kind"] == "version":
        lib = re.search(r"pin (\S+) to", said)
        return f"which {lib.group(1) if lib else ''} release are we locked to?"
    if fact["kind"] == "path":
        area = re.search(r"the (\w+) access policy", said)
        return f"where did we put the {area.group(1) if area else ''} policy code?"
    if fact["kind"] == "number":
        setting = re.search(r"set the (.+?) to", said)
        return f"what {setting.group(1) if setting else ''} did product agree to?"
    area = re.search(r"/v\d+/(\w+)/bulk", said)
    return f"which {area.group(1) if area else ''} endpoint should the batch jobs use?"


def quality(database: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="recall-") as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="",
            broker_url="",
            llm=LLMChoice.OFFLINE,
            window_tokens=WINDOW_TOKENS,
        )
        if database == "postgresql":
            with scratch_postgres("summarizer_recall") as db:
                return _quality_on(settings, db, database)
        db = build_database(settings)
        upgrade(db)
        try:
            return _quality_on(settings, db, database)
        finally:
            db.dispose()


def _quality_on(settings: Settings, db: Database, database: str) -> dict[str, object]:
    records = conversation(settings, None)
    first = records[0][1].created_at
    assert first is not None
    run = Replay.build(settings, db, Clock(first), build_engine(settings))
    run.run(records, settings.batch_max_wait)
    end = run.clock.now
    if database == "postgresql":  # the table was just filled: what autovacuum's analyze does on a live one
        with db.autocommit(write=True) as conn:
            conn.execute(text("ANALYZE messages"))
    recall = Recall(SqlRecallStore(db))
    aged = found_aged = found_all = found_hinted = 0
    times: list[float] = []
    misses: list[str] = []
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    for fact in facts:
        with db.read() as conn:
            holder = conn.execute(
                text("SELECT exchange_id FROM messages WHERE agent_id = :a AND content = :c"),
                {"a": AGENT, "c": fact["statement"]},
            ).scalar_one()
        started = time.perf_counter()
        page = recall.search(AGENT, question(fact), limit=TOP)
        times.append(time.perf_counter() - started)
        hit = holder in [h.exchange_id for h in page.hits]
        found_all += hit
        if end - datetime.fromisoformat(fact["at"]) >= timedelta(days=KEEP_DAYS):
            aged += 1
            found_aged += hit
            # The user knows it was a while back: "more than two weeks ago".
            hinted = recall.search(AGENT, question(fact), until=end - timedelta(days=KEEP_DAYS), limit=TOP)
            in_hinted = holder in [h.exchange_id for h in hinted.hits]
            found_hinted += in_hinted
            if not in_hinted:
                misses.append(f"{question(fact)!r} (exchange {holder})")
    return {
        "database": database,
        "facts": len(facts),
        "found_top5": found_all,
        "aged_out": aged,
        "aged_out_found_top5": found_aged,
        "share_aged_out": round(found_aged / aged, 3) if aged else None,
        "aged_out_found_top5_until_14d": found_hinted,
        "share_aged_out_until_14d": round(found_hinted / aged, 3) if aged else None,
        "query_ms_p50": round(statistics.median(times) * 1000, 2),
        "misses": misses,
    }


# ----- latency ----------------------------------------------------------------------------------------------

VOCABULARY = 50_000
WORDS_PER_MESSAGE = 24
SIZES = (1_000, 10_000, 100_000, 1_000_000)

_FILL_AGENTS = """
INSERT INTO agents (id, created_at, preamble_tokens, window_tokens, next_message_seq, last_exchange,
    window_start, current_complete, current_tool_calls, unsummarized)
SELECT a.id, now(), 0, 0, a.n + 1, a.n / 4, a.n / 4, true, '[]', 0
FROM (SELECT :prefix || g AS id, CAST(:size AS int) AS n FROM generate_series(1, CAST(:agents AS int)) AS g) AS a
"""
_FILL_MESSAGES = """
INSERT INTO messages (agent_id, seq, exchange_id, kind, content, continues_exchange, tokens, created_at)
SELECT :prefix || a, s, (s + 3) / 4, CASE s % 4 WHEN 1 THEN 'user' WHEN 0 THEN 'assistant' ELSE 'tool_result' END,
    (SELECT string_agg('w' || floor(power(random(), 4) * CAST(:vocab AS int))::int, ' ')
       FROM generate_series(1, CAST(:words AS int)) AS w WHERE s > 0 AND a > 0),
    false, 30, timestamptz '2026-01-01' + s * interval '1 minute'
FROM generate_series(1, CAST(:agents AS int)) AS a, generate_series(CAST(:first AS int), CAST(:last AS int)) AS s
"""
_FILL_EXCHANGES = """
INSERT INTO exchanges (agent_id, id, first_seq, last_seq, message_count, tokens, title, started_at, ended_at,
    completed, evicted_at, summarized_in_version)
SELECT :prefix || a, x, 4 * x - 3, 4 * x, 4, 120, 'exchange ' || x, timestamptz '2026-01-01' + x * interval '4 minutes',
    timestamptz '2026-01-01' + x * interval '4 minutes', true, now(), NULL
FROM generate_series(1, CAST(:agents AS int)) AS a, generate_series(1, CAST(:size AS int) / 4) AS x
"""


def _fill(db: Database, total: int) -> dict[int, str]:
    """Agents of each size in SIZES that fit in `total` messages, then agents of 1k for the rest; returns
    size -> an agent of that size."""
    plan = [(size, 1) for size in SIZES[1:] if size * 2 <= total]
    small = max(1, (total - sum(size for size, _ in plan)) // SIZES[0])
    plan.insert(0, (SIZES[0], small))
    sample: dict[int, str] = {}
    with db.write() as conn:  # loaded without the index, which is built once afterwards (much faster)
        conn.execute(text("DROP INDEX ix_messages_search"))
    for size, count in plan:
        prefix = f"bench-{size}-"
        sample[size] = f"{prefix}1"
        with db.write() as conn:
            conn.execute(text(_FILL_AGENTS), {"prefix": prefix, "size": size, "agents": count})
        step = max(1, 200_000 // count)
        for first in range(1, size + 1, step):
            last = min(size, first + step - 1)
            with db.write() as conn:
                conn.execute(
                    text(_FILL_MESSAGES),
                    {
                        "prefix": prefix,
                        "agents": count,
                        "first": first,
                        "last": last,
                        "vocab": VOCABULARY,
                        "words": WORDS_PER_MESSAGE,
                    },
                )
        with db.write() as conn:
            conn.execute(text(_FILL_EXCHANGES), {"prefix": prefix, "size": size, "agents": count})
        print(f"  filled {count} agent(s) of {size:,} messages", file=sys.stderr, flush=True)
    with db.autocommit(write=True) as conn:
        conn.execute(text("SET maintenance_work_mem = '1GB'"))
        conn.execute(
            text("CREATE INDEX ix_messages_search ON messages USING gin (agent_id, search_document)")
        )
        conn.execute(text("VACUUM ANALYZE messages"))
        conn.execute(text("VACUUM ANALYZE exchanges"))
    return sample


def _questions(rng: random.Random, kind: str) -> str:
    def word(low: float, high: float) -> str:
        return f"w{int((rng.uniform(low, high) ** 4) * VOCABULARY)}"

    if kind == "rare":
        return " ".join(word(0.85, 1.0) for _ in range(3))
    if kind == "common":
        return " ".join(word(0.0, 0.15) for _ in range(3))
    return f"what did we decide about {word(0.0, 0.15)} and {word(0.85, 1.0)} {word(0.5, 0.8)}?"


def latency(
    messages: int, queries: int, *, keep: bool = False, reuse: str | None = None
) -> dict[str, object]:
    if reuse is not None:
        db = connect_database(database_url(reuse))
        try:
            return _measure(db, _sample(db), 0.0, queries)
        finally:
            db.dispose()
    with scratch_postgres("summarizer_recall_latency", keep=keep) as db:
        started = time.perf_counter()
        sample = _fill(db, messages)
        return _measure(db, sample, time.perf_counter() - started, queries)


def _sample(db: Database) -> dict[int, str]:
    """An agent of each size in a database `latency --keep` filled."""
    with db.read() as conn:
        ids = conn.execute(text("SELECT id FROM agents WHERE id LIKE 'bench-%-1'")).scalars().all()
    return {int(i.split("-")[1]): i for i in ids}


def _measure(db: Database, sample: dict[int, str], fill_seconds: float, queries: int) -> dict[str, object]:
    with db.read() as conn:
        stored = conn.execute(text("SELECT count(*) FROM messages")).scalar_one()
        index_bytes = conn.execute(text("SELECT pg_relation_size('ix_messages_search')")).scalar_one()
        column_bytes = conn.execute(
            text("SELECT sum(pg_column_size(search_document)) FROM messages")
        ).scalar_one()
    recall = Recall(SqlRecallStore(db))
    rng = random.Random(7)
    figures: dict[str, object] = {}
    for size, agent in sorted(sample.items()):
        for kind in ("rare", "common", "mixed"):
            figures[f"{size}:{kind}"] = _timed(partial(_ask, recall, agent, rng, kind), queries)
    return {
        "messages": stored,
        "fill_seconds": round(fill_seconds, 1),
        "index_bytes_per_message": round(index_bytes / stored, 1),
        "tsvector_bytes_per_message": round(column_bytes / stored, 1),
        "p50_p95_ms": figures,
    }


def _ask(recall: Recall, agent: str, rng: random.Random, kind: str) -> object:
    return recall.search(agent, _questions(rng, kind))


def _timed(call: Callable[[], object], n: int) -> tuple[float, float]:
    call()  # warm the plan and the cache
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return round(statistics.median(samples), 2), round(samples[int(len(samples) * 0.95) - 1], 2)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="part", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    lat = sub.add_parser("latency")
    lat.add_argument("--messages", type=int, default=100_000)
    lat.add_argument("--queries", type=int, default=200)
    lat.add_argument("--keep", action="store_true", help="keep the filled database (its name is printed)")
    lat.add_argument("--reuse", metavar="NAME", help="measure a database an earlier --keep run filled")
    args = parser.parse_args()
    if args.part == "quality":
        kinds = ("sqlite", "postgresql") if args.database == "both" else (args.database,)
        for database in kinds:
            figures = quality(database)
            print(json.dumps(figures, indent=2))
            share = figures["share_aged_out_until_14d"]
            verdict = "meets" if isinstance(share, float) and share >= TARGET else "misses"
            print(
                f"{database}: {share} of aged-out facts in the top {TOP} when asked with 'more than two weeks "
                f"ago' ({figures['share_aged_out']} without): {verdict} the target {TARGET}"
            )
    else:
        print(json.dumps(latency(args.messages, args.queries, keep=args.keep, reuse=args.reuse), indent=2))


if __name__ == "__main__":
    main()
