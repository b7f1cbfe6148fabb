"""Worker and beat processes log through the project's pipeline: JSON lines, event names, secrets masked."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog
from celery.signals import setup_logging


def test_celery_setup_logging_signal_installs_json_redacted_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    import workers.logging  # noqa: F401  (connects the signal handlers)

    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    structlog.reset_defaults()
    try:
        setup_logging.send(sender=None, loglevel="INFO", logfile=None, format="", colorize=False)
        logging.getLogger("celery.worker.consumer").info("Connected to redis://:hunter2@broker:6379/0")
        structlog.get_logger("summarizer.worker").info("update.committed", agent_id="a1", task_id="t-1")
        first, second = (json.loads(line) for line in stream.getvalue().splitlines())
        assert "hunter2" not in first["event"]
        assert first["logger"] == "celery.worker.consumer"
        assert (second["event"], second["agent_id"], second["task_id"]) == ("update.committed", "a1", "t-1")
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers.clear()
