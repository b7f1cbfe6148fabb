"""full-text search over every stored message (recall)

`summarizer recall` ranks an agent's exchanges by the words of a question. Each database indexes with its
own engine, kept in step by the database itself in the transaction that records the message:

- PostgreSQL: `messages.search_document`, a stored generated `tsvector` (English stemming) of the
  message's text, tool name and tool input, with a GIN index on (agent_id, search_document) so a query
  reads only the asking agent's postings (the `btree_gin` extension, shipped with PostgreSQL, lets the
  index hold the agent id). Adding the column computes it for every stored message: the backfill.
- SQLite: an FTS5 table `message_search` (Porter stemming) filled by a trigger on `messages`, and
  backfilled here from the stored messages.

Path separators, dots, colons and equals signs count as word breaks, so `src/auth/refresh.py` is found by
`refresh`. At most the first 200,000 characters of a message are indexed (PostgreSQL refuses a tsvector
over 1 MB). Neither object is part of the SQLAlchemy schema (`summarizer/storage/sql/statements/schema.py`): the
schema comparison skips them by name (`SEARCH_OBJECTS`).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 10:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PG_DOCUMENT = (
    "to_tsvector('english'::regconfig, left(regexp_replace("
    "content || ' ' || coalesce(name, '') || ' ' || coalesce(input::text, ''), "
    "'[/\\\\.:=]+', ' ', 'g'), 200000))"
)
_SQLITE_DOCUMENT = (
    "substr(NEW.content || ' ' || coalesce(NEW.name, '') || ' ' || coalesce(NEW.input, ''), 1, 200000)"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
        op.execute(
            f"ALTER TABLE messages ADD COLUMN search_document tsvector GENERATED ALWAYS AS ({_PG_DOCUMENT}) STORED"
        )
        op.execute("CREATE INDEX ix_messages_search ON messages USING gin (agent_id, search_document)")
        return
    op.execute(
        "CREATE VIRTUAL TABLE message_search USING fts5("
        "document, agent_id UNINDEXED, seq UNINDEXED, tokenize = 'porter unicode61')"
    )
    op.execute(
        "CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN "
        f"INSERT INTO message_search (document, agent_id, seq) VALUES ({_SQLITE_DOCUMENT}, NEW.agent_id, NEW.seq); "
        "END"
    )
    op.execute(
        "CREATE TRIGGER agents_search_delete AFTER DELETE ON agents BEGIN "
        "DELETE FROM message_search WHERE agent_id = OLD.id; END"
    )
    op.execute(
        "INSERT INTO message_search (document, agent_id, seq) SELECT "
        + _SQLITE_DOCUMENT.replace("NEW.", "")
        + ", agent_id, seq FROM messages ORDER BY agent_id, seq"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_messages_search")
        op.execute("ALTER TABLE messages DROP COLUMN IF EXISTS search_document")
        return
    op.execute("DROP TRIGGER IF EXISTS agents_search_delete")
    op.execute("DROP TRIGGER IF EXISTS messages_search_insert")
    op.execute("DROP TABLE IF EXISTS message_search")
