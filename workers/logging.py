"""Structured logs for worker and beat processes.

Celery's own logging set-up is replaced by the project's (JSON off a terminal, secrets masked, Celery's
records through the same pipeline), and every line a task logs carries its task id and name (the service
adds the agent id), with nothing leaking into the next task run by the same thread."""

from __future__ import annotations

from typing import Any

import structlog
from celery.signals import setup_logging, task_postrun, task_prerun

from summarizer.logs import configure_logging
from workers import process_settings


@setup_logging.connect
def _configure(loglevel: str | int | None = None, **_: Any) -> None:
    """Connected, this signal also tells Celery not to install its own handlers."""
    level = loglevel if isinstance(loglevel, str) and loglevel else process_settings.settings().log_level
    configure_logging(level=level)


@task_prerun.connect
def _bind(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(task_id=task_id, task=getattr(task, "name", None))


@task_postrun.connect
def _unbind(**_: Any) -> None:
    structlog.contextvars.clear_contextvars()
