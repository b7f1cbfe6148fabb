"""the agent log files `summarizer watch` follows, and how far each is recorded

One row per followed file: its format, its identity when last read (device and inode, a hash of its first
bytes), the byte offset up to which its lines are recorded and the reader's state there (the ids and
times that continue the file's derived message ids, a Codex session). The watcher moves the offset in the
transaction that records the lines before it.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "followed_files",
        sa.Column("path", sa.String(1000), nullable=False),
        sa.Column("format", sa.String(20), nullable=False),
        sa.Column("file_id", sa.String(100), nullable=False, comment="device:inode when the offset was taken"),
        sa.Column(
            "head", sa.String(64), nullable=False, comment="sha256 of the file's first bytes (a rewrite changes it)"
        ),
        sa.Column("offset", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False, comment="bytes recorded: the next read starts here"),
        sa.Column("state", _JSON, nullable=False, comment="the reader's state at the offset (ids, times, session)"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("path", name=op.f("pk_followed_files")),
    )


def downgrade() -> None:
    op.drop_table("followed_files")
