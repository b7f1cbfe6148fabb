"""Sending wake-ups to the workers right after an eviction commits.

A wake-up is a hint: losing one only delays the update until the dispatcher's next run, and a duplicate is
a claim that finds nothing. So sending is fire-and-forget, and a failure is logged, never raised.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import structlog

from summarizer.broker.celery_config import QUEUE, TASK_UPDATE, celery_config
from summarizer.settings import Settings

log = structlog.get_logger("summarizer.wakeup")


class CeleryWakeup:
    """Callable for `Summarizer(on_queued=...)`; builds its producer on first use, not at construction."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._app: Any = None
        self._lock = threading.Lock()

    def _producer(self) -> Any:
        with self._lock:
            if self._app is None:
                from celery import Celery

                app = Celery("summarizer-wakeup", set_as_current=False)
                app.config_from_object(celery_config(self._settings))
                self._app = app
            return self._app

    def __call__(self, agent_ids: Sequence[str]) -> None:
        app = self._producer()
        for agent_id in agent_ids:
            app.send_task(TASK_UPDATE, args=[agent_id], queue=QUEUE)

    def close(self) -> None:
        with self._lock:
            if self._app is not None:
                self._app.close()
                self._app = None
