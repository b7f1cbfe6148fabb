"""Celery tasks: thin. Ids in, call the update service, send follow-up wake-ups.

Retries are not Celery retries: the service records them in the queue row (`available_at`), which survives
broker restarts and lost messages; the dispatcher turns due rows back into wake-ups. A task that crashes
(database down, worker killed) leaves its row `running` until the lease expires and a sweep takes it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog

from summarizer.broker.celery_config import (
    MAINTENANCE_QUEUE,
    QUEUE,
    TASK_AGE,
    TASK_AGE_PAGE,
    TASK_ALERTS,
    TASK_DISPATCH,
    TASK_RESCUE,
    TASK_UPDATE,
)
from workers.app import app
from workers.runtime import alert_service, service

log = structlog.get_logger("workers.tasks")


def wake(agent_ids: Sequence[str | None]) -> None:
    """One update task per id; None asks for the most urgent due row, whoever's it is."""
    for agent_id in agent_ids:
        update_summary.apply_async(args=(agent_id,), queue=QUEUE)


@app.task(name=TASK_UPDATE, ignore_result=True)
def update_summary(agent_id: str | None = None) -> str:
    """Update `agent_id`'s summary; with nothing due for it (or no id), the most urgent due row's."""
    result = service().run_backlog(agent_id, or_any=True)
    if result.requeued and result.agent_id is not None:
        wake([result.agent_id])  # more work behind this batch: no need to wait for the next dispatcher run
    return result.outcome.value


def _broker_backlog() -> int:
    """Messages waiting in the broker queue (best effort; 0 if the transport cannot tell)."""
    try:
        with app.connection_for_write() as conn:
            channel: Any = conn.default_channel
            declared = channel.queue_declare(queue=QUEUE, passive=True)
            return int(declared.message_count)
    except Exception:
        return 0


@app.task(name=TASK_DISPATCH, ignore_result=True)
def dispatch() -> int:
    """Top the broker backlog up to one wake-up per due row (at most DISPATCH_LIMIT), and send at least one
    while anything is due.

    Every update task that finds its own agent with nothing due takes the most urgent due row instead,
    so any waiting wake-up serves some due row: wake-ups already in the queue (from evictions, from an
    earlier run) count, and only the difference is sent, as anonymous wake-ups. Sending one per due row
    on every run instead kept a large backlog's queue full of duplicates that cost more CPU to publish
    and discard than the updates themselves. The backlog also holds periodic messages, which serve no
    row; the one wake-up sent regardless keeps a queue crowded with them moving.
    """
    svc = service()
    due = len(svc.due())
    backlog = _broker_backlog()
    missing = max(min(due, 1), min(due, svc.config.dispatch_limit) - backlog)
    if missing and svc.provider_paused():
        missing = 1  # the provider's breaker is open: one wake-up, to carry its probe when it is due
    wake([None] * missing)
    if due:
        log.info("dispatch.sent", due=due, backlog=backlog, sent=missing)
    return missing


@app.task(name=TASK_RESCUE, ignore_result=True)
def rescue_leases() -> int:
    rescued = service().rescue()
    wake([r.agent_id for r in rescued if not r.parked])
    return len(rescued)


@app.task(name=TASK_AGE, ignore_result=True)
def age_summaries() -> int:
    """The aging sweep ages nothing itself: it starts the page tasks (each ages one page of agents due
    for aging and sends the next), so no task walks every agent."""
    age_page.apply_async(args=("",), queue=MAINTENANCE_QUEUE)
    return 0


@app.task(name=TASK_AGE_PAGE, ignore_result=True)
def age_page(after: str = "") -> int:
    """Age one page of agents due for aging, after agent id `after`; send the next page if there is one."""
    page = service().age_page(after)
    if page.next_after is not None:
        age_page.apply_async(args=(page.next_after,), queue=MAINTENANCE_QUEUE)
    return page.agents


@app.task(name=TASK_ALERTS, ignore_result=True)
def evaluate_alerts() -> int:
    """Judge the alert rules and deliver what the sinks still owe; the service never raises."""
    report = alert_service().evaluate()
    return len(report.raised) + len(report.resolved)
