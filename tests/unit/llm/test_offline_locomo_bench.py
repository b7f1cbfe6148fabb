"""The LoCoMo retention benchmark's replay and check, on a small conversation written here in LoCoMo's
JSON layout (the real data set is not bundled): the real host API, window, queue, update service and
engine on embedded SQLite, with the offline summarizer."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from benchmarks import locomo, locomo_retention_bench, longmemeval
from benchmarks.locomo_retention_bench import Totals, content_words, gold_turns, holds, replay

FACTS = [
    "My cousin Tomas opened a bakery on Elm Street in Portland last Tuesday.",
    "I signed up for the Boston marathon in April and I train 40 miles a week.",
    "We adopted a beagle called Biscuit from the Riverside shelter on Saturday.",
    "I start the new job at Northwind Labs on 3 June as a data engineer.",
]
REPLIES = [
    "That is lovely news about the bakery, I will visit it with Priya next month.",
    "Forty miles is a lot, my knee surgery in March means I only swim now.",
    "Biscuit is a great name, our cat Miso would hate a dog though.",
    "Northwind Labs sounds exciting, I finished my pottery course at Clayworks yesterday.",
]


def when(at: datetime) -> str:
    hour = at.hour % 12 or 12
    return f"{hour}:{at.minute:02d} {'pm' if at.hour >= 12 else 'am'} on {at.day} {at:%B}, {at.year}"


def conversation_file(tmp_path: Path) -> Path:
    start = datetime(2023, 5, 1, 14, 0, tzinfo=UTC)
    conv: dict[str, object] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    qa = []
    for n in range(1, 5):
        turns = []
        for k in range(6):
            speaker, text = ("Ana", FACTS[n - 1]) if k % 2 == 0 else ("Ben", REPLIES[n - 1])
            if k >= 2:
                text = f"{text} Also, session {n} turn {k} repeats it to fill the window."
            turns.append({"speaker": speaker, "dia_id": f"D{n}:{k + 1}", "text": text})
        conv[f"session_{n}"] = turns
        conv[f"session_{n}_date_time"] = when(start + timedelta(days=2 * n))
        qa.append(
            {
                "question": f"What happened in session {n}?",
                "answer": "x",
                "evidence": [f"D{n}:1", f"D{n}:2"],
                "category": 4,
            }
        )
    path = tmp_path / "locomo10.json"
    path.write_text(
        json.dumps([{"sample_id": "conv-test", "conversation": conv, "qa": qa}]), encoding="utf-8"
    )
    return path


def test_an_item_holds_a_turn_when_it_has_half_of_its_content_words() -> None:
    turn = "We adopted a beagle called Biscuit from the Riverside shelter."
    assert content_words(turn) == {"adopted", "beagle", "called", "biscuit", "riverside", "shelter"}
    assert holds("[offline] Asked: adopted Biscuit, a beagle, at Riverside.", turn)
    assert not holds("[offline] Asked: we got a dog.", turn)


def test_the_replay_counts_folded_facts_by_tier_and_the_summary_holds_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locomo_retention_bench, "WINDOW_TOKENS", 120)
    (conv,) = locomo.load(str(conversation_file(tmp_path)))
    assert gold_turns(conv) == [f"D{n}:{k}" for n in range(1, 5) for k in (1, 2)]
    totals = Totals()
    replay(conv, datetime.now(UTC), totals, 10_000)
    assert len(totals.facts) + totals.in_window == 8, "every gold turn is younger than 14 days"
    assert len(totals.facts) >= 6, "the turns of all but the last session left the window and were folded"
    assert {f.tier for f in totals.facts} <= {"session", "yesterday", "week"}
    assert all(f.held for f in totals.facts), [(f.dia_id, f.item_text) for f in totals.facts if not f.held]
    assert 0 < max(totals.tokens) <= 10_000


def test_on_longmemeval_a_fact_is_held_when_its_item_holds_the_stated_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question record in LongMemEval's layout (written here): the evidence turn states the answer word
    for word, among long framing, and the replay checks the folded item for that answer."""
    monkeypatch.setattr(locomo_retention_bench, "WINDOW_TOKENS", 120)
    start = datetime.now(UTC) - timedelta(days=6)
    filler = "Here's how I'd think about it. " + "There are many ways to plan a garden. " * 8
    later: list[list[dict[str, object]]] = [
        [
            {"role": "user", "content": f"Session {n}: what should I read next? {filler}"},
            {"role": "assistant", "content": f"Session {n}: try a book on soil. {filler}"},
        ]
        for n in range(2, 6)
    ]
    sessions: list[list[dict[str, object]]] = [
        [
            {
                "role": "user",
                "content": f"{filler}I planted 14 tomato seedlings along the south fence.",
                "has_answer": True,
            },
            {"role": "assistant", "content": "Fourteen is a good number for that fence. Water them at dawn."},
        ],
        *later,
    ]
    record = {
        "question_id": "g1",
        "question_type": "single-session-user",
        "question": "How many tomato seedlings did I plant?",
        "answer": "14 tomato seedlings",
        "haystack_dates": [f"{start + timedelta(days=n):%Y/%m/%d (%a) %H:%M}" for n in range(5)],
        "haystack_sessions": sessions,
    }
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (conv,) = longmemeval.read_longmemeval(path)
    assert locomo_retention_bench.stated_answers(conv) == {"S1:1": "14 tomato seedlings"}
    totals = Totals()
    replay(conv, datetime.now(UTC), totals, 10_000, by_answer=True)
    [fact] = totals.facts
    assert fact.held, fact.item_text
    assert not holds("[offline] Asked: planted seedlings.", fact.text, "14 tomato seedlings")
