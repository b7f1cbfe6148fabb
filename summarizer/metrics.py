"""The project's Prometheus metrics, read from the database at each scrape (through the storage port's
`MetricsReader`; this module only shapes the figures into metric families).

Every figure is the fleet's, not one process's: the queue, the summaries, the breaker and the run records
are in the database, so one `summarizer metrics` process (or the HTTP API mounting `build_registry`'s
registry at `GET /metrics`) reports for every worker. A scrape costs a handful of aggregate queries, each
answering a bounded number of rows (the cost counters one row a model, not one a day, agent and model);
the counters are sums over `summary_runs`, so they only grow while run records are kept.

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
  (0 when every summary was aged today);
* `llm_cost_usd_total{model}`: the recorded tokens of every run priced by the table (docs/cost.md), and
  `llm_model_tokens_total{model,direction}` (input, output) they come from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, time

from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from summarizer.domain.breaker_state import CLOSED, HALF_OPEN, OPEN
from summarizer.service.costs import Costs
from summarizer.storage.port import MetricFigures, MetricsReader

QUEUE_STATES = ("pending", "running", "idle", "failed")
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


class SummarizerCollector(Collector):
    def __init__(
        self, reader: MetricsReader, clock: type[datetime] = datetime, costs: Costs | None = None
    ) -> None:
        self.reader = reader
        self._clock = clock
        self.costs = costs

    def collect(self) -> Iterator[Metric]:
        now = self._clock.now(UTC)
        figures = self.reader.figures()
        yield from _queue(figures)
        yield from _breakers(figures, now)
        yield from _runs(figures)
        yield from _summaries(figures, now)
        if self.costs is not None:
            yield from _costs(self.costs)


def _queue(figures: MetricFigures) -> Iterator[Metric]:
    queue = GaugeMetricFamily(
        "summarizer_queue_agents", "Agents in the update queue by state", labels=["state"]
    )
    for state in QUEUE_STATES:
        queue.add_metric([state], float(figures.queue.get(state, 0)))
    yield queue
    yield GaugeMetricFamily(
        "summarizer_parked_agents",
        "Agents parked after failures (state failed)",
        value=figures.queue.get("failed", 0),
    )


def _breakers(figures: MetricFigures, now: datetime) -> Iterator[Metric]:
    opened = GaugeMetricFamily(
        "summarizer_breaker_open", "1 while the provider's breaker is open", labels=["provider"]
    )
    states = GaugeMetricFamily(
        "summarizer_breaker_state",
        "The provider breaker's state (1 for the current one)",
        labels=["provider", "state"],
    )
    for breaker in figures.breakers:
        shown = breaker.shown_state(now)
        opened.add_metric([breaker.provider], 0.0 if shown == CLOSED else 1.0)
        for state in (CLOSED, OPEN, HALF_OPEN):
            states.add_metric([breaker.provider, state], 1.0 if shown == state else 0.0)
    yield opened
    yield states


def _runs(figures: MetricFigures) -> Iterator[Metric]:
    outcomes = CounterMetricFamily("summarizer_update_runs", "Update attempts by outcome", labels=["outcome"])
    for outcome, count in figures.outcomes:
        outcomes.add_metric([outcome], float(count))
    yield outcomes
    tokens = CounterMetricFamily("summarizer_llm_tokens", "LLM tokens by direction", labels=["direction"])
    tokens.add_metric(["input"], float(figures.llm_input_tokens))
    tokens.add_metric(["output"], float(figures.llm_output_tokens))
    yield tokens
    yield CounterMetricFamily(
        "summarizer_truncations",
        "Updates that needed emergency truncation to fit the cap",
        value=float(figures.truncations),
    )
    failures = CounterMetricFamily("summarizer_llm_failures", "Failed updates by class", labels=["kind"])
    kinds: dict[str, float] = {}
    for error, count in figures.failing_errors:
        kind = failure_kind(error)
        kinds[kind] = kinds.get(kind, 0.0) + float(count)
    for kind, total in sorted(kinds.items()):
        failures.add_metric([kind], total)
    yield failures
    yield HistogramMetricFamily(
        "summarizer_update_duration_seconds",
        "Successful updates' durations",
        buckets=list(figures.durations.buckets),
        sum_value=figures.durations.total,
    )


def _summaries(figures: MetricFigures, now: datetime) -> Iterator[Metric]:
    yield HistogramMetricFamily(
        "summarizer_summary_tokens",
        "Current summaries' sizes in tokens",
        buckets=list(figures.summary_tokens.buckets),
        sum_value=figures.summary_tokens.total,
    )
    oldest = figures.oldest_aged_on
    lag = 0.0
    if oldest is not None and oldest < now.date():
        lag = (now - datetime.combine(oldest, time(), UTC)).total_seconds() - 86_400
    yield GaugeMetricFamily(
        "summarizer_aging_lag_seconds",
        "Time since the least recently aged summary was due for aging (0: all aged today)",
        value=max(0.0, lag),
    )


def _costs(costs: Costs) -> Iterator[Metric]:
    usd = CounterMetricFamily(
        "summarizer_llm_cost_usd", "Model spend in USD: recorded tokens times list prices", labels=["model"]
    )
    tokens = CounterMetricFamily(
        "summarizer_llm_model_tokens", "LLM tokens by model and direction", labels=["model", "direction"]
    )
    for line in costs.totals_by_model():
        usd.add_metric([line.key], float(line.usd))
        tokens.add_metric([line.key, "input"], float(line.usage.input_tokens))
        tokens.add_metric([line.key, "output"], float(line.usage.output_tokens))
    yield usd
    yield tokens


def build_registry(reader: MetricsReader, costs: Costs | None = None) -> CollectorRegistry:
    """A registry with the project's metrics; an HTTP API can serve it at `GET /metrics`."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SummarizerCollector(reader, costs=costs))
    return registry


def render(registry: CollectorRegistry) -> bytes:
    """The registry in Prometheus' text format (serve it with CONTENT_TYPE)."""
    return generate_latest(registry)
