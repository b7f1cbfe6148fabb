"""whether a message is in the window follows from its exchange: eviction no longer rewrites message rows

`messages.in_window` and `messages.evicted_at` repeated what the agent row and the exchange row already
say: a message is in the window when it has no exchange (the preamble) or its exchange is at or after
`agents.window_start`, and it left the window when its exchange did (`exchanges.evicted_at`). Keeping the
copies meant rewriting every message of every evicted exchange: on PostgreSQL a second heap tuple and a
second entry in every index of `messages` (the search index's words included, since an indexed column
changed), which cost a quarter of the recording throughput of a long conversation. The columns and their
index go; the downgrade restores both from the exchanges.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 19:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEX = "ix_messages_agent_id_in_window_seq"


def upgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {_INDEX}")
    op.execute("ALTER TABLE messages DROP COLUMN in_window")
    op.execute("ALTER TABLE messages DROP COLUMN evicted_at")


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    stamp = "TIMESTAMP WITH TIME ZONE" if postgres else "DATETIME"
    op.execute("ALTER TABLE messages ADD COLUMN in_window BOOLEAN NOT NULL DEFAULT true")
    op.execute(f"ALTER TABLE messages ADD COLUMN evicted_at {stamp}")
    if postgres:
        op.execute(
            "UPDATE messages AS m SET in_window = false, evicted_at = e.evicted_at FROM exchanges AS e "
            "WHERE e.agent_id = m.agent_id AND e.id = m.exchange_id AND e.evicted_at IS NOT NULL"
        )
        op.execute("ALTER TABLE messages ALTER COLUMN in_window DROP DEFAULT")
    else:
        op.execute(
            "UPDATE messages SET in_window = 0, evicted_at = (SELECT e.evicted_at FROM exchanges AS e "
            "WHERE e.agent_id = messages.agent_id AND e.id = messages.exchange_id) "
            "WHERE EXISTS (SELECT 1 FROM exchanges AS e WHERE e.agent_id = messages.agent_id "
            "AND e.id = messages.exchange_id AND e.evicted_at IS NOT NULL)"
        )
    op.execute(f"CREATE INDEX {_INDEX} ON messages (agent_id, in_window, seq)")
