"""The per-process update service, built on first use (after a prefork pool forks, never at import)."""

from __future__ import annotations

import threading

from summarizer.alerting.service import AlertService
from summarizer.composition import build_alert_service, build_database, build_update_service
from summarizer.service.updating import UpdateService
from summarizer.settings import load_settings
from summarizer.storage.migrations import ensure_schema

_lock = threading.Lock()
_service: UpdateService | None = None
_alert_service: AlertService | None = None


def service() -> UpdateService:
    global _service
    with _lock:
        if _service is None:
            settings = load_settings()
            db = build_database(settings)
            ensure_schema(db, auto_upgrade=settings.embedded_database)
            _service = build_update_service(settings, db)
        return _service


def alert_service() -> AlertService:
    """The per-process alert service, sharing the update service's database (built on first use)."""
    global _alert_service
    db = service().db  # takes the lock itself: call it before taking the lock here
    with _lock:
        if _alert_service is None:
            _alert_service = build_alert_service(load_settings(), db)
        return _alert_service
