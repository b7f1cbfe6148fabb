"""The second memory benchmark's reader: LongMemEval's question records become conversations the LoCoMo
benchmarks' code asks unchanged (a hand-written record in the release's layout, not the data set)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks import longmemeval
from benchmarks.locomo_recall_bench import ask_all, figures
from benchmarks.pg import scratch_database


def record(question_id: str = "q1") -> dict[str, object]:
    return {
        "question_id": question_id,
        "question_type": "single-session-user",
        "question": "What colour did I paint the spare bedroom?",
        "answer": "sage green",
        "question_date": "2023/06/02 (Fri) 10:00",
        "haystack_session_ids": ["a", "b"],
        "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/28 (Sun) 18:05"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "Can you suggest a weekend hike near Denver?"},
                {"role": "assistant", "content": "Try the Mount Falcon loop; it is about four miles."},
            ],
            [
                {
                    "role": "user",
                    "content": "I painted the spare bedroom sage green last week.",
                    "has_answer": True,
                },
                {"role": "assistant", "content": "Sage green suits a bedroom: calm and warm."},
                {"role": "user", "content": "Any tips for hanging shelves on drywall?"},
                {"role": "assistant", "content": "Use anchors rated for the load, or find a stud."},
            ],
        ],
        "answer_session_ids": ["b"],
    }


def test_a_record_becomes_one_conversation_with_its_evidence_turns(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s_cleaned.json"
    path.write_text(json.dumps([record(), record("q2_abs")]), encoding="utf-8")
    [conversation] = longmemeval.read_longmemeval(path)
    assert conversation.sample_id == "q1"
    assert [t.dia_id for t in conversation.turns] == ["S1:1", "S1:2", "S2:1", "S2:2", "S2:3", "S2:4"]
    assert conversation.turns[2].at == datetime(2023, 5, 28, 18, 5, tzinfo=UTC)
    [question] = conversation.questions
    assert question.evidence == ("S2:1",)
    assert question.category == "single-session-user"


def test_the_recall_benchmark_finds_the_evidence_and_reports_any_at_1(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps([record()]), encoding="utf-8")
    with scratch_database("sqlite", "summarizer_longmemeval") as db:
        asked, latencies, unaskable = ask_all(db, longmemeval.read_longmemeval(path))
    report = figures(asked, latencies, unaskable)
    assert report["questions"] == 1
    assert report["recall"] == {"any@1": 100.0, "any@5": 100.0, "any@10": 100.0, "all@5": 100.0}


def test_a_missing_data_set_says_where_it_was_looked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SUMMARIZER_LONGMEMEVAL", str(tmp_path / "absent.json"))
    with pytest.raises(longmemeval.LongMemEvalMissing, match=r"absent\.json: no such file"):
        longmemeval.locate()


def test_an_unreadable_date_is_named() -> None:
    with pytest.raises(ValueError, match="unreadable LongMemEval date 'May 20'"):
        longmemeval.parse_when("May 20")
