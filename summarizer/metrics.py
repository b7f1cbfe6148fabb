"""The project's Prometheus metrics, read from the database at each scrape.

Every figure is the fleet's, not one process's: the queue, the summaries, the breaker and the run records
are in the database, so one `summarizer metrics` process (or the HTTP API mounting `build_registry`'s
registry at `GET /metrics`) reports for every worker. A scrape costs a handful of aggregate queries; the
counters are sums over `summary_runs`, so they only grow while run records are kept.

Metrics (all prefixed `summarizer_`):

* `queue_agents{state}`: queue rows by state (pending, running, idle, failed); `parked_agents`;
* `breaker_open{provider}` (0/1) and `breaker_state{provider,state}` (closed, open, half-open);
* `update_duration_seconds`: histogram of successful updates' durations;
* `update_runs_total{outcome}`; `llm_tokens_total{direction}` (input, output);
  `llm_failures_total{kind}` (auth, quota, not_found, connection, overloaded, rate_limit, server: the
  provider's; `agent`: the batch's own);
* `summary_tokens` (histogram of current summaries' sizes), `summaries`;
* `truncations_total`: updates that needed emergency truncation to fit the cap;
* `aging_lag_seconds`: how long the summary aged longest ago has waited since its last aging day began
  (0 when every summary was aged today).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time

from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from sqlalchemy import case, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from summarizer.domain.breaker_state import CLOSED, HALF_OPEN, OPEN
from summarizer.storage.sql import breakers
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.schema import summaries, summary_runs, summary_update_queue

QUEUE_STATES = ("pending", "running", "idle", "failed")
DURATION_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
TOKEN_BUCKETS = (500, 1_000, 2_000, 4_000, 6_000, 8_000, 9_000, 10_000, 12_000)
FAILING_OUTCOMES = ("retry", "parked", "paused")
_STATUS = re.compile(r"HTTP (\d{3})")
_STATUS_KINDS = {401: "auth", 403: "auth", 402: "quota", 404: "not_found", 429: "rate_limit"}
_STATUS_KINDS.update({503: "overloaded", 529: "overloaded"})
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def failure_kind(error: str | None) -> str:
    """The class of a failed run from its recorded error: a provider fault kind, or `agent`."""
    text = error or ""
    if "connection" in text.lower() and "HTTP" not in text:
        return "connection"
    match = _STATUS.search(text[:200])
    if match is None:
        return "agent"
    status = int(match.group(1))
    if status in _STATUS_KINDS:
        return _STATUS_KINDS[status]
    return "server" if status >= 500 else "agent"


def _histogram(
    conn: Connection,
    column: ColumnElement[int],
    where: ColumnElement[bool],
    buckets: tuple[float, ...],
    scale: float,
) -> tuple[list[tuple[str, float]], float]:
    """Cumulative bucket counts and the sum of `column` (divided by `scale`), in one query."""
    columns = [func.coalesce(func.sum(case((column <= bound * scale, 1), else_=0)), 0) for bound in buckets]
    row = conn.execute(select(*columns, func.count(), func.coalesce(func.sum(column), 0)).where(where)).one()
    counts = [(str(bound), float(row[i])) for i, bound in enumerate(buckets)]
    counts.append(("+Inf", float(row[len(buckets)])))
    return counts, float(row[len(buckets) + 1]) / scale


class SummarizerCollector(Collector):
    def __init__(self, db: Database, clock: type[datetime] = datetime) -> None:
        self.db = db
        self._clock = clock

    def collect(self) -> Iterator[Metric]:
        now = self._clock.now(UTC)
        with self.db.read() as conn:
            yield from self._queue(conn)
            yield from self._breakers(conn, now)
            yield from self._runs(conn)
            yield from self._summaries(conn, now)

    def _queue(self, conn: Connection) -> Iterator[Metric]:
        rows: dict[str, int] = dict(
            conn.execute(
                select(summary_update_queue.c.state, func.count()).group_by(summary_update_queue.c.state)
            ).all()
        )
        queue = GaugeMetricFamily(
            "summarizer_queue_agents", "Agents in the update queue by state", labels=["state"]
        )
        for state in QUEUE_STATES:
            queue.add_metric([state], float(rows.get(state, 0)))
        yield queue
        yield GaugeMetricFamily(
            "summarizer_parked_agents",
            "Agents parked after failures (state failed)",
            value=rows.get("failed", 0),
        )

    def _breakers(self, conn: Connection, now: datetime) -> Iterator[Metric]:
        opened = GaugeMetricFamily(
            "summarizer_breaker_open", "1 while the provider's breaker is open", labels=["provider"]
        )
        states = GaugeMetricFamily(
            "summarizer_breaker_state",
            "The provider breaker's state (1 for the current one)",
            labels=["provider", "state"],
        )
        for breaker in breakers.list_breakers(conn):
            shown = breaker.shown_state(now)
            opened.add_metric([breaker.provider], 0.0 if shown == CLOSED else 1.0)
            for state in (CLOSED, OPEN, HALF_OPEN):
                states.add_metric([breaker.provider, state], 1.0 if shown == state else 0.0)
        yield opened
        yield states

    def _runs(self, conn: Connection, now: object = None) -> Iterator[Metric]:
        runs = summary_runs.c
        by_outcome = conn.execute(select(runs.outcome, func.count()).group_by(runs.outcome)).all()
        outcomes = CounterMetricFamily(
            "summarizer_update_runs", "Update attempts by outcome", labels=["outcome"]
        )
        for outcome, count in by_outcome:
            outcomes.add_metric([outcome], float(count))
        yield outcomes
        totals = conn.execute(
            select(
                func.coalesce(func.sum(runs.llm_input_tokens), 0),
                func.coalesce(func.sum(runs.llm_output_tokens), 0),
                func.coalesce(func.sum(case((runs.truncated, 1), else_=0)), 0),
            )
        ).one()
        tokens = CounterMetricFamily("summarizer_llm_tokens", "LLM tokens by direction", labels=["direction"])
        tokens.add_metric(["input"], float(totals[0]))
        tokens.add_metric(["output"], float(totals[1]))
        yield tokens
        yield CounterMetricFamily(
            "summarizer_truncations",
            "Updates that needed emergency truncation to fit the cap",
            value=float(totals[2]),
        )
        failures = CounterMetricFamily("summarizer_llm_failures", "Failed updates by class", labels=["kind"])
        kinds: dict[str, float] = {}
        prefix = func.substr(func.coalesce(runs.error, ""), 1, 120)
        grouped = conn.execute(
            select(prefix, func.count()).where(runs.outcome.in_(FAILING_OUTCOMES)).group_by(prefix)
        ).all()
        for error, count in grouped:
            kind = failure_kind(error)
            kinds[kind] = kinds.get(kind, 0.0) + float(count)
        for kind, count in sorted(kinds.items()):
            failures.add_metric([kind], count)
        yield failures
        buckets, total = _histogram(conn, runs.duration_ms, runs.outcome == "ok", DURATION_BUCKETS, 1000.0)
        yield HistogramMetricFamily(
            "summarizer_update_duration_seconds",
            "Successful updates' durations",
            buckets=buckets,
            sum_value=total,
        )

    def _summaries(self, conn: Connection, now: datetime) -> Iterator[Metric]:
        col = summaries.c
        buckets, total = _histogram(conn, col.token_count, col.version > 0, TOKEN_BUCKETS, 1.0)
        yield HistogramMetricFamily(
            "summarizer_summary_tokens",
            "Current summaries' sizes in tokens",
            buckets=buckets,
            sum_value=total,
        )
        oldest: date | None = conn.execute(select(func.min(col.last_aged_on)).where(col.version > 0)).scalar()
        lag = 0.0
        if oldest is not None and oldest < now.date():
            lag = (now - datetime.combine(oldest, time(), UTC)).total_seconds() - 86_400
        yield GaugeMetricFamily(
            "summarizer_aging_lag_seconds",
            "Time since the least recently aged summary was due for aging (0: all aged today)",
            value=max(0.0, lag),
        )


def build_registry(db: Database) -> CollectorRegistry:
    """A registry with the project's metrics; an HTTP API can serve it at `GET /metrics`."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SummarizerCollector(db))
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The registry in Prometheus' text format (serve it with CONTENT_TYPE)."""
    return generate_latest(registry)
