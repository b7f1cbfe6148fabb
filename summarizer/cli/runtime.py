"""What every command needs: settings, a database at the right schema, the wired facade."""

from __future__ import annotations

from dataclasses import dataclass

from summarizer import composition
from summarizer.api import Summarizer
from summarizer.settings import Settings
from summarizer.storage.database import Database


@dataclass
class Runtime:
    settings: Settings
    db: Database
    summarizer: Summarizer


def open_runtime(*, migrate: bool | None = None) -> Runtime:
    """Settings, the database at the current schema, the facade. `migrate` (default: only for the embedded
    database) upgrades a schema that is behind instead of refusing to run."""
    settings = composition.load()
    db = composition.open_database(settings, migrate=migrate)
    return Runtime(settings, db, composition.build_summarizer(settings, db))
