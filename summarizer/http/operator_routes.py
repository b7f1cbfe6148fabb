"""The operator endpoints: the queue, re-queueing an agent, update figures, alerts.

Every operator action of the HTTP API is in this module and calls the `Operations` methods the matching CLI
command calls (`queue`, `requeue`, `stats`, `alerts`, `alerts ack`), so both always agree. Only an
unscoped token may use them: they see the whole fleet.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import structlog
from fastapi import APIRouter, HTTPException, Path, Query

from summarizer.domain.alert_rules import format_duration, parse_duration
from summarizer.domain.errors import UnknownAgent
from summarizer.domain.queue_states import RUNNING
from summarizer.http.auth import Operator, OperatorWriter
from summarizer.http.schemas import (
    AUTH_ERRORS,
    AlertOut,
    QueueRowOut,
    RequeueOut,
    Responses,
    StatsOut,
    problem,
)
from summarizer.http.wiring import Services

log = structlog.get_logger("summarizer.http")

MAX_WINDOW_SECONDS = 3650 * 86_400
ALERT_ID_MAX = 2**63 - 1
QueueState = Literal["pending", "running", "idle", "failed"]

ERRORS: Responses = {**AUTH_ERRORS, 403: problem("The token is limited to some agents")}
"""Only an unscoped token may use the operator endpoints."""
NOT_FOUND: Responses = {404: problem("Not found")}
BAD_QUERY: Responses = {422: problem("Bad query parameter")}

router = APIRouter(prefix="/v1", tags=["operator"], responses=ERRORS)


@router.get("/queue", response_model=list[QueueRowOut], responses=BAD_QUERY)
def queue(
    _: Operator,
    wired: Services,
    state: Annotated[list[QueueState] | None, Query(description="Only rows in these states")] = None,
) -> list[dict[str, Any]]:
    """The summary update queue, one row per agent (`summarizer queue --json`, plus the last error)."""
    rows = wired.operations.queue(states=state or None)
    return [{**r.to_json(), "last_error": r.last_error} for r in rows]


@router.post("/agents/{agent_id:path}/requeue", response_model=RequeueOut, responses=NOT_FOUND)
def requeue(agent_id: str, _: OperatorWriter, wired: Services) -> dict[str, Any]:
    """Re-arm an agent's summary updates (after it was parked): `summarizer requeue AGENT`.

    A running update is left alone (`state` stays `running`); it is re-queued if it fails.
    """
    done = wired.operations.requeue(agent_id)
    if done is None:
        raise UnknownAgent(agent_id)
    if done.wake_error is not None:  # a lost wake-up only delays: the dispatcher finds every pending row
        log.warning("requeue.wakeup_failed", agent_id=agent_id, error=done.wake_error)
    return {
        "agent_id": agent_id,
        "previous_state": done.previous,
        "state": RUNNING if done.previous == RUNNING else "pending",
        "woken": done.woken,
    }


@router.get("/stats", response_model=StatsOut, responses=BAD_QUERY)
def stats(
    _: Operator,
    wired: Services,
    since: Annotated[str, Query(description="Window of runs: e.g. 90m, 24h, 7d", max_length=32)] = "24h",
) -> dict[str, Any]:
    """Update figures over a recent window and the queue as it is now (`summarizer stats --json`)."""
    seconds = window_seconds(since)
    figures = wired.operations.stats(seconds, datetime.now(UTC))
    doc = figures.to_json()
    doc["window"]["label"] = format_duration(seconds)
    return doc


def window_seconds(text: str) -> float:
    """A `since` query parameter in seconds; 422 when it is not a duration or is over ten years."""
    try:
        seconds = parse_duration(text)
    except ValueError as exc:
        raise HTTPException(422, f"since: {exc}") from None
    if seconds > MAX_WINDOW_SECONDS:
        raise HTTPException(422, f"since: {text!r} is longer than the longest window (3650d)")
    return seconds


@router.get("/alerts", response_model=list[AlertOut])
def alerts(
    _: Operator,
    wired: Services,
    all: Annotated[bool, Query(description="Resolved alerts too, not only open ones")] = False,
    limit: Annotated[int, Query(ge=1, le=10_000, description="Newest first")] = 100,
) -> list[dict[str, Any]]:
    """Open alerts, newest first (`summarizer alerts --json`); `all=true` adds resolved ones."""
    return [r.to_json() for r in wired.operations.alerts(include_resolved=all, limit=limit)]


@router.post("/alerts/{alert_id}/ack", response_model=AlertOut, responses=NOT_FOUND)
def ack(
    alert_id: Annotated[int, Path(ge=1, le=ALERT_ID_MAX)], _: OperatorWriter, wired: Services
) -> dict[str, Any]:
    """Acknowledge an alert (`summarizer alerts ack ID`): it stays open until its condition clears, but
    is sent nowhere else."""
    return wired.operations.ack_alert(alert_id).to_json()
