"""A worker's reserved maintenance slot: a child consumer that takes only the maintenance queue.

Periodic work (dispatch, lease rescue, small-batch flush, aging pages, alert evaluation) is routed to
`MAINTENANCE_QUEUE`. Every worker that consumes the update queue starts, as its child, a small Celery
worker that consumes only that queue (`-Q summarizer.maintenance`, a threads pool of
MAINTENANCE_CONCURRENCY), so however many update tasks wait or run, a free slot is always there for
periodic work and it runs on schedule.

The child is supervised like the worker's own beat (`workers.beat_supervisor.BeatSupervisor`): started
from a thread that lives as long as the worker, restarted with backoff if it exits, stopped with the
worker, and bound to the worker's life (`workers.parent_death`: it learns the worker's pid from
MAINTENANCE_PARENT_ENV), so a SIGKILLed worker leaves no consumer behind.

The slot is on by default for `summarizer worker` and `celery -A workers.app worker` alike;
`--no-maintenance-slot` turns it off (for a fleet that runs dedicated maintenance workers instead:
`celery -A workers.app worker -Q summarizer.maintenance`). A worker that does not consume the update
queue starts no slot: it is a maintenance consumer itself.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from typing import Any

import click
import structlog
from celery import Celery, bootsteps
from celery.signals import worker_init, worker_shutting_down

from summarizer.broker.celery_config import CELERY_APP, MAINTENANCE_QUEUE, QUEUE
from workers.beat_supervisor import BeatSupervisor
from workers.parent_death import bind_to_parent

log = structlog.get_logger("workers.maintenance")

OPTION = "--maintenance-slot/--no-maintenance-slot"
MAINTENANCE_PARENT_ENV = "SUMMARIZER_MAINTENANCE_PARENT_PID"
MAINTENANCE_CONCURRENCY = 2

_supervisors: list[BeatSupervisor] = []


def maintenance_command(loglevel: str, queue: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        CELERY_APP,
        "worker",
        "-Q",
        queue,
        "-P",
        "threads",
        "-c",
        str(MAINTENANCE_CONCURRENCY),
        "-n",
        f"maintenance-{os.getpid()}@%h",
        "-l",
        loglevel,
        "--without-mingle",
        "--without-gossip",
        "--no-maintenance-slot",
    ]


def _consumes(parent: Any, queue: str) -> bool:
    consume_from = getattr(parent.app.amqp.queues, "consume_from", None) or {}
    return queue in consume_from


class MaintenanceSlot(bootsteps.StartStopStep):
    """Worker bootstep: a worker of the update queue runs a maintenance-only consumer as its child."""

    label = "MaintenanceSlot"
    conditional = True

    def __init__(self, parent: Any, maintenance_slot: bool = True, **kwargs: Any) -> None:
        self.enabled = (
            bool(maintenance_slot)
            and MAINTENANCE_PARENT_ENV not in os.environ  # a maintenance child never starts another
            and _consumes(parent, QUEUE)
        )
        super().__init__(parent, **kwargs)

    def create(self, parent: Any) -> BeatSupervisor:  # type: ignore[override]  # celery-types says None
        level = parent.loglevel
        name = logging.getLevelName(level) if isinstance(level, int) else str(level or "INFO")
        supervisor = BeatSupervisor(
            maintenance_command(name, MAINTENANCE_QUEUE),
            lambda: True,
            name="maintenance",
            parent_env=MAINTENANCE_PARENT_ENV,
        )
        _supervisors.append(supervisor)
        return supervisor


def _on_shutting_down(**_: Any) -> None:
    for supervisor in _supervisors:
        supervisor.shutting_down()


def _on_worker_init(**_: Any) -> None:
    """A maintenance child ends when its worker does (SIGTERM: a warm shutdown of the child)."""
    parent = os.environ.get(MAINTENANCE_PARENT_ENV)
    if parent and parent.isdigit():
        bind_to_parent(int(parent), signum=signal.SIGTERM)


def install(app: Celery) -> None:
    """Add the `--maintenance-slot/--no-maintenance-slot` worker option and its bootstep to `app`."""
    app.user_options["worker"].add(
        click.Option(
            [OPTION, "maintenance_slot"],
            default=True,
            help="Run a child consumer of the maintenance queue so periodic work never waits behind updates.",
        )
    )
    app.steps["worker"].add(MaintenanceSlot)
    worker_shutting_down.connect(_on_shutting_down, weak=False)
    worker_init.connect(_on_worker_init, weak=False)
