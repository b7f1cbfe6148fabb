"""agents carry summary instructions and their choice for the "Now" pin

Pins need no column: they are stored with the summary's items (entries with a `pin` key), so every kept
version, diff and rollback carries them as it carries the items. Two nullable columns on `agents`:
`summary_instructions` (the operator's words added to what the model is asked, at most 2,000 characters)
and `now_item` (true/false for this agent; NULL follows SUMMARIZER_NOW_ITEM). A partial index on the
todo-list tool calls lets each update find an agent's newest one in one probe, however long its log.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


_TODO_CALLS = "kind = 'tool_call' AND name IN ('TodoWrite', 'update_plan', 'write_todos')"


def upgrade() -> None:
    with op.batch_alter_table("agents") as batch:
        batch.add_column(sa.Column("summary_instructions", sa.Text(), nullable=True))
        batch.add_column(sa.Column("now_item", sa.Boolean(), nullable=True))
    op.create_index(
        "ix_messages_todo_calls",
        "messages",
        ["agent_id", "seq"],
        postgresql_where=sa.text(_TODO_CALLS),
        sqlite_where=sa.text(_TODO_CALLS),
    )


_PG_UNPIN = (
    "UPDATE {table} SET items = (SELECT coalesce(jsonb_agg(e ORDER BY n), '[]'::jsonb) "
    "FROM jsonb_array_elements(items) WITH ORDINALITY AS t(e, n) WHERE NOT e ? 'pin') "
    "WHERE jsonb_path_exists(items, '$[*].pin')"
)
_SQLITE_UNPIN = (
    "UPDATE {table} SET items = (SELECT json_group_array(json(value)) FROM "
    "(SELECT value FROM json_each({table}.items) WHERE json_extract(value, '$.pin') IS NULL ORDER BY key)) "
    "WHERE EXISTS (SELECT 1 FROM json_each({table}.items) WHERE json_extract(value, '$.pin') IS NOT NULL)"
)


def downgrade() -> None:
    """The pins leave the stored summaries and kept versions (the older code reads every entry as an
    item), then the two columns go."""
    unpin = _PG_UNPIN if op.get_bind().dialect.name == "postgresql" else _SQLITE_UNPIN
    for table in ("summaries", "summary_versions"):
        op.execute(unpin.format(table=table))
    op.drop_index("ix_messages_todo_calls", table_name="messages")
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("now_item")
        batch.drop_column("summary_instructions")
