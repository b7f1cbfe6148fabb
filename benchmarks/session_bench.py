"""What `SummarizerSession` adds to each OpenAI Agents SDK turn, against the SDK's own `SQLiteSession`.

    uv run python benchmarks/session_bench.py [--turns 200] [--database sqlite|postgresql] [--budget 2000]

Runs the same conversation through the SDK's real `Runner` three times: without a session (what the SDK
costs by itself), with `SQLiteSession` on a file, and with `SummarizerSession` on a fresh migrated
database (the embedded SQLite one, or a scratch PostgreSQL database: SUMMARIZER_BENCH_DATABASE_URL).
Each turn is one user message, a reasoning item and a function call, the tool's output and the answer
(two model calls, from the SDK's scripted model: no network), so each turn reads the history once and
adds two batches of items. The window budget makes exchanges leave the window as the conversation goes
(the summary workers are not run: folding happens elsewhere and never in a turn). Figures are per turn,
median and 95th percentile in milliseconds, the medians of the first and last quarter of the turns (how
the cost grows with the conversation), and what each session adds to the no-session turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import structlog
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool
from agents.memory import Session
from agents.testing import ScriptedModel, assistant_message, function_call
from openai.types.responses import ResponseReasoningItem

from summarizer.api import Summarizer
from summarizer.composition import build_database, build_summarizer
from summarizer.integrations.openai_agents import SummarizerSession
from summarizer.settings import LLMChoice, Settings
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.migrations import upgrade


@function_tool
def lookup(n: int) -> str:
    """Look up one inventory item."""
    return f"item {n}: 3 in stock, shelf {n % 7}, last counted on Monday by the night shift"


def _script(turns: int) -> list[Any]:
    steps: list[Any] = []
    for n in range(turns):
        reasoning = ResponseReasoningItem(id=f"rs_{n}", type="reasoning", summary=[])
        steps.append([reasoning, function_call("lookup", {"n": n}, call_id=f"call_{n}", item_id=f"fc_{n}")])
        steps.append([assistant_message(f"Item {n} has 3 in stock on shelf {n % 7}.", item_id=f"msg_{n}")])
    return steps


async def _turn_times(session: Session | None, turns: int) -> list[float]:
    agent = Agent(name="stock", instructions="Answer stock questions.", model=ScriptedModel(_script(turns)))
    agent.tools.append(lookup)
    config = RunConfig(tracing_disabled=True)
    times = []
    for n in range(turns):
        started = time.perf_counter()
        await Runner.run(agent, f"Turn {n}: how many of item {n}?", session=session, run_config=config)
        times.append((time.perf_counter() - started) * 1000)
    return times


@contextmanager
def _summarizer(kind: str, budget: int, tmp: Path) -> Iterator[Summarizer]:
    settings = Settings(
        data_dir=tmp / "data", database_url="", broker_url="", llm=LLMChoice.OFFLINE, window_tokens=budget
    )
    if kind == "postgresql":
        from benchmarks.pg import scratch_postgres

        with scratch_postgres("summarizer_session") as db:
            yield build_summarizer(settings.model_copy(update={"database_url": str(db.url)}), db)
        return
    database: Database = build_database(settings)
    upgrade(database)
    try:
        yield build_summarizer(settings, database)
    finally:
        database.dispose()


def _figures(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    quarter = max(1, len(times) // 4)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "first_quarter_median_ms": round(statistics.median(times[:quarter]), 2),
        "last_quarter_median_ms": round(statistics.median(times[-quarter:]), 2),
    }


def run(turns: int, kind: str, budget: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="session-bench-") as name:
        tmp = Path(name)
        bare = asyncio.run(_turn_times(None, turns))
        sqlite_session = SQLiteSession("bench", tmp / "sdk.db")
        try:
            sdk = asyncio.run(_turn_times(sqlite_session, turns))
        finally:
            sqlite_session.close()
        with _summarizer(kind, budget, tmp) as api:
            ours = asyncio.run(_turn_times(SummarizerSession("bench", api), turns))
            history = api.history("bench")
    base = statistics.median(bare)
    return {
        "turns": turns,
        "database": kind,
        "window_budget_tokens": budget,
        "exchanges_evicted": sum(1 for e in history.exchanges if e.state == "evicted"),
        "no_session": _figures(bare),
        "sdk_sqlite_session": {**_figures(sdk), "adds_ms": round(statistics.median(sdk) - base, 2)},
        "summarizer_session": {**_figures(ours), "adds_ms": round(statistics.median(ours) - base, 2)},
        "summarizer_minus_sdk_sqlite_ms": round(statistics.median(ours) - statistics.median(sdk), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--budget", type=int, default=2000, help="window budget in tokens")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(json.dumps(run(args.turns, args.database, args.budget), indent=2))


if __name__ == "__main__":
    main()
