"""Ingest throughput on PostgreSQL (Python API and CLI) and per-message cost versus history length.

    uv run python benchmarks/ingest_bench.py [--messages 50000] [--long-history 200000]
    uv run python benchmarks/ingest_bench.py --only many-agents [--agents 120] [--per-agent 29] [--profile]

Targets: >= 10,000 messages/s batch ingest; per-message cost with 200k prior messages at most 1.3x the
cost with 1k, and the window read likewise; a file of many agents' messages (120 agents x 29 messages) within 2x of the single-agent rate.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.pg import scratch_postgres
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.reading import load_window_messages
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]


def exchange_messages(i: int) -> list[NewMessage]:
    """A realistic-shaped exchange: request, tool call, tool result, answer (4 messages)."""
    at = T0 + timedelta(seconds=i)
    return [
        NewMessage(Kind.USER, f"Please fix failing test number {i} in the auth module", created_at=at),
        NewMessage(
            Kind.TOOL_CALL,
            "",
            tool_call_id=f"c{i}",
            name="bash",
            input={"cmd": f"pytest -k t{i}"},
            created_at=at,
        ),
        NewMessage(
            Kind.TOOL_RESULT,
            "1 failed: AssertionError expected 200 got 401 " * 4,
            tool_call_id=f"c{i}",
            created_at=at,
        ),
        NewMessage(
            Kind.ASSISTANT, f"Fixed test {i}: the token check used the wrong clock skew.", created_at=at
        ),
    ]


def messages(start_exchange: int, count: int) -> Iterator[NewMessage]:
    i = start_exchange
    produced = 0
    while produced < count:
        for m in exchange_messages(i):
            yield m
            produced += 1
        i += 1


def bench_api(store: ConversationStore, total: int, batch: int) -> float:
    stream = list(messages(0, total))
    t = time.perf_counter()
    for start in range(0, total, batch):
        store.record("api-agent", stream[start : start + batch])
    return total / (time.perf_counter() - t)


def bench_cli(db_url: str, total: int) -> tuple[float, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for m in messages(0, total):
            row: dict[str, object] = {"agent": "cli-agent", "kind": m.kind.value, "content": m.content}
            if m.tool_call_id:
                row["tool_call_id"] = m.tool_call_id
            if m.name:
                row |= {"name": m.name, "input": m.input}
            row["created_at"] = m.created_at.isoformat() if m.created_at else None
            f.write(json.dumps(row) + "\n")
        path = f.name
    env = {**os.environ, "SUMMARIZER_DATABASE_URL": db_url}
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "summarizer", "ingest", path],
        check=True,
        env=env,
        cwd=ROOT,
        capture_output=True,
    )
    elapsed = time.perf_counter() - t
    os.unlink(path)
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "summarizer", "--help"], check=True, env=env, cwd=ROOT, capture_output=True
    )
    startup = time.perf_counter() - t
    return total / elapsed, total / max(elapsed - startup, 1e-9)


def many_agent_records(agents: int, per_agent: int, first_exchange: int = 0) -> list[tuple[str, NewMessage]]:
    """`per_agent` messages for each of `agents` agents, interleaved as a multi-agent export would be."""
    streams = [list(messages(first_exchange, per_agent)) for _ in range(agents)]
    records: list[tuple[str, NewMessage]] = []
    for position in range(per_agent):
        for number, stream in enumerate(streams):
            records.append((f"agent-{number:05d}", stream[position]))
    return records


def bench_many_agents(store: ConversationStore, agents: int, per_agent: int, rounds: int) -> list[float]:
    """messages/s of one `record_many` call per round; each round adds to the same agents' histories."""
    rates = []
    for round_number in range(rounds):
        records = many_agent_records(agents, per_agent, round_number * per_agent)
        t = time.perf_counter()
        store.record_many(records)
        rates.append(len(records) / (time.perf_counter() - t))
    return rates


def run_many_agents(args: argparse.Namespace) -> None:
    with scratch_postgres() as db:
        store = ConversationStore(db, StoreConfig(window_tokens=2_000, batch_size=3))
        single = bench_api(store, args.messages, args.batch)
        print(f"single agent, batches of {args.batch}: {single:,.0f} messages/s")
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
        rates = bench_many_agents(store, args.agents, args.per_agent, args.rounds)
        if args.profile:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        total = args.agents * args.per_agent
        print(
            f"{args.agents} agents x {args.per_agent} messages ({total:,} per call), {args.rounds} calls: "
            f"first (new agents) {rates[0]:,.0f} messages/s, median {statistics.median(rates):,.0f} messages/s, "
            f"ratio to single agent {single / statistics.median(rates):.2f}x"
        )


def preload(store: ConversationStore, agent: str, count: int) -> int:
    stream = list(messages(0, count))
    for start in range(0, count, 5000):
        store.record(agent, stream[start : start + 5000])
    return (count + 3) // 4


def per_message_cost(store: ConversationStore, agent: str, first_exchange: int, exchanges: int) -> float:
    """Median seconds to record one message, one call per message (the live-host pattern)."""
    samples = []
    for i in range(first_exchange, first_exchange + exchanges):
        for m in exchange_messages(i):
            t = time.perf_counter()
            store.record(agent, [m])
            samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def window_read_cost(db: Database, agent: str, rounds: int = 50) -> tuple[float, int]:
    """Median seconds to read the agent's window (what every `get_context` reads), and its messages."""
    samples = []
    size = 0
    for _ in range(rounds):
        with db.read() as conn:
            t = time.perf_counter()
            size = len(load_window_messages(conn, agent))
            samples.append(time.perf_counter() - t)
    return statistics.median(samples), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--long-history", type=int, default=200_000)
    parser.add_argument("--probe-exchanges", type=int, default=250)
    parser.add_argument("--only", choices=["all", "many-agents"], default="all")
    parser.add_argument("--agents", type=int, default=120)
    parser.add_argument("--per-agent", type=int, default=29)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile the many-agent calls")
    args = parser.parse_args()
    if args.only == "many-agents":
        run_many_agents(args)
        return
    with scratch_postgres() as db:
        store = ConversationStore(db, StoreConfig(window_tokens=100_000, batch_size=3))
        api_rate = bench_api(store, args.messages, args.batch)
        print(f"API batch ingest (PostgreSQL, batches of {args.batch}): {api_rate:,.0f} messages/s")
        cli_rate, cli_rate_net = bench_cli(db.url.render_as_string(hide_password=False), args.messages)
        print(
            f"CLI ingest of {args.messages:,} lines: {cli_rate:,.0f} messages/s ({cli_rate_net:,.0f}/s without process start-up)"
        )
        short_next = preload(store, "short-history", 1_000)
        long_next = preload(store, "long-history", args.long_history)
        per_message_cost(store, "short-history", short_next, 20)  # warm-up
        short = per_message_cost(store, "short-history", short_next + 20, args.probe_exchanges)
        long = per_message_cost(store, "long-history", long_next, args.probe_exchanges)
        print(
            f"per-message record cost: 1k prior messages {short * 1e3:.3f} ms, "
            f"{args.long_history // 1000}k prior messages {long * 1e3:.3f} ms, ratio {long / short:.2f}"
        )
        (short_read, short_size), (long_read, long_size) = (
            window_read_cost(db, "short-history"),
            window_read_cost(db, "long-history"),
        )
        short_each, long_each = short_read / short_size, long_read / long_size
        print(
            f"window read per window message: 1k prior messages {short_each * 1e6:.1f} us ({short_size} in the "
            f"window), {args.long_history // 1000}k prior messages {long_each * 1e6:.1f} us ({long_size}), "
            f"ratio {long_each / short_each:.2f}"
        )


if __name__ == "__main__":
    main()
