# ruff: noqa: B023  (closures run inside the single iteration of the database generator)
"""Worker fleet benchmark: real PostgreSQL, a private Redis, Celery worker processes, a fake/offline LLM.

    uv run python benchmarks/workers_bench.py throughput   # (a) updates/s, zero-latency LLM, 2 workers
    uv run python benchmarks/workers_bench.py latency      # (b) 1 s LLM, C concurrent slots
    uv run python benchmarks/workers_bench.py cost         # (c) LLM calls/tokens against a naive baseline
    uv run python benchmarks/workers_bench.py rss          # (d) worker RSS over 10k updates

Conversations are loaded first with every queue row parked as idle; the clock starts when all rows are
flipped to pending in one statement and woken, and stops when every evicted exchange is folded.

Besides the whole run, the steady-state rate is reported: updates per second between the 10th and the
90th percentile of the runs' finish times, which leaves out the ramp-up and the tail. The achieved
concurrency is the summed duration of those runs (claim to commit) divided by that window: how many
updates were in flight on average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select, text, update

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summarizer.broker.wakeup import CeleryWakeup
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.settings import load_settings
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import agents, exchanges, summary_runs, summary_update_queue
from tests.support.fleet import Fleet, RedisServer, wait_for
from tests.support.services import fresh_postgres_database, migrate
from tests.support.workload import WINDOW_TOKENS, make_store


def load(db: Database, agents: int, per_agent: int) -> int:
    store = make_store(db, batch_size=3)
    for n in range(agents):
        batch = []
        for i in range(1, per_agent + 1):
            batch += [
                NewMessage(Kind.USER, f"Please implement feature {i} of service {n} with tests.", tokens=10),
                NewMessage(
                    Kind.ASSISTANT,
                    f"Implemented feature {i}; the tests pass and the API is documented.",
                    tokens=10,
                ),
            ]
        store.record(f"bench-{n}", batch)
    with db.write() as conn:
        conn.execute(update(summary_update_queue).values(state="idle"))
        return int(conn.execute(select(func.count()).where(exchanges.c.evicted_at.is_not(None))).scalar_one())


def unsummarized(db: Database) -> int:
    """Evicted exchanges not folded yet, from the agents' running counts: a cheap poll (one row per agent),
    so that watching the fleet costs the machine next to nothing."""
    with db.read() as conn:
        return int(conn.execute(select(func.coalesce(func.sum(agents.c.unsummarized), 0))).scalar_one())


def folded(db: Database) -> int:
    with db.read() as conn:
        return int(
            conn.execute(
                select(func.count()).where(exchanges.c.summarized_in_version.is_not(None))
            ).scalar_one()
        )


def steady_state(db: Database) -> tuple[float, float, int]:
    """(updates/s, average updates in flight, runs) between the 10th and 90th percentile finish times."""
    with db.read() as conn:
        rows = conn.execute(
            select(summary_runs.c.started_at, summary_runs.c.finished_at)
            .where(summary_runs.c.outcome == "ok")
            .order_by(summary_runs.c.finished_at)
        ).all()
    if len(rows) < 10:
        return 0.0, 0.0, len(rows)
    lo, hi = rows[len(rows) // 10].finished_at, rows[len(rows) * 9 // 10].finished_at
    window = (hi - lo).total_seconds()
    inside = [r for r in rows if lo < r.finished_at <= hi]
    busy = sum((min(r.finished_at, hi) - max(r.started_at, lo)).total_seconds() for r in inside)
    return len(inside) / window, busy / window, len(inside)


def cpu_by_program() -> dict[str, float]:
    """CPU seconds (user + system) used so far by every live process, summed by program name."""
    tick = os.sysconf("SC_CLK_TCK")
    totals: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            raw = stat.read_text()
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        used = (int(fields[11]) + int(fields[12])) / tick
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        args = b" ".join(cmdline).decode(errors="replace")
        if "celery" in args and " worker" in args:
            name = "workers"
        elif "celery" in args and " beat" in args:
            name = "beat"
        elif comm.startswith("postgres"):
            name = "postgresql"
        elif comm.startswith("redis-server"):
            name = "redis"
        elif stat.parent.name == str(os.getpid()):
            name = "benchmark"
        else:
            continue
        totals[name] = totals.get(name, 0.0) + used
    return totals


def python_speed_ms() -> float:
    """Milliseconds a fixed pure-Python loop takes here and now (best of 3): this shared VM's speed moves by
    up to 2x over minutes, so every figure is printed next to it (compare runs only at similar figures)."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        total = 0
        for i in range(1_000_000):
            total += i * i
        best = min(best, time.process_time() - started)
    return best * 1000


def round_trips_ms(db: Database, count: int = 2_000) -> float:
    """Milliseconds for `count` `SELECT 1` round trips to PostgreSQL: how fast this VM switches between
    processes right now, which moves more than raw Python speed does."""
    with db.read() as conn:
        started = time.perf_counter()
        for _ in range(count):
            conn.exec_driver_sql("SELECT 1").scalar()
        return (time.perf_counter() - started) * 1000


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run(
    mode: str,
    agents: int,
    per_agent: int,
    workers: int,
    concurrency: int,
    latency: float,
    batch: int,
    pool: str,
) -> tuple[float, float]:
    """One run from a fresh database and Redis; returns (updates/s over the whole run, steady state)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        redis = RedisServer(tmp_path)
        redis.start()
        for url in fresh_postgres_database("summarizer_bench"):
            migrate(url)
            db = connect_database(url, pool_size=2)
            evicted = load(db, agents, per_agent)
            env = {
                "SUMMARIZER_DATABASE_URL": url,
                "SUMMARIZER_BROKER_URL": redis.url,
                "SUMMARIZER_DATA_DIR": str(tmp_path / "data"),
                "SUMMARIZER_LLM": "fake" if latency else "offline",
                "SUMMARIZER_FAKE_LLM_LATENCY": str(latency),
                "SUMMARIZER_MAX_BATCH_EXCHANGES": str(batch),
                "SUMMARIZER_DISPATCH_INTERVAL": "1",
                "SUMMARIZER_WINDOW_TOKENS": str(WINDOW_TOKENS),
            }
            speed_before, trips_before = python_speed_ms(), round_trips_ms(db)
            fleet = Fleet(env, tmp_path)
            try:
                pids = [fleet.worker(f"w{i}", concurrency=concurrency, pool=pool).pid for i in range(workers)]
                fleet.beat()
                wait_for(lambda: all("ready" in fleet.log(f"w{i}") for i in range(workers)), 60, "workers")
                rss_start = [rss_kb(p) for p in pids]
                cpu_start = cpu_by_program()
                started = time.monotonic()
                with db.write() as conn:
                    conn.execute(update(summary_update_queue).values(state="pending"))
                wake = CeleryWakeup(load_settings(broker_url=redis.url, data_dir=tmp_path / "data"))
                wake([f"bench-{n}" for n in range(agents)])
                wake.close()
                rss_mid: list[int] = []

                def done() -> bool:
                    left = unsummarized(db)
                    if not rss_mid and left <= evicted * 4 // 5:
                        rss_mid.extend(rss_kb(p) for p in pids)
                    return left == 0

                wait_for(done, 3_600, "all exchanges folded")
                elapsed = time.monotonic() - started
                cpu_end = cpu_by_program()
                assert folded(db) == evicted, "the agents' counts say done, the exchanges disagree"
                rss_end = [rss_kb(p) for p in pids]
                nothing = sum(fleet.log(f"w{i}").count("'nothing'") for i in range(workers))
            finally:
                fleet.close()
            speed_after, trips_after = python_speed_ms(), round_trips_ms(db)
            steady_rate, in_flight, steady_runs = steady_state(db)
            with db.read() as conn:
                runs = conn.execute(
                    select(
                        func.count(),
                        func.sum(summary_runs.c.llm_input_tokens),
                        func.sum(summary_runs.c.llm_output_tokens),
                        func.avg(summary_runs.c.summary_tokens),
                    ).where(summary_runs.c.outcome == "ok")
                ).one()
                conn.execute(text("SELECT 1"))
            db.dispose()
            calls, tokens_in, tokens_out, avg_summary = runs
            slots = workers * concurrency
            print(
                f"mode={mode} workers={workers}x{concurrency} ({pool}) llm_latency={latency}s batch={batch}"
            )
            print(
                f"  machine before/after: a fixed Python loop {speed_before:.0f}/{speed_after:.0f} ms,"
                f" 2,000 PostgreSQL round trips {trips_before:.0f}/{trips_after:.0f} ms"
            )
            print(
                f"  evicted exchanges={evicted} updates={calls} elapsed={elapsed:.2f}s -> {calls / elapsed:.1f} updates/s"
            )
            print(
                f"  steady state (runs between the 10th and 90th percentile finish): {steady_rate:.1f} updates/s"
                f" over {steady_runs} runs, {in_flight:.1f} in flight on average of {slots} slots"
            )
            print(f"  wake-ups that found nothing to claim: {nothing}")
            cpu = {k: v - cpu_start.get(k, 0.0) for k, v in sorted(cpu_end.items())}
            print(
                "  CPU ms per update: "
                + ", ".join(f"{k} {v * 1000 / max(calls, 1):.2f}" for k, v in cpu.items())
                + f"; total {sum(cpu.values()) * 1000 / max(calls, 1):.2f}"
                + f" ({sum(cpu.values()) / elapsed:.2f} of {os.cpu_count()} cores busy)"
            )
            if latency:
                print(
                    f"  slots={slots}: whole run {calls / elapsed / slots * 100:.0f}%,"
                    f" steady state {steady_rate / slots * 100:.0f}% of {slots} updates/s"
                )
            # Naive baseline: one call per eviction, each rewriting the full summary (input = summary + exchange).
            baseline_in = evicted * (int(avg_summary or 0) + 20 + 300)
            print(f"  LLM calls={calls} (naive baseline {evicted}: ratio {calls / max(evicted, 1):.3f})")
            print(f"  LLM tokens in={tokens_in} out={tokens_out}; naive baseline in~{baseline_in}")
            print(f"  worker RSS KiB start={rss_start} at 20%={rss_mid} end={rss_end}", flush=True)
        redis.stop()
    return calls / elapsed, steady_rate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["throughput", "latency", "cost", "rss"])
    parser.add_argument("--agents", type=int)
    parser.add_argument("--exchanges", type=int)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--pool", default="threads", choices=["threads", "prefork", "solo"])
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs in a row; prints the median and range of the rates"
    )
    args = parser.parse_args()
    presets = {
        "throughput": (300, 32, 0.0, 3),
        # 800 one-second updates over 32 slots: ~25 s of steady state against ~1 s of ramp-up.
        "latency": (400, 8, 1.0, 3),
        "cost": (100, 32, 0.0, 64),
        "rss": (1000, 32, 0.0, 3),
    }
    agents, per_agent, latency, batch = presets[args.mode]
    concurrency = args.concurrency if args.mode != "latency" else max(args.concurrency, 16)
    rates = [
        run(
            args.mode,
            args.agents or agents,
            args.exchanges or per_agent,
            args.workers,
            concurrency,
            latency,
            batch,
            args.pool,
        )
        for _ in range(args.repeat)
    ]
    if len(rates) > 1:
        for label, values in (("whole run", [r[0] for r in rates]), ("steady state", [r[1] for r in rates])):
            print(
                f"{label} over {len(values)} runs: median {statistics.median(values):.1f} updates/s"
                f" (min {min(values):.1f}, max {max(values):.1f})"
            )


if __name__ == "__main__":
    main()
