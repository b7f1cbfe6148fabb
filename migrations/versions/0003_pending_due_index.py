"""An index on the due order of pending queue rows, so a claim and a dispatcher run read a few index
entries instead of sorting every due row

A claim picks the most urgent due row (priority, then longest waiting). With only an index on
(state, available_at), PostgreSQL fetched every due row and sorted them for each claim: a claim cost grew
with the backlog, and draining a backlog of N rows cost N^2. This partial index holds only pending rows,
in claim order.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_summary_update_queue_pending_due"
PENDING = sa.text("state = 'pending'")


def upgrade() -> None:
    op.create_index(
        NAME,
        "summary_update_queue",
        ["priority", "available_at", "agent_id"],
        postgresql_where=PENDING,
        sqlite_where=PENDING,
    )


def downgrade() -> None:
    op.drop_index(NAME, table_name="summary_update_queue")
