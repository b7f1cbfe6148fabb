"""a message without a tool input holds SQL NULL, not the JSON text `null`, and is not found by "null"

Messages recorded by single-row inserts stored a missing tool input as the JSON value `null` (bulk COPY
stored SQL NULL), and the search document appends the input's text: every such message was found by the
word "null". New rows store SQL NULL whichever way they are written (`messages.input` is
`OptionalJson`); this migration turns the stored JSON nulls into SQL NULL. On PostgreSQL that rewrites
those rows and their generated `tsvector` (like migration 0009, a pass over the table); on SQLite the
FTS5 rows are rebuilt from the messages with the document expression of migration 0009.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25 21:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_DOCUMENT = "substr(content || ' ' || coalesce(name, '') || ' ' || coalesce(input, ''), 1, 200000)"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE messages SET input = NULL WHERE input = 'null'::jsonb")
        return
    op.execute("UPDATE messages SET input = NULL WHERE input = 'null'")
    # Dropped and made again (as migration 0009 made it) rather than emptied row by row.
    op.execute("DROP TABLE message_search")
    op.execute(
        "CREATE VIRTUAL TABLE message_search USING fts5("
        "document, agent_id UNINDEXED, seq UNINDEXED, tokenize = 'porter unicode61')"
    )
    op.execute(
        f"INSERT INTO message_search (document, agent_id, seq) SELECT {_SQLITE_DOCUMENT}, agent_id, seq "
        "FROM messages ORDER BY agent_id, seq"
    )


def downgrade() -> None:
    """Nothing to undo: SQL NULL is what the older code reads as "no input" too."""
