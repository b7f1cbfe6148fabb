"""The per-process update service, built on first use (after a prefork pool forks, never at import)."""

from __future__ import annotations

import threading

from summarizer import composition
from summarizer.alerting.service import AlertService
from summarizer.service.update import UpdateService
from summarizer.settings import Settings
from summarizer.storage.sql.database import Database
from workers import process_settings

_lock = threading.Lock()
_built: tuple[Settings, Database, UpdateService] | None = None
_alert_service: AlertService | None = None


def _build() -> tuple[Settings, Database, UpdateService]:
    global _built
    with _lock:
        if _built is None:
            settings = process_settings.settings()
            db = composition.open_database(settings)
            _built = (settings, db, composition.build_update_service(settings, db))
        return _built


def service() -> UpdateService:
    return _build()[2]


def alert_service() -> AlertService:
    """The per-process alert service, sharing the update service's database (built on first use)."""
    global _alert_service
    settings, db, _ = _build()  # takes the lock itself: call it before taking the lock here
    with _lock:
        if _alert_service is None:
            _alert_service = composition.build_alert_service(settings, db)
        return _alert_service
