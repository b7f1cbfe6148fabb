"""SQLite: the recording transaction indexes its messages with one statement per batch, not by a trigger

The trigger `messages_search_insert` (migration 0009) added each message to the FTS5 table as a nested
statement of its own, and FTS5 writes what it has gathered as a new index segment at each statement
boundary: a batch of 100 messages left 100 tiny segments for FTS5 to merge, doubling what indexing cost.
The recording transaction now adds a batch's messages with one INSERT ... SELECT per agent
(`summarizer/storage/sqlite/search_rows.py`), in the same transaction as before. PostgreSQL's generated
column is untouched.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 20:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS messages_search_insert")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN "
            "INSERT INTO message_search (document, agent_id, seq) VALUES (substr(NEW.content || ' ' || "
            "coalesce(NEW.name, '') || ' ' || coalesce(NEW.input, ''), 1, 200000), NEW.agent_id, NEW.seq); "
            "END"
        )
