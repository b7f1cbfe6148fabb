"""Migration 0015 masks the credentials earlier versions stored: message text and tool input across page
boundaries and agents, exchange titles, summaries and kept versions, and the search index follows."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import text

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.storage.sql import migrations
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

NOW = datetime(2026, 11, 1, tzinfo=UTC)
PASSWORD = "Wh1teRabbit42x"
KEY = "sk-ant-api03-Zq8vLr2NtY5wKd9sFb1XcHm4PjG7eA0uVo3iRy6TnQ-XYZW"
PLANTED_AT = {0, 1999, 2000, 2101}
"""Message positions that hold a credential: each side of the 2,000-row page boundary, and the last."""


def _conversation() -> list[NewMessage]:
    batch = []
    for i in range(2102):
        if i % 2 == 0:
            content = (
                f"question {i}: connect to postgresql://app:{PASSWORD}@db/main"
                if i in PLANTED_AT
                else f"question {i}"
            )
            batch.append(NewMessage(Kind.USER, content))
        else:
            leaked = {"env": {"ANTHROPIC_API_KEY": KEY}} if i in PLANTED_AT else None
            batch.append(NewMessage(Kind.ASSISTANT, f"answer {i}", input=leaked))
    return batch


def _json_text(value: object) -> str:
    """A JSON column's value as text (SQLite hands back the stored text, PostgreSQL the decoded value)."""
    return json.dumps(json.loads(value) if isinstance(value, str) else value, ensure_ascii=False)


def _count(db: Database, sql: str) -> int:
    with db.read() as conn:
        return int(conn.execute(text(sql)).scalar_one())


def _search_hits(db: Database, word: str) -> int:
    if db.url.get_backend_name() == "sqlite":
        return _count(db, f"SELECT count(*) FROM message_search WHERE message_search MATCH '\"{word}\"'")
    return _count(
        db, f"SELECT count(*) FROM messages WHERE search_document @@ plainto_tsquery('english', '{word}')"
    )


def test_stored_credentials_are_masked_and_unindexed_by_the_upgrade(db: Database) -> None:
    raw = ConversationStore(db, StoreConfig(window_tokens=100_000, batch_size=100, mask_credentials=False))
    raw.record("agent-a", _conversation())
    raw.record("agent-b", _conversation()[:4])
    summary_items = json.dumps([{"id": "i1", "text": f"Used the key {KEY} to call the API"}])
    with db.write() as conn:
        conn.execute(
            text(
                "INSERT INTO summaries (agent_id, version, items, token_count, covered_through_exchange_id,"
                " last_aged_on, updated_at) VALUES ('agent-a', 1, :items, 10, 1, NULL, :now)"
            ),
            {"items": summary_items, "now": NOW},
        )
        conn.execute(
            text(
                "INSERT INTO summary_versions (agent_id, version, items, token_count, covered_through_exchange_id,"
                " made_by, created_at) VALUES ('agent-a', 1, :items, 10, 1, 'update', :now)"
            ),
            {"items": summary_items, "now": NOW},
        )
    assert _search_hits(db, PASSWORD) == 3  # two in agent-a, one in agent-b

    migrations.downgrade(db, "0014")
    migrations.upgrade(db)

    with db.read() as conn:
        contents = [r[0] for r in conn.execute(text("SELECT content FROM messages ORDER BY agent_id, seq"))]
        inputs = [
            _json_text(r[0]) for r in conn.execute(text("SELECT input FROM messages WHERE input IS NOT NULL"))
        ]
        titles = [r[0] for r in conn.execute(text("SELECT title FROM exchanges"))]
        items = [
            _json_text(r[0])
            for r in conn.execute(
                text("SELECT items FROM summaries UNION ALL SELECT items FROM summary_versions")
            )
        ]
    everything = "\n".join([*contents, *inputs, *titles, *items])
    assert PASSWORD not in everything
    assert KEY not in everything
    masked_urls = [c for c in contents if "[secret:url-password …t42x]" in c]
    assert len(masked_urls) == 3
    assert sum("[secret:anthropic-key …XYZW]" in i for i in inputs) == 2
    assert sum("[secret:url-password" in t for t in titles) == 3
    assert len(items) == 2
    assert all("[secret:anthropic-key …XYZW]" in i for i in items)
    assert "question 998" in contents  # the rest untouched
    assert "answer 999" in contents
    assert _search_hits(db, PASSWORD) == 0
    assert _search_hits(db, "question") == 1051 + 2  # every message still indexed, once
