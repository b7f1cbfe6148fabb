"""agents remember where they came from; agents page by last activity

`agents.source` names the front end that created an agent (watch | ingest | hook | api), and
`source_path` / `source_format` the log file it was first recorded from. Agents created before this
revision keep NULL (`summarizer agents` shows "unrecorded"). `ix_agents_activity` orders agents by their
last activity (the newest message's time, else the creation time) for `summarizer agents`, and
`ix_alerts_agent_id_resolved_at` finds one agent's open alerts without scanning the table.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("source", sa.String(20), nullable=True))
        batch.add_column(sa.Column("source_path", sa.String(1000), nullable=True))
        batch.add_column(sa.Column("source_format", sa.String(20), nullable=True))
    op.create_index(
        "ix_agents_activity",
        "agents",
        [sa.func.coalesce(sa.column("last_created_at"), sa.column("created_at")), "id"],
    )
    op.create_index("ix_alerts_agent_id_resolved_at", "alerts", ["agent_id", "resolved_at"])


def downgrade() -> None:
    op.drop_index("ix_alerts_agent_id_resolved_at", table_name="alerts")
    op.drop_index("ix_agents_activity", table_name="agents")
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("source_format")
        batch.drop_column("source_path")
        batch.drop_column("source")
