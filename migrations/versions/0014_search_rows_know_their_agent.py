"""SQLite: the search index holds each message's agent as a word, so a query never walks other agents'

`message_search.agent_id` was an UNINDEXED column: FTS5 cannot filter on it, so a query for a word read
that word's matches of every agent and kept the asking agent's. A common word cost 230-300 ms on a
database of 200 agents' 400,000 messages, whatever the asking agent's own size. The table is made again
with an indexed `agent` column holding one word per agent (the hex of its id, ending in a digit so the
Porter stemmer leaves it whole), and a query matches `agent : <word> AND document : <term>`: FTS5 walks
the shorter of the two lists and seeks in the other. Rowids stay in recording order (cheap to append).
PostgreSQL (whose GIN index holds the agent id) is untouched.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25 22:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DOCUMENT = "substr(content || ' ' || coalesce(name, '') || ' ' || coalesce(input, ''), 1, 200000)"


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS agents_search_delete")
    op.execute("DROP TABLE message_search")
    op.execute(
        "CREATE VIRTUAL TABLE message_search USING fts5("
        "document, agent, seq UNINDEXED, tokenize = 'porter unicode61')"
    )
    op.execute(
        f"INSERT INTO message_search (document, agent, seq) SELECT {_DOCUMENT}, hex(agent_id) || '0', seq "
        "FROM messages ORDER BY agent_id, seq"
    )
    op.execute(
        "CREATE TRIGGER agents_search_delete AFTER DELETE ON agents BEGIN "
        "DELETE FROM message_search WHERE message_search MATCH 'agent : \"' || hex(OLD.id) || '0\"'; END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS agents_search_delete")
    op.execute("DROP TABLE message_search")
    op.execute(
        "CREATE VIRTUAL TABLE message_search USING fts5("
        "document, agent_id UNINDEXED, seq UNINDEXED, tokenize = 'porter unicode61')"
    )
    op.execute(
        f"INSERT INTO message_search (document, agent_id, seq) SELECT {_DOCUMENT}, agent_id, seq "
        "FROM messages ORDER BY agent_id, seq"
    )
    op.execute(
        "CREATE TRIGGER agents_search_delete AFTER DELETE ON agents BEGIN "
        "DELETE FROM message_search WHERE agent_id = OLD.id; END"
    )
