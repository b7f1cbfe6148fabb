"""The figures behind the Prometheus metrics, read in one read transaction: a handful of aggregate queries
over the queue, the breakers, the run records and the summaries (the same SQL on both databases)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import Connection, case, func, select
from sqlalchemy.sql.elements import ColumnElement

from summarizer.storage.sql.database import Database
from summarizer.storage.sql.statements.schema import summaries, summary_runs, summary_update_queue
from summarizer.storage.sql.writers import breakers
from summarizer.storage.values import FAILING_OUTCOMES, Histogram, MetricFigures

DURATION_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
TOKEN_BUCKETS = (500, 1_000, 2_000, 4_000, 6_000, 8_000, 9_000, 10_000, 12_000)


def _histogram(
    conn: Connection,
    column: ColumnElement[int],
    where: ColumnElement[bool],
    buckets: tuple[float, ...],
    scale: float,
) -> Histogram:
    """Cumulative bucket counts and the sum of `column` (divided by `scale`), in one query."""
    columns = [func.coalesce(func.sum(case((column <= bound * scale, 1), else_=0)), 0) for bound in buckets]
    row = conn.execute(select(*columns, func.count(), func.coalesce(func.sum(column), 0)).where(where)).one()
    counts = [(str(bound), float(row[i])) for i, bound in enumerate(buckets)]
    counts.append(("+Inf", float(row[len(buckets)])))
    return Histogram(tuple(counts), float(row[len(buckets) + 1]) / scale)


def read_figures(conn: Connection) -> MetricFigures:
    q = summary_update_queue.c
    runs = summary_runs.c
    col = summaries.c
    queue = {str(s): int(n) for s, n in conn.execute(select(q.state, func.count()).group_by(q.state)).all()}
    outcomes = tuple(
        (str(o), int(n)) for o, n in conn.execute(select(runs.outcome, func.count()).group_by(runs.outcome))
    )
    totals = conn.execute(
        select(
            func.coalesce(func.sum(runs.llm_input_tokens), 0),
            func.coalesce(func.sum(runs.llm_output_tokens), 0),
            func.coalesce(func.sum(case((runs.truncated, 1), else_=0)), 0),
        )
    ).one()
    prefix = func.substr(func.coalesce(runs.error, ""), 1, 120)
    failing = tuple(
        (str(error), int(n))
        for error, n in conn.execute(
            select(prefix, func.count()).where(runs.outcome.in_(FAILING_OUTCOMES)).group_by(prefix)
        )
    )
    oldest: date | None = conn.execute(select(func.min(col.last_aged_on)).where(col.version > 0)).scalar()
    return MetricFigures(
        queue=queue,
        breakers=tuple(breakers.list_breakers(conn)),
        outcomes=outcomes,
        llm_input_tokens=int(totals[0]),
        llm_output_tokens=int(totals[1]),
        truncations=int(totals[2]),
        failing_errors=failing,
        durations=_histogram(conn, runs.duration_ms, runs.outcome == "ok", DURATION_BUCKETS, 1000.0),
        summary_tokens=_histogram(conn, col.token_count, col.version > 0, TOKEN_BUCKETS, 1.0),
        oldest_aged_on=oldest,
    )


class SqlMetricsReader:
    def __init__(self, db: Database) -> None:
        self._db = db

    def figures(self) -> MetricFigures:
        with self._db.read() as conn:
            return read_figures(conn)
