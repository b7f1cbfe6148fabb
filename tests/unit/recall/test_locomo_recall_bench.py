"""The LoCoMo recall benchmark's own parts: the plain BM25 baseline and what counts as a hit."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import locomo
from benchmarks.locomo_recall_bench import Asked, PlainBM25, all_at, any_at, ask_all, rates
from benchmarks.pg import scratch_database


def test_plain_bm25_puts_the_rare_word_and_the_short_document_first() -> None:
    bm25 = PlainBM25(
        [
            "we went to the lake and the lake was cold",
            "the weather was nice and the lake was calm " * 5,
            "my dog likes the park",
            "the park was busy",
        ]
    )
    assert bm25.top("where does the dog play?", 4) == [2]
    assert bm25.top("the lake", 2) == [0, 1]
    assert bm25.top("nothing matches", 3) == []


def test_any_and_all_count_evidence_among_the_first_k_results() -> None:
    results: list[set[str]] = [set(), {"D1:2"}, set(), {"D4:1"}]
    assert not any_at(results, 1)
    assert any_at(results, 2)
    assert not all_at(results, {"D1:2", "D4:1"}, 3)
    assert all_at(results, {"D1:2", "D4:1"}, 4)
    asked = [Asked("single-hop", results, [], {"D1:2", "D4:1"})]
    assert rates(asked, "recall") == {"any@1": 0.0, "any@5": 100.0, "any@10": 100.0, "all@5": 100.0}
    assert rates(asked, "bm25") == {"any@1": 0.0, "any@5": 0.0, "any@10": 0.0, "all@5": 0.0}


def test_a_recorded_conversation_is_asked_through_recall(tmp_path: Path) -> None:
    """A two-session conversation in the zip layout's shape, written here (not LoCoMo's text)."""
    raw = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:00 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ben", "dia_id": "D1:1", "text": "Hi Ana!"},
            {"speaker": "Ana", "dia_id": "D1:2", "text": "I adopted a grey kitten called Pixel."},
            {"speaker": "Ben", "dia_id": "D1:3", "text": "Lovely name for a cat."},
        ],
        "session_2_date_time": "9:30 am on 2 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "We hiked up the ridge trail on Sunday."},
            {"speaker": "Ben", "dia_id": "D2:2", "text": "Which ridge? The one past the quarry?"},
        ],
        "qa": [
            {
                "question": "What is the name of Ana's kitten?",
                "answer": "Pixel",
                "evidence": ["D1:2"],
                "category": 4,
            },
            {
                "question": "Where did Ana hike in June 2023?",
                "answer": "ridge",
                "evidence": ["D2:1"],
                "category": 2,
            },
            {"question": "Who greeted first?", "answer": "Ben", "evidence": ["D1:1"], "category": 4},
            {
                "question": "What did Ana never say?",
                "adversarial_answer": "x",
                "evidence": ["D1:2"],
                "category": 5,
            },
        ],
    }
    folder = tmp_path / "locomo"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps(raw), encoding="utf-8")
    conversations = locomo.read_locomo(folder)
    assert conversations[0].turns[0].at == datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    with scratch_database("sqlite") as db:
        asked, latencies, unaskable = ask_all(db, conversations)
    assert unaskable == 1  # "Who greeted first?": D1:1 is the preamble, in no exchange
    assert len(asked) == len(latencies) == 2  # the adversarial question is not asked
    assert all(any_at(a.recall, 1) for a in asked)
