"""summarizer_abort(): lets one statement abort itself (PostgreSQL only)

An update's commit on PostgreSQL is one statement of data-modifying CTEs, run outside an explicit
transaction. When a guard fails (the claim was taken over, the summary version moved, an exchange was
folded already) the statement calls this function, which raises, so the statement's implicit transaction
rolls back whole. SQLite runs the commit step by step in a transaction and needs nothing here.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 03:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE OR REPLACE FUNCTION summarizer_abort(reason text) RETURNS integer
        LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'summarizer guard: %', reason USING ERRCODE = 'P0001';
        END
        $$
        """
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP FUNCTION IF EXISTS summarizer_abort(text)")
