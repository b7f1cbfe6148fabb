"""runs name their model; agents may carry a daily cost budget

`summary_runs.model` names the model that answered an update (the offline summarizer's name when it
folded), so the recorded tokens can be priced per model (`summarizer cost`). Runs recorded before this
revision keep NULL and are reported as unpriced. `agents.cost_budget_micros` is an agent's own daily
budget in micro-dollars (`summarizer agent budget-cost`); NULL follows SUMMARIZER_COST_BUDGET_AGENT_USD.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("summary_runs") as batch:
        batch.add_column(
            sa.Column(
                "model",
                sa.String(200),
                nullable=True,
                comment="the model that answered (NULL: before 0017)",
            )
        )
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("cost_budget_micros", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("cost_budget_micros")
    with op.batch_alter_table("summary_runs") as batch:
        batch.drop_column("model")
