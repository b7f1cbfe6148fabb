"""kept summary versions and the ledger of dropped exchanges

Every committed summary version is kept in `summary_versions` (written in the same commit as the
`summaries` row), and every exchange a version forgot gets a row in `exchange_drops` with its reason.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "rebuild_requested_at",
                sa.DateTime(timezone=True),
                nullable=True,
                comment="set by `resummarize`: the next update rebuilds the summary from the stored history",
            )
        )
    json_type = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
    op.create_table(
        "summary_versions",
        sa.Column("agent_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("items", json_type, nullable=False),
        sa.Column("token_count", sa.Integer(), nullable=False),
        sa.Column("covered_through_exchange_id", sa.Integer(), nullable=True),
        sa.Column(
            "made_by", sa.String(length=20), nullable=False, comment="update | aging | rollback | resummarize"
        ),
        sa.Column(
            "run_path",
            sa.String(length=20),
            nullable=True,
            comment="the ladder rung of the update that made it",
        ),
        sa.Column("worker", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_summary_versions_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("agent_id", "version", name=op.f("pk_summary_versions")),
    )
    op.create_table(
        "exchange_drops",
        sa.Column("agent_id", sa.String(length=200), nullable=False),
        sa.Column("exchange_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column(
            "version", sa.Integer(), autoincrement=False, nullable=False, comment="the version that forgot it"
        ),
        sa.Column(
            "reason",
            sa.String(length=20),
            nullable=False,
            comment="model | cap | aging | unsummarizable | rollback",
        ),
        sa.Column("item_id", sa.String(length=100), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("dropped_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_exchange_drops_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("agent_id", "exchange_id", "version", name=op.f("pk_exchange_drops")),
    )


def downgrade() -> None:
    op.drop_table("exchange_drops")
    op.drop_table("summary_versions")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_column("rebuild_requested_at")
