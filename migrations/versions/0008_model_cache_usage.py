"""record prompt-cache reads and writes with every run

An update's model call may read part of its prompt from the provider's prompt cache (billed at a tenth of
the input price on Anthropic) or write it there (billed at 1.25 times). `summary_runs` gains the two token
counts next to `llm_input_tokens` (which stays the uncached input), so `stats` and the metrics can show
what the cache saved. Existing runs read 0 for both.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = ("llm_cache_read_tokens", "llm_cache_write_tokens")


def upgrade() -> None:
    with op.batch_alter_table("summary_runs") as batch:
        for name in _COLUMNS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("summary_runs") as batch:
        for name in _COLUMNS:
            batch.drop_column(name)
