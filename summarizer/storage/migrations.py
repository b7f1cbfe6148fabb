"""Running the Alembic migrations from code, and checking that a database is at the current schema."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from summarizer.domain.errors import SummarizerError
from summarizer.storage.database import Database

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def alembic_ini() -> Path:
    """alembic.ini, with the `migrations/` it names beside it.

    A built wheel carries both as package data (`summarizer/alembic.ini`, `summarizer/migrations/`); a
    source checkout keeps them at the top of the project, where the `alembic` command finds them too.
    """
    packaged = files("summarizer") / "alembic.ini"
    return Path(str(packaged)) if packaged.is_file() else PROJECT_ROOT / "alembic.ini"


class SchemaOutOfDate(SummarizerError):
    pass


def alembic_config(db: Database) -> Config:
    cfg = Config(str(alembic_ini()))
    cfg.set_main_option("sqlalchemy.url", db.url.render_as_string(hide_password=False).replace("%", "%%"))
    return cfg


def upgrade(db: Database, revision: str = "head") -> None:
    command.upgrade(alembic_config(db), revision)


def downgrade(db: Database, revision: str = "-1") -> None:
    command.downgrade(alembic_config(db), revision)


def head_revision(db: Database) -> str | None:
    return ScriptDirectory.from_config(alembic_config(db)).get_current_head()


def current_revision(db: Database) -> str | None:
    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def ensure_schema(db: Database, *, auto_upgrade: bool) -> None:
    """Upgrade an embedded database on first use; refuse to run on a shared one that is behind."""
    current, head = current_revision(db), head_revision(db)
    if current == head:
        return
    if auto_upgrade:
        upgrade(db)
        return
    raise SchemaOutOfDate(
        f"database schema is at {current or 'nothing'}, this version needs {head}: run `summarizer db upgrade`"
    )


class SchemaAdmin:
    """The `summarizer db` commands' view of one database's schema: where it is, move it up or down."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def current(self) -> str | None:
        """The applied revision; None for a database without the schema."""
        return current_revision(self._db)

    def upgrade(self, revision: str = "head") -> None:
        upgrade(self._db, revision)

    def downgrade(self, revision: str = "-1") -> None:
        downgrade(self._db, revision)
