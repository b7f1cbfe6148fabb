"""Structured log context per task: every line a task logs carries its task id and name (the service
adds the agent id), and nothing leaks into the next task run by the same thread."""

from __future__ import annotations

from typing import Any

import structlog
from celery.signals import task_postrun, task_prerun


@task_prerun.connect
def _bind(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(task_id=task_id, task=getattr(task, "name", None))


@task_postrun.connect
def _unbind(**_: Any) -> None:
    structlog.contextvars.clear_contextvars()
