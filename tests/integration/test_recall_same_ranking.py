"""Recall ranks alike on SQLite and PostgreSQL: the same conversation recorded on both answers the same
questions with the same exchanges in the same order and the same scores (the engines only find the
matching messages; `domain/recall_rank.py` orders them), and a question that names a time gets that
time's exchanges first on both."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.domain.recall import RecallPage
from summarizer.service.recall import Recall
from summarizer.storage.backends import connect_database
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig
from tests.support.services import copy_sqlite_template

AGENT = "planner"
START = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)
TOPICS = ["cache", "deploy", "rollback", "database", "budget", "timeout", "garden", "concert", "camping"]
DETAILS = ["window", "region", "owner", "limit", "schedule", "ticket", "lake", "guitar", "invoice", "replica"]
QUESTIONS = [
    "which cache window did we settle on?",
    "who owns the rollback schedule?",
    "what limit did we put on the database replica?",
    "the camping trip by the lake",
    "did the concert ticket arrive?",
    "budget invoice owner",
    "what timeout did we pick in March 2023?",
    "what timeout did we pick?",
    "the garden schedule last month",
]


def _conversation() -> list[NewMessage]:
    rng = random.Random(30)
    messages: list[NewMessage] = []
    for n in range(120):
        at = START + timedelta(days=2 * n, minutes=rng.randrange(600))
        topic, detail, other = rng.choice(TOPICS), rng.choice(DETAILS), rng.choice(DETAILS)
        asked = f"What about the {topic} {detail}?" if n % 3 else f"Any news on the {detail}?"
        said = f"We set the {topic} {other} after talking it over." if n % 4 else "Sounds good to me."
        messages.append(NewMessage(Kind.USER, asked, created_at=at))
        messages.append(NewMessage(Kind.ASSISTANT, said, created_at=at + timedelta(seconds=30)))
    return messages


def _ask(db: Database) -> dict[str, RecallPage]:
    store = ConversationStore(db, StoreConfig(window_tokens=0, batch_size=20))
    store.record_many([(AGENT, m) for m in _conversation()])
    recall = Recall(SqlRecallStore(db))
    return {q: recall.search(AGENT, q, limit=10) for q in QUESTIONS}


def test_both_databases_return_the_same_top_results(
    pg: Database, tmp_path: Path, sqlite_template: Path
) -> None:
    sqlite = connect_database(copy_sqlite_template(sqlite_template, tmp_path / "same.db"))
    try:
        on_sqlite = _ask(sqlite)
    finally:
        sqlite.dispose()
    on_postgres = _ask(pg)
    for question in QUESTIONS:
        lite, post = on_sqlite[question], on_postgres[question]
        assert len(lite.hits) == 10, question
        assert [(h.exchange_id, h.score) for h in lite.hits] == [
            (h.exchange_id, h.score) for h in post.hits
        ], question
        assert lite.total == post.total, question


def test_a_question_naming_a_month_gets_that_month_first(db: Database) -> None:
    pages = _ask(db)
    dated = pages["what timeout did we pick in March 2023?"]
    undated = pages["what timeout did we pick?"]
    assert dated.hits[0].started_at.month == 3, "the time the question names comes first"
    assert "timeout" in dated.hits[0].matched
    assert undated.hits[0].started_at.month != 3, "without the time, the newest timeout comes first"
