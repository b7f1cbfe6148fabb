"""Celery tasks: thin. Ids in, call the update service, send follow-up wake-ups.

Retries are not Celery retries: the service records them in the queue row (`available_at`), which survives
broker restarts and lost messages; the dispatcher turns due rows back into wake-ups. A task that crashes
(database down, worker killed) leaves its row `running` until the lease expires and a sweep takes it back.
"""

from __future__ import annotations

from typing import Any

import structlog

from summarizer.service.celery_config import (
    QUEUE,
    TASK_AGE,
    TASK_ALERTS,
    TASK_DISPATCH,
    TASK_RESCUE,
    TASK_UPDATE,
)
from workers.app import app
from workers.runtime import alert_service, service

log = structlog.get_logger("workers.tasks")


def wake(agent_ids: list[str]) -> None:
    for agent_id in agent_ids:
        update_summary.apply_async(args=(agent_id,), queue=QUEUE)


@app.task(name=TASK_UPDATE, ignore_result=True)
def update_summary(agent_id: str) -> str:
    result = service().run_backlog(agent_id)
    if result.requeued:
        wake([agent_id])  # more work behind this batch: no need to wait for the next dispatcher run
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
    """Send wake-ups for due rows. Duplicates are harmless (a claim that finds nothing), so the only care is
    not to flood the broker: with a backlog already waiting, send only what tops it up to DISPATCH_LIMIT."""
    svc = service()
    due = svc.due()
    room = max(0, svc.config.dispatch_limit - _broker_backlog())
    wake(due[:room])
    if due:
        log.info("dispatch.sent", due=len(due), sent=min(room, len(due)))
    return min(room, len(due))


@app.task(name=TASK_RESCUE, ignore_result=True)
def rescue_leases() -> int:
    rescued = service().rescue()
    wake([r.agent_id for r in rescued if not r.parked])
    return len(rescued)


@app.task(name=TASK_AGE, ignore_result=True)
def age_summaries() -> int:
    return service().age_all()


@app.task(name=TASK_ALERTS, ignore_result=True)
def evaluate_alerts() -> int:
    """Judge the alert rules and deliver what the sinks still owe; the service never raises."""
    report = alert_service().evaluate()
    return len(report.raised) + len(report.resolved)
