"""What pins and the "Now" pin cost per update: tokens in every context, and milliseconds of the update.

    uv run python benchmarks/pins_bench.py [--database sqlite|postgresql] [--updates N] [--rounds R]

A coding agent's log (a request, an answer and a TodoWrite call per exchange, one exchange evicted per
record) is folded one exchange per update by the real update service over a migrated database, with an
instant fake model, in three set-ups: no pins and the "Now" pin off; two operator pins of about 500 tokens;
the "Now" pin on (the default for a log with a todo list). The figure per set-up is the median wall time of
one update (claim, the "Now" pin's read, engine, commit) over every update of R interleaved rounds, and
the tokens the pins add to what a host sends (their rendered block, counted like the cap counts). The
totals vary more from run to run than the features cost on a shared machine, so the features' own steps
are also timed alone, on a log of 200 exchanges.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from datetime import UTC, datetime, timedelta

import structlog

from benchmarks.pg import scratch_database
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.cap import estimate_text
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.pins import PinLimits, pins_tokens
from summarizer.llm.fake import FakeLLM
from summarizer.service.now_pin import now_pin_text, refresh_now
from summarizer.service.results import Outcome, WorkerConfig
from summarizer.service.steering import Steering
from summarizer.service.update import UpdateService
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

AGENT = "bench/coder"
PIN_TEXT = "Deploy only from the release branch; migrations run by CI, never by hand. " * 26
SETUPS = ("none", "pins", "now")


def exchange(n: int, at: datetime) -> list[NewMessage]:
    todos = [
        {
            "content": f"Step {k} of the task",
            "status": "completed" if k < n % 8 else "pending",
            "activeForm": "x",
        }
        for k in range(8)
    ]
    return [
        NewMessage(
            Kind.USER, f"Request {n}: refactor module {n} and keep the tests green.", tokens=30, created_at=at
        ),
        NewMessage(Kind.ASSISTANT, f"Refactored module {n}; all tests pass.", tokens=20, created_at=at),
        NewMessage(
            Kind.TOOL_CALL,
            "",
            tool_call_id=f"t{n}",
            name="TodoWrite",
            input={"todos": todos},
            tokens=40,
            created_at=at,
        ),
        NewMessage(Kind.TOOL_RESULT, "Todos updated", tool_call_id=f"t{n}", tokens=5, created_at=at),
    ]


def one_round(kind: str, setup: str, updates: int) -> tuple[list[float], int]:
    """Milliseconds of each update, and the tokens the pins take of the final summary."""
    from summarizer.composition import build_sql_store

    with scratch_database(kind, "summarizer_pins") as db:
        store = ConversationStore(db, StoreConfig(window_tokens=200, batch_size=1))
        sql = build_sql_store(db)
        config = WorkerConfig(
            batch_size=1, batch_max_wait=0, follow_on_seconds=0, now_item="auto" if setup == "now" else "off"
        )
        service = UpdateService(sql, SummaryEngine(FakeLLM(), ByteEstimateCounter()), config)
        store.create_agent(AGENT)
        if setup == "pins":
            steering = Steering(sql, PinLimits(10_000, 0.25), estimate_text)
            steering.pin(AGENT, PIN_TEXT[: len(PIN_TEXT) // 2], name="deploy")
            steering.pin(AGENT, PIN_TEXT[len(PIN_TEXT) // 2 :], name="style")
        start = datetime.now(UTC) - timedelta(hours=2)
        timings: list[float] = []
        for n in range(updates + 4):
            store.record(AGENT, exchange(n, start + timedelta(seconds=n)))
            began = time.perf_counter()
            result = service.run(AGENT)
            if result.outcome is Outcome.OK:
                timings.append((time.perf_counter() - began) * 1000)
        summary = sql.load_summary(AGENT)
        assert summary is not None
        return timings[:updates], pins_tokens(summary.pins, estimate_text)


def parts(kind: str, repeats: int = 200) -> tuple[float, float]:
    """The feature's own work per update, timed alone: the "Now" pin's read of the log with building its
    text and setting it; and the engine's count of two pins (the room the items get). Milliseconds."""
    from summarizer.composition import build_sql_store

    with scratch_database(kind, "summarizer_pins") as db:
        store = ConversationStore(db, StoreConfig(window_tokens=200, batch_size=1))
        sql = build_sql_store(db)
        start = datetime.now(UTC) - timedelta(hours=2)
        for n in range(200):
            store.record(AGENT, exchange(n, start + timedelta(seconds=n)))
        engine = SummaryEngine(FakeLLM(), ByteEstimateCounter())
        steering = Steering(sql, PinLimits(10_000, 0.25), estimate_text)
        steering.pin(AGENT, PIN_TEXT[: len(PIN_TEXT) // 2], name="deploy")
        steering.pin(AGENT, PIN_TEXT[len(PIN_TEXT) // 2 :], name="style")
        summary = sql.load_summary(AGENT)
        assert summary is not None
        limits = PinLimits(10_000, 0.25)
        now_ms, pins_ms = [], []
        for _ in range(repeats):
            began = time.perf_counter()
            text = now_pin_text("auto", None, sql.latest_task(AGENT))
            refresh_now(summary, AGENT, text, datetime.now(UTC), engine.count, limits)
            now_ms.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            engine.pins_cap_share(summary)
            pins_ms.append((time.perf_counter() - began) * 1000)
        return statistics.median(now_ms), statistics.median(pins_ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    base = 0.0
    one_round(args.database, "now", 5)  # warm-up: imports, the first statements' compilation
    print(f"{args.database}: {args.updates} updates per round, {args.rounds} rounds (set-ups interleaved)")
    timings: dict[str, list[float]] = {setup: [] for setup in SETUPS}
    tokens: dict[str, int] = {}
    for _ in range(args.rounds):
        for setup in SETUPS:
            found, tokens[setup] = one_round(args.database, setup, args.updates)
            timings[setup].extend(found)
    for setup in SETUPS:
        median = statistics.median(timings[setup])
        base = base or median
        print(
            f"  {setup:5}  {median:6.2f} ms per update (median of {len(timings[setup])})  "
            f"{median - base:+6.2f} ms  pins in context: {tokens[setup]:4} tokens"
        )
    now_ms, pins_ms = parts(args.database)
    print(f"  alone: the Now pin's log read + text + set {now_ms:.3f} ms; counting two pins {pins_ms:.3f} ms")


if __name__ == "__main__":
    main()
