"""The dashboard figures: one aggregate over a window of `summary_runs`, plus the queue as it is now.

Three small queries (the run aggregate, runs per path, queue rows per state), each one index range scan
(`summary_runs.finished_at`) or a scan of the one-row-per-agent queue, so `stats` and the alert beat stay
cheap however long the run history grows. Same SQL on PostgreSQL and SQLite.

What the figures mean:

* a *run* is one row of `summary_runs` that finished inside the window: one update attempt;
* `updates_completed`: runs with outcome ``ok`` (a new summary version committed);
* `updates_failed`: runs with outcome ``retry`` or ``parked`` (the LLM call or its answer failed; the old
  summary stayed); `failure_rate` = failed / (completed + failed), 0 with no runs;
* `avg_duration_ms`, `avg_summary_tokens`: over completed runs only (a failed attempt has no summary, and
  its duration is mostly a timeout the failure rate already reports); None without a completed run;
* `updates_queued`: queue rows in ``pending`` right now (waiting for a worker, including rows backing off
  before a retry);
* `queue_depth`: the backlog, every agent with outstanding work: ``pending`` + ``running`` + ``failed``
  (parked rows still owe an update). ``idle`` rows are up to date and never count.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, case, func, literal, select

from summarizer.domain.update_stats import UpdateStats
from summarizer.storage.sql.statements.schema import summary_runs as runs
from summarizer.storage.sql.statements.schema import summary_update_queue as q

__all__ = ["COMPLETED_OUTCOMES", "FAILED_OUTCOMES", "PARKED_OUTCOME", "UpdateStats", "query_stats"]

# The outcomes UpdateService writes to `summary_runs` (service.results.Outcome; storage does not import it).
COMPLETED_OUTCOMES = ("ok",)
FAILED_OUTCOMES = ("retry", "parked")
PARKED_OUTCOME = "parked"


def _count_if(condition: Any) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def query_stats(conn: Connection, *, since: datetime, until: datetime) -> UpdateStats:
    """Runs that finished at or after `since` (`until` only labels the window: a run stamped slightly
    ahead by a skewed worker clock still counts), and the queue as it is now."""
    completed = runs.c.outcome.in_(COMPLETED_OUTCOMES)
    in_window = runs.c.finished_at >= since
    row = conn.execute(
        select(
            _count_if(completed).label("completed"),
            _count_if(runs.c.outcome.in_(FAILED_OUTCOMES)).label("failed"),
            _count_if(runs.c.outcome == PARKED_OUTCOME).label("parked"),
            func.avg(case((completed, runs.c.duration_ms))).label("avg_duration"),
            func.avg(case((completed, runs.c.summary_tokens))).label("avg_tokens"),
            func.max(case((completed, runs.c.summary_tokens))).label("max_tokens"),
            func.coalesce(func.sum(runs.c.llm_input_tokens), 0).label("llm_in"),
            func.coalesce(func.sum(runs.c.llm_output_tokens), 0).label("llm_out"),
            func.coalesce(func.sum(runs.c.llm_cache_read_tokens), 0).label("cache_read"),
            func.coalesce(func.sum(runs.c.llm_cache_write_tokens), 0).label("cache_write"),
            _count_if(runs.c.truncated == literal(True)).label("truncations"),
        ).where(in_window)
    ).one()
    paths = conn.execute(
        select(runs.c.path, func.count())
        .where(in_window, completed, runs.c.path.is_not(None))
        .group_by(runs.c.path)
    ).all()
    queue = conn.execute(select(q.c.state, func.count()).group_by(q.c.state)).all()
    return UpdateStats(
        since=since,
        until=until,
        updates_completed=int(row.completed),
        updates_failed=int(row.failed),
        updates_parked=int(row.parked),
        avg_duration_ms=None if row.avg_duration is None else float(row.avg_duration),
        avg_summary_tokens=None if row.avg_tokens is None else float(row.avg_tokens),
        largest_summary_tokens=None if row.max_tokens is None else int(row.max_tokens),
        llm_input_tokens=int(row.llm_in),
        llm_output_tokens=int(row.llm_out),
        llm_cache_read_tokens=int(row.cache_read),
        llm_cache_write_tokens=int(row.cache_write),
        truncations=int(row.truncations),
        paths={str(path): int(n) for path, n in paths},
        queue={str(state): int(n) for state, n in queue},
    )
