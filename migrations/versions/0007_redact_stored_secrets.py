"""mask secrets already stored in error texts and alerts

Before 0007 a provider error that quoted the API key (a 401 "invalid x-api-key: ...", a 400 echoing a
header) was stored as it came: in `alerts` (message and details), `summary_update_queue.last_error`,
`summary_runs.error` and `provider_breakers.last_error`. This data migration masks, in those columns,
every known credential shape (provider keys such as `sk-...` and `gsk_...`, Bearer/Basic values,
`api_key=...` pairs, the password in a `user:password@` URL) and every secret value the upgrading
process is configured with (its API keys, tokens, passwords, whatever they look like). New writes are
masked by the column types themselves. Nothing in the schema changes; a masked text cannot be unmasked,
so downgrading changes nothing.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 01:00:00
"""

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from summarizer.domain import secrets

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHUNK = 1000
TEXT_COLUMNS = (
    ("summary_update_queue", "agent_id", "last_error"),
    ("summary_runs", "id", "error"),
    ("provider_breakers", "provider", "last_error"),
    ("alerts", "id", "message"),
)


def _register_configured_secrets() -> None:
    try:
        from summarizer.composition.environment import load

        load()  # registers the configured secret values
    except Exception:  # settings that do not load still leave the pattern net
        return


def _mask_text_column(conn: sa.Connection, table: str, key: str, column: str) -> None:
    t = sa.table(table, sa.column(key), sa.column(column, sa.Text))
    last: Any = None
    while True:
        stmt = sa.select(t.c[key], t.c[column]).where(t.c[column].is_not(None)).order_by(t.c[key]).limit(CHUNK)
        if last is not None:
            stmt = stmt.where(t.c[key] > last)
        rows = conn.execute(stmt).all()
        if not rows:
            return
        for row_key, text in rows:
            masked = secrets.redact(text)
            if masked != text:
                conn.execute(sa.update(t).where(t.c[key] == row_key).values({column: masked}))
        last = rows[-1][0]


def _mask_alert_details(conn: sa.Connection) -> None:
    details_type = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    t = sa.table("alerts", sa.column("id", sa.BigInteger), sa.column("details", details_type))
    last = 0
    while True:
        rows = conn.execute(
            sa.select(t.c.id, t.c.details).where(t.c.id > last).order_by(t.c.id).limit(CHUNK)
        ).all()
        if not rows:
            return
        for row_id, details in rows:
            value = json.loads(details) if isinstance(details, str) else details
            masked = secrets.redact_json(value)
            if masked != value:
                conn.execute(sa.update(t).where(t.c.id == row_id).values(details=masked))
        last = rows[-1][0]


def upgrade() -> None:
    _register_configured_secrets()
    conn = op.get_bind()
    for table, key, column in TEXT_COLUMNS:
        _mask_text_column(conn, table, key, column)
    _mask_alert_details(conn)


def downgrade() -> None:
    """Masked text cannot be restored: nothing to undo."""
