"""A question in one irregular form of a word finds the turn that says it in another, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage
from summarizer.service.recall import Recall
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.recall import SqlRecallStore
from summarizer.storage.sql.stores.conversations import ConversationStore, StoreConfig

AGENT = "forms"
START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
TURNS = [
    (Kind.USER, "How was the road trip?"),
    (Kind.ASSISTANT, "Great, until my old car broke down on the way back."),
    (Kind.USER, "Did the kids enjoy the museum?"),
    (Kind.ASSISTANT, "The children loved it, we stayed all afternoon."),
    (Kind.USER, "Anything else new?"),
    (Kind.ASSISTANT, "I bought a bike for the summer."),
]


def test_other_forms_of_a_question_word_find_their_turns(db: Database) -> None:
    store = ConversationStore(db, StoreConfig(window_tokens=0, batch_size=10))
    store.record_many(
        [
            (AGENT, NewMessage(kind, text, created_at=START + timedelta(minutes=n)))
            for n, (kind, text) in enumerate(TURNS)
        ]
    )
    recall = Recall(SqlRecallStore(db))

    def first(question: str) -> str:
        page = recall.search(AGENT, question, limit=3)
        assert page.hits, question
        return page.hits[0].snippets[-1].text

    assert "broke down" in first("what has broken on the road?")
    assert "children" in first("what did the child say about the museum?")
    assert "bought" in first("what will they buy?")
    assert recall.search(AGENT, "what has broken?").hits[0].matched == ("broken",)
