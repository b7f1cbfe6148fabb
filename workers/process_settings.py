"""The worker process's settings, read from the environment once (the Celery app, its logging, the beat
guard, the beat supervisor and the update service all take them from here)."""

from __future__ import annotations

import threading

from summarizer import composition
from summarizer.settings import Settings

_lock = threading.Lock()
_settings: list[Settings] = []


def settings() -> Settings:
    with _lock:
        if not _settings:
            _settings.append(composition.load())
        return _settings[0]
