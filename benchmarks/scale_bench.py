"""How the hot operations grow with the fleet, on PostgreSQL: load agents in steps and measure at each.

    uv run python benchmarks/scale_bench.py                                   # 1k, 10k, 100k agents x 100
    uv run python benchmarks/scale_bench.py --steps 500,2000 --messages-per-agent 20   # a quick run
    nohup uv run python benchmarks/scale_bench.py --json scale.json > scale.log 2>&1 &

It creates its own database (`--database`, default summarizer_scale) on the server of
SUMMARIZER_BENCH_DATABASE_URL (default: postgres@127.0.0.1:5432) and drops it at the end (`--keep` keeps it).
At each step the fleet grows to the step's number of agents, each with `--messages-per-agent` messages
(4-message exchanges) recorded through the conversation store in many-agent calls, so part of every
conversation is evicted and every agent has a summary. Then the queue is set to a steady state (1% of the
agents pending, 0.1% running with an expired lease, 0.1% parked, 0.5% idle with a small batch waiting past
BATCH_MAX_WAIT, the rest idle; every summary last aged yesterday) and it measures:

- ingest: messages/s of a many-agent file (120 agents x 29 messages, into existing agents);
- one dispatcher run (flush waiting batches, list due rows), one rescue sweep, one aging page (500 agents);
- claim latency (one claim statement, on the autocommit pool, while the pending rows last);
- table and index sizes.

At the end it prints the growth table and extrapolates to 1M agents: sizes linearly, times with the growth
exponent between the last two steps.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from benchmarks.ingest_bench import exchange_messages
from summarizer.composition import build_store, build_update_service
from summarizer.domain.messages import NewMessage
from summarizer.logs import configure_logging
from summarizer.service.results import AgingReport
from summarizer.settings import Settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade
from summarizer.storage.sql.statements.bulk import bulk_insert
from summarizer.storage.sql.statements.schema import summaries
from summarizer.storage.sql.writers import queue

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
TABLES = ("agents", "messages", "exchanges", "summary_update_queue", "summaries", "summary_runs", "alerts")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
SUMMARY_ITEMS = 12
AGING_PAGE = 500


@dataclass
class Step:
    agents: int
    messages: int = 0
    load_messages_per_s: float = 0.0
    ingest_messages_per_s: float = 0.0
    dispatch_ms: float = 0.0
    dispatch_armed: int = 0
    dispatch_due: int = 0
    rescue_ms: float = 0.0
    rescued: int = 0
    rescue_idle_ms: float = 0.0
    aging_page_ms: float = 0.0
    aging_query_ms: float = 0.0
    claim_ms_median: float = 0.0
    claim_ms_p95: float = 0.0
    sizes: dict[str, dict[str, int]] = field(default_factory=dict)


def agent_name(number: int) -> str:
    return f"agent-{number:07d}"


def agent_messages(per_agent: int, first_exchange: int) -> list[NewMessage]:
    out: list[NewMessage] = []
    i = first_exchange
    while len(out) < per_agent:
        out.extend(exchange_messages(i))
        i += 1
    return out[:per_agent]


def many_agent_file(agents: list[str], per_agent: int, first_exchange: int) -> list[tuple[str, NewMessage]]:
    """Records for `agents`, interleaved message by message as a multi-agent export would be."""
    streams = [agent_messages(per_agent, first_exchange) for _ in agents]
    return [(name, stream[i]) for i in range(per_agent) for name, stream in zip(agents, streams, strict=True)]


@contextmanager
def own_database(admin_url: str, name: str, keep: bool) -> Iterator[Database]:
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    db = connect_database(url)
    try:
        upgrade(db)
        yield db
    finally:
        db.dispose()
        if not keep:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    result = fn()
    return (time.perf_counter() - t) * 1e3, result


class Fleet:
    def __init__(self, db: Database, settings: Settings, args: argparse.Namespace) -> None:
        self.db = db
        self.settings = settings
        self.args = args
        self.store = build_store(settings, db)
        self.service = build_update_service(settings, db)
        self.agents = 0
        self.messages = 0
        self.rounds = 0  # many-agent files recorded into existing agents (their exchanges continue)

    def grow(self, target: int) -> float:
        """Add agents up to `target`; messages/s of the load."""
        per_call = self.args.agents_per_call
        per_agent = self.args.messages_per_agent
        added = 0
        t = time.perf_counter()
        while self.agents < target:
            names = [agent_name(n) for n in range(self.agents, min(target, self.agents + per_call))]
            self.store.record_many(many_agent_file(names, per_agent, 0))
            self.add_summaries(names)
            self.agents += len(names)
            added += len(names) * per_agent
            if self.args.verbose:
                rate = added / (time.perf_counter() - t)
                print(f"  loaded {self.agents:,} agents ({rate:,.0f} messages/s)", flush=True)
        self.messages += added
        return added / (time.perf_counter() - t)

    def add_summaries(self, names: list[str]) -> None:
        now = T0 + timedelta(days=2)
        rows = [
            {
                "agent_id": name,
                "version": 1,
                "items": [
                    {
                        "id": f"x{i}",
                        "tier": "session",
                        "text": f"Fixed failing test {i} in the auth module: the token check used the wrong skew.",
                        "started_at": (T0 + timedelta(hours=i)).isoformat(),
                        "ended_at": (T0 + timedelta(hours=i, minutes=5)).isoformat(),
                        "source_tokens": 400,
                        "importance": "medium",
                        "exchange_ids": [i],
                    }
                    for i in range(1, SUMMARY_ITEMS + 1)
                ],
                "token_count": SUMMARY_ITEMS * 25,
                "covered_through_exchange_id": SUMMARY_ITEMS,
                "last_aged_on": None,
                "updated_at": now,
            }
            for name in names
        ]
        with self.db.write() as conn:
            bulk_insert(conn, summaries, rows)

    def steady_state(self, now: datetime) -> None:
        """Queue rows and summaries as a fleet in steady state has them (fractions by a hash of the id)."""
        past = now - timedelta(hours=2)
        bucket = "abs(hashtext(agents.id)) % 10000"
        with self.db.write() as conn:
            conn.execute(
                text(
                    "INSERT INTO summary_update_queue (agent_id, state, priority, queued_at, available_at, "
                    "attempts, consecutive_failures, dirty, updated_at) "
                    "SELECT id, 'idle', 0, :past, :past, 0, 0, false, :past FROM agents "
                    "ON CONFLICT (agent_id) DO NOTHING"
                ),
                {"past": past},
            )
            conn.execute(
                text(
                    f"""
                    UPDATE summary_update_queue SET
                      state = CASE WHEN h < 100 THEN 'pending' WHEN h < 110 THEN 'running'
                                   WHEN h < 120 THEN 'failed' ELSE 'idle' END,
                      available_at = :past, queued_at = :past, updated_at = :past, dirty = false,
                      lease_expires_at = CASE WHEN h >= 100 AND h < 110 THEN :past END,
                      claim_token = CASE WHEN h >= 100 AND h < 110 THEN 'lost' END,
                      attempts = 0, consecutive_failures = 0, priority = 0, last_error = NULL
                    FROM (SELECT agents.id, {bucket} AS h FROM agents) AS a
                    WHERE a.id = summary_update_queue.agent_id
                    """
                ),
                {"past": past},
            )
            # 0.5% idle with a small batch waiting past BATCH_MAX_WAIT; the rest have nothing waiting.
            conn.execute(
                text(
                    f"""
                    UPDATE agents SET
                      unsummarized = CASE WHEN {bucket} BETWEEN 120 AND 169 THEN 2 ELSE 0 END,
                      unsummarized_since = CASE WHEN {bucket} BETWEEN 120 AND 169 THEN :past END
                    """
                ),
                {"past": past},
            )
            conn.execute(
                text("UPDATE summaries SET last_aged_on = :yesterday"),
                {"yesterday": now.date() - timedelta(days=1)},
            )
        with self.db.autocommit(write=True) as conn:  # the rewritten tables vacuumed, the big ones analyzed
            for table in TABLES:
                big = table in ("messages", "exchanges")
                conn.execute(text(f"{'ANALYZE' if big else 'VACUUM ANALYZE'} {table}"))

    def ingest_file(self) -> float:
        """messages/s of one many-agent file (120 x 29) into existing agents, median of three."""
        rates = []
        step = max(1, self.agents // 120)
        for _ in range(3):
            names = [agent_name(n) for n in range(self.rounds % step, self.agents, step)][:120]
            self.rounds += 1
            records = many_agent_file(names, 29, 1000 * self.rounds)
            ms, _ = timed(partial(self.store.record_many, records))
            rates.append(len(records) / (ms / 1e3))
            self.messages += len(records)
        return statistics.median(rates)

    def claims(self, count: int) -> list[float]:
        """Claim latency in ms: one claim statement each, the claimed row then completed (not timed)."""
        samples = []
        now = datetime.now(UTC)
        for _ in range(count):
            with self.db.autocommit(write=True) as conn:
                ms, claim = timed(partial(queue.claim, conn, now, 300, None))
                if claim is None:
                    break
                samples.append(ms)
                queue.complete(conn, claim.agent_id, claim.token, now, more_work=False)
        return samples

    def sizes(self) -> dict[str, dict[str, int]]:
        out = {}
        with self.db.read() as conn:
            for table in TABLES:
                row = conn.execute(
                    text(
                        "SELECT pg_table_size(oid) AS heap, pg_indexes_size(oid) AS indexes, "
                        "reltuples::bigint AS rows FROM pg_class WHERE relname = :t AND relkind = 'r'"
                    ),
                    {"t": table},
                ).one()
                out[table] = {
                    "heap": int(row.heap),
                    "indexes": int(row.indexes),
                    "rows": max(0, int(row.rows)),
                }
        return out

    def measure(self, step: Step) -> None:
        now = datetime.now(UTC)
        self.steady_state(now)
        step.ingest_messages_per_s = self.ingest_file()
        self.steady_state(now)
        service = self.service
        step.rescue_ms, rescued = timed(service.rescue)
        step.rescued = len(rescued)
        step.rescue_idle_ms, _ = timed(service.rescue)
        step.dispatch_ms, due = timed(service.due)
        step.dispatch_due = len(due)
        with self.db.read() as conn:
            step.dispatch_armed = conn.execute(
                text("SELECT count(*) FROM agents WHERE unsummarized > 0 AND unsummarized < 3")
            ).scalar_one()
        step.aging_query_ms, page = timed(lambda: self.aging_page(now))
        step.aging_page_ms, _ = timed(partial(service.aging.age_page, page, now, AgingReport()))
        step.aging_page_ms += step.aging_query_ms
        samples = self.claims(self.args.claims)
        if samples:
            step.claim_ms_median = statistics.median(samples)
            step.claim_ms_p95 = sorted(samples)[int(0.95 * (len(samples) - 1))]
        step.sizes = self.sizes()
        step.messages = self.messages

    def aging_page(self, now: datetime) -> list[str]:
        from summarizer.storage.sql.writers.summaries import agents_due_for_aging

        with self.db.read() as conn:
            return agents_due_for_aging(conn, now.date(), AGING_PAGE, "")


def mib(n: int) -> str:
    return f"{n / 2**20:,.1f}"


def print_step(step: Step) -> None:
    print(
        f"{step.agents:>9,} agents {step.messages:>12,} messages | load {step.load_messages_per_s:>8,.0f}/s | "
        f"file {step.ingest_messages_per_s:>7,.0f}/s | dispatch {step.dispatch_ms:>8.1f} ms "
        f"(due {step.dispatch_due}) | rescue {step.rescue_ms:>7.1f} ms ({step.rescued}) idle "
        f"{step.rescue_idle_ms:>6.1f} ms | aging page {step.aging_page_ms:>8.1f} ms (query "
        f"{step.aging_query_ms:.1f}) | claim {step.claim_ms_median:.2f} ms p95 {step.claim_ms_p95:.2f}",
        flush=True,
    )
    for table, s in step.sizes.items():
        if s["rows"] or s["heap"] > 16384:
            print(
                f"    {table:<22} {s['rows']:>12,} rows  heap {mib(s['heap']):>10} MiB  indexes {mib(s['indexes']):>10} MiB"
            )


def growth(steps: list[Step], pick: Callable[[Step], float]) -> tuple[float, float]:
    """The exponent between the last two steps and the value extrapolated to 1M agents."""
    a, b = steps[-2], steps[-1]
    va, vb = pick(a), pick(b)
    if va <= 0 or vb <= 0:
        return 0.0, vb
    k = math.log(vb / va) / math.log(b.agents / a.agents)
    return k, vb * (1_000_000 / b.agents) ** k


def report(steps: list[Step]) -> None:
    print(
        "\n| agents | messages | load msg/s | many-agent file msg/s | dispatch ms | rescue ms | aging page ms "
        "| claim ms (median / p95) | messages heap + indexes MiB | exchanges MiB | agents MiB |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in steps:
        m, e, a = s.sizes["messages"], s.sizes["exchanges"], s.sizes["agents"]
        print(
            f"| {s.agents:,} | {s.messages:,} | {s.load_messages_per_s:,.0f} | {s.ingest_messages_per_s:,.0f} "
            f"| {s.dispatch_ms:.1f} | {s.rescue_ms:.1f} | {s.aging_page_ms:.1f} "
            f"| {s.claim_ms_median:.2f} / {s.claim_ms_p95:.2f} | {mib(m['heap'])} + {mib(m['indexes'])} "
            f"| {mib(e['heap'] + e['indexes'])} | {mib(a['heap'] + a['indexes'])} |"
        )
    if len(steps) < 2:
        return
    print("\nExtrapolated to 1,000,000 agents (exponent between the last two steps; 1.0 = linear):")
    for label, pick in (
        ("many-agent file msg/s", lambda s: s.ingest_messages_per_s),
        ("dispatch ms", lambda s: s.dispatch_ms),
        ("rescue ms", lambda s: s.rescue_ms),
        ("aging page ms", lambda s: s.aging_page_ms),
        ("claim ms", lambda s: s.claim_ms_median),
    ):
        k, value = growth(steps, pick)
        print(f"  {label:<24} exponent {k:+.2f}  -> {value:,.1f}")
    last = steps[-1]
    total = sum(s["heap"] + s["indexes"] for s in last.sizes.values())
    per_agent = total / last.agents
    print(
        f"  database size            {total / 2**30:,.2f} GiB at {last.agents:,} agents "
        f"({per_agent / 1024:,.1f} KiB per agent, {total / max(last.messages, 1):,.0f} B per message) "
        f"-> {per_agent * 1_000_000 / 2**30:,.1f} GiB at 1M agents with the same history per agent"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", default="1000,10000,100000", help="agent counts to grow to, in order")
    parser.add_argument("--messages-per-agent", type=int, default=100)
    parser.add_argument("--agents-per-call", type=int, default=1000, help="agents per many-agent load call")
    parser.add_argument(
        "--window-tokens", type=int, default=1000, help="window budget (so messages get evicted)"
    )
    parser.add_argument("--claims", type=int, default=200, help="claims timed per step")
    parser.add_argument("--database", default="summarizer_scale")
    parser.add_argument("--keep", action="store_true", help="keep the database at the end")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    configure_logging(json=False, level="WARNING")
    steps = [int(x) for x in args.steps.split(",")]
    admin_url = os.environ.get("SUMMARIZER_BENCH_DATABASE_URL", DEFAULT_ADMIN_URL)
    results: list[Step] = []
    with own_database(admin_url, args.database, args.keep) as db:
        settings = Settings(
            database_url=db.url.render_as_string(hide_password=False),
            window_tokens=args.window_tokens,
            batch_size=3,
            llm="offline",
        )
        fleet = Fleet(db, settings, args)
        for target in steps:
            step = Step(agents=target)
            step.load_messages_per_s = fleet.grow(target)
            fleet.measure(step)
            results.append(step)
            print_step(step)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump([asdict(s) for s in results], f, indent=1)
    report(results)


if __name__ == "__main__":
    main()
