"""Running the Alembic migrations from code, and checking that a database is at the current schema.

Every command and worker checks the schema when it opens the database. That check is one SELECT of
`alembic_version` compared with `SCHEMA_HEAD`, so a process whose database is current never imports
Alembic (a third of a second of every CLI call's start); anything else goes to Alembic itself.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from summarizer.domain.errors import SummarizerError
from summarizer.storage.sql.database import Database

if TYPE_CHECKING:
    from alembic.config import Config

SCHEMA_HEAD = "0018"
"""The newest migration's revision (tests/integration/test_migrations.py checks it against migrations/)."""

PROJECT_ROOT = Path(__file__).resolve().parents[3]


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
    from alembic.config import Config

    cfg = Config(str(alembic_ini()))
    cfg.set_main_option("sqlalchemy.url", db.url.render_as_string(hide_password=False).replace("%", "%%"))
    return cfg


def upgrade(db: Database, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(db), revision)


def downgrade(db: Database, revision: str = "-1") -> None:
    from alembic import command

    command.downgrade(alembic_config(db), revision)


def head_revision(db: Database) -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(db)).get_current_head()


def current_revision(db: Database) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with db.engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _at_head(db: Database) -> bool:
    """Whether the database is at `SCHEMA_HEAD`, by one SELECT (False when it has no schema yet). A
    database that cannot be reached, or does not answer in time, raises: it is not asked twice."""
    with db.engine.connect() as conn:
        try:
            with conn.begin():
                versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        except DBAPIError as exc:  # no alembic_version table: a database without the schema
            if exc.connection_invalidated or getattr(exc.orig, "sqlstate", None) == "57014":
                raise
            return False
    return versions == [SCHEMA_HEAD]


def ensure_schema(db: Database, *, auto_upgrade: bool) -> None:
    """Upgrade an embedded database on first use; refuse to run on a shared one that is behind."""
    if _at_head(db):
        return
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
