"""provider_breakers: the fleet-wide circuit breaker of each LLM provider

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "provider_breakers",
        sa.Column("provider", sa.String(length=50), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("fault", sa.String(length=20), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("probe_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("probe_until", sa.DateTime(timezone=True), nullable=True, comment="a half-open probe's lease"),
        sa.Column("backoff_seconds", sa.Float(), nullable=False),
        sa.Column("probes", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("provider", name=op.f("pk_provider_breakers")),
    )


def downgrade() -> None:
    op.drop_table("provider_breakers")
