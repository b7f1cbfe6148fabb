"""The dashboard aggregate on both databases: exact figures from known runs and queue rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.stats import query_stats
from summarizer.storage.sql.writers.summaries import record_run
from summarizer.storage.values import RunRecord
from tests.support.rows import insert_queued_agent

NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
DAY_AGO = NOW - timedelta(hours=24)


def run(
    minutes_ago: float,
    outcome: str = "ok",
    *,
    ms: int = 1_000,
    path: str | None = "append",
    llm: tuple[int, int] = (0, 0),
    tokens: int | None = None,
    truncated: bool = False,
) -> RunRecord:
    finished = NOW - timedelta(minutes=minutes_ago)
    return RunRecord(
        agent_id="a",
        started_at=finished - timedelta(milliseconds=ms),
        finished_at=finished,
        outcome=outcome,
        path=path if outcome == "ok" else None,
        llm_input_tokens=llm[0],
        llm_output_tokens=llm[1],
        llm_cache_read_tokens=llm[0] // 2,
        llm_cache_write_tokens=llm[0] // 10,
        summary_tokens=tokens,
        truncated=truncated,
        error=None if outcome == "ok" else "LLMTransientError: overloaded",
    )


def add_queue_rows(db: Database, states: dict[str, int]) -> None:
    with db.write() as conn:
        n = 0
        for state, count in states.items():
            for _ in range(count):
                n += 1
                agent_id = f"agent-{n}"
                insert_queued_agent(conn, agent_id, state=state, now=NOW)


def test_an_empty_system_has_zero_figures_and_no_averages(db: Database) -> None:
    with db.read() as conn:
        stats = query_stats(conn, since=DAY_AGO, until=NOW)
    doc = replace(stats, summary_max_tokens=10_000).to_json()
    assert doc["updates_completed"] == doc["updates_failed"] == doc["queue_depth"] == 0
    assert doc["failure_rate"] == 0.0
    assert doc["avg_duration_ms"] is None
    assert doc["avg_summary_tokens"] is None
    assert doc["paths"] == {}
    assert doc["queue"] == {"pending": 0, "running": 0, "failed": 0, "idle": 0}


def test_figures_over_the_window_and_the_queue(db: Database) -> None:
    runs = [
        run(10, ms=1_000, path="append", llm=(100, 20), tokens=7_000),
        run(20, ms=3_000, path="append", llm=(200, 40), tokens=8_000),
        run(30, ms=5_000, path="merge", llm=(300, 60), tokens=9_000, truncated=True),
        run(24 * 60, ms=3_001, path="full", llm=(400, 80), tokens=7_501),  # exactly at the window's start
        run(40, "retry", ms=60_000, llm=(500, 0)),
        run(50, "parked", ms=10),
        # Outside the window: must not count anywhere.
        run(24 * 60 + 1, ms=999_999, path="full", llm=(9_999, 9_999), tokens=9_999, truncated=True),
        run(48 * 60, "retry"),
    ]
    with db.write() as conn:
        for r in runs:
            record_run(conn, r)
    add_queue_rows(db, {"pending": 2, "running": 1, "failed": 1, "idle": 3})
    with db.read() as conn:
        stats = query_stats(conn, since=DAY_AGO, until=NOW)
    assert (stats.updates_completed, stats.updates_failed, stats.updates_parked, stats.runs) == (4, 2, 1, 6)
    assert stats.failure_rate == 2 / 6
    assert stats.avg_duration_ms == 3_000.25  # (1000 + 3000 + 5000 + 3001) / 4, failures excluded
    assert stats.avg_summary_tokens == 7_875.25
    assert stats.largest_summary_tokens == 9_000
    assert (stats.llm_input_tokens, stats.llm_output_tokens) == (1_500, 200)
    assert (stats.llm_cache_read_tokens, stats.llm_cache_write_tokens) == (750, 150)  # parts of the input
    assert stats.truncations == 1
    assert stats.paths == {"append": 2, "merge": 1, "full": 1}
    assert (stats.updates_queued, stats.queue_depth) == (2, 4)
    doc = replace(stats, summary_max_tokens=10_000).to_json()
    assert {k: doc[k] for k in list(doc)[:10]} == {
        "updates_queued": 2,
        "updates_completed": 4,
        "updates_failed": 2,
        "failure_rate": 0.3333,
        "avg_duration_ms": 3_000,
        "avg_summary_tokens": 7_875,
        "queue_depth": 4,
        "llm_input_tokens": 1_500,
        "llm_output_tokens": 200,
        "truncations": 1,
    }
    assert doc["queue"] == {"pending": 2, "running": 1, "failed": 1, "idle": 3}
    assert doc["summary_max_tokens"] == 10_000
    assert (doc["llm_cache_read_tokens"], doc["llm_cache_write_tokens"]) == (750, 150)
    assert doc["window"]["seconds"] == 86_400


def test_a_shorter_window_sees_fewer_runs(db: Database) -> None:
    with db.write() as conn:
        for minutes in (5, 30, 89, 91, 120):
            record_run(conn, run(minutes, tokens=1_000))
    with db.read() as conn:
        stats = query_stats(conn, since=NOW - timedelta(minutes=90), until=NOW)
    assert stats.updates_completed == 3
    assert stats.paths == {"append": 3}
