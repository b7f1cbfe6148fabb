"""What every command needs: settings, a database at the right schema, the wired facade."""

from __future__ import annotations

from dataclasses import dataclass

from summarizer.api import Summarizer
from summarizer.composition import build_database, build_summarizer
from summarizer.settings import Settings, load_settings
from summarizer.storage.database import Database
from summarizer.storage.migrations import ensure_schema


@dataclass
class Runtime:
    settings: Settings
    db: Database
    summarizer: Summarizer


def open_runtime(*, migrate: bool | None = None) -> Runtime:
    """Settings, the database at the current schema, the facade. `migrate` (default: only for the embedded
    database) upgrades a schema that is behind instead of refusing to run."""
    settings = load_settings()
    db = build_database(settings)
    ensure_schema(db, auto_upgrade=settings.embedded_database if migrate is None else migrate)
    return Runtime(settings, db, build_summarizer(settings, db))
