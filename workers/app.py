"""The Celery app: `celery -A workers.app worker|beat` and `summarizer worker|beat` run this same object.

Nothing is configured at import time: the configuration is built from Settings (the environment) the first
time Celery reads it, so importing this module is cheap and side-effect free.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from summarizer.broker.celery_config import celery_config
from workers import process_settings

app = Celery("summarizer", include=["workers.tasks"])


@app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    # Runs once, when Celery first needs its configuration; the dict is read right after this returns.
    sender.config_from_object(celery_config(process_settings.settings()))


import workers.beat  # noqa: E402  (registers the single-beat guard on the beat signals)
import workers.beat_supervisor  # noqa: E402
import workers.logging  # noqa: E402  (binds task id and name to the structured log context)
import workers.maintenance  # noqa: E402

workers.beat_supervisor.install(app)  # `worker --supervised-beat`: the worker's own beat as its child
workers.maintenance.install(app)  # every update worker runs a reserved maintenance consumer as its child
