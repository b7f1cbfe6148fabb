"""Pins ride through the engine untouched: folds, aging, the hard cap; the "Now" pin's text from a log."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from summarizer.domain.kinds import Kind
from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.cap import estimate_text
from summarizer.engine.engine import EngineConfig, SummaryEngine
from summarizer.engine.model import NOW_PIN, Pin, Summary
from summarizer.engine.now_item import now_text
from summarizer.engine.pins import NOW_CUT_NOTE, PinLimits, pins_tokens, with_now, with_pin, without_pin
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.engine.prompt import OPERATOR_LEAD
from summarizer.engine.render import PINS_HEADER, render_pins, render_summary
from summarizer.llm.fake import FakeLLM
from tests.unit.engine.helpers import NOW, exchange, message

RULES = Pin(
    "rules",
    "Never push to `main`.\n  Keep   the spacing; \u00e9t\u00e9 \u2014 and <exchange> tags — as given.\n",
    NOW - timedelta(days=1),
    "cli:ana",
)
PLAN = Pin("plan", "Ship v2 on Friday.", NOW - timedelta(hours=2), "mcp")


def pinned_block(summary: Summary) -> str:
    return render_pins(summary.pins)


def test_a_pin_renders_first_under_its_heading_word_for_word() -> None:
    summary = Summary("a", version=1, pins=(RULES, PLAN), updated_at=NOW)
    text = render_summary(summary, NOW)
    assert text.startswith(PINS_HEADER + "\n\n### rules\n" + RULES.text)
    assert f"### plan\n{PLAN.text}" in text
    assert text.endswith("_No summary yet: nothing has left the context window._")


def test_pins_survive_fifty_folds_fifteen_days_of_aging_and_a_cap_squeeze() -> None:
    engine = SummaryEngine(FakeLLM(), ByteEstimateCounter(), EngineConfig(max_tokens=3_000))
    summary: Summary | None = Summary("a", pins=(RULES, PLAN))
    block = pinned_block(Summary("a", pins=(RULES, PLAN)))
    now = NOW
    for n in range(1, 51):
        batch = [exchange(n, ended_ago=timedelta(minutes=1))]
        batch = [
            replace(batch[0], started_at=now - timedelta(minutes=2), ended_at=now - timedelta(minutes=1))
        ]
        summary = engine.update(summary, "a", batch, now).summary
        assert summary.pins == (RULES, PLAN)
        assert render_summary(summary, now).startswith(block)
        assert estimate_text(render_summary(summary, now)) <= 3_000
        now += timedelta(minutes=30)
    assert summary is not None
    assert len(summary.items) > 0
    for _day in range(15):
        now += timedelta(days=1)
        summary = engine.age(summary, now).summary
        assert summary.pins == (RULES, PLAN)
        assert render_summary(summary, now).startswith(block)
    assert summary.items == ()  # every item aged out; the pins did not


def _huge_answer(request: LLMRequest) -> LLMAnswer:
    """An answer of about 60k tokens: four 1,500-character items for each of 40 exchanges."""
    add = [
        {"exchange_ids": [x.id], "text": f"Exchange {x.id} part {k}: " + "detail " * 210, "importance": "low"}
        for x in request.context.batch
        for k in range(4)
    ]
    tool_input: dict[str, Any] = {"add": add, "drop": []}
    return LLMAnswer(tool_input=tool_input, input_tokens=1, output_tokens=60_000, model="fake-llm")


def test_the_hard_cap_squeezes_the_items_never_the_pins() -> None:
    config = EngineConfig(max_tokens=10_000, item_max_chars=1_600, max_items_per_exchange=4)
    engine = SummaryEngine(FakeLLM([_huge_answer]), ByteEstimateCounter(), config)
    batch = [exchange(n, ended_ago=timedelta(minutes=41 - n)) for n in range(1, 41)]
    base = Summary("a", pins=(RULES, PLAN))
    outcome = engine.update(base, "a", batch, NOW)
    assert outcome.tokens_before_cap > 55_000  # the answer really was ~60k tokens
    assert outcome.truncated
    text = render_summary(outcome.summary, NOW)
    assert text.startswith(pinned_block(base))
    assert outcome.summary.pins == (RULES, PLAN)
    assert estimate_text(text) <= 10_000


def test_the_model_never_sees_a_pin() -> None:
    llm = FakeLLM()
    engine = SummaryEngine(llm, ByteEstimateCounter(), EngineConfig(max_tokens=3_000))
    engine.update(Summary("a", pins=(RULES,)), "a", [exchange(1)], NOW)
    (request,) = llm.requests
    assert "Never push" not in request.system + request.user_text


def test_operator_instructions_reach_the_prompt_escaped() -> None:
    llm = FakeLLM()
    engine = SummaryEngine(llm, ByteEstimateCounter())
    words = "Keep decisions with their reasons, file paths, open questions. </instructions>"
    engine.update(None, "a", [exchange(1)], NOW, instructions=words)
    engine.update(None, "b", [exchange(1)], NOW)
    with_words, without = llm.requests
    assert OPERATOR_LEAD in with_words.user_text
    assert (
        "Keep decisions with their reasons, file paths, open questions. &lt;/instructions>"
        in with_words.user_text
    )
    assert OPERATOR_LEAD not in without.user_text


def test_adding_replacing_and_removing_pins_keeps_now_first() -> None:
    now_pin = Pin(NOW_PIN, "Latest request", NOW, "update")
    pins = with_pin((RULES,), PLAN)
    pins = with_pin(pins, now_pin)
    assert [p.name for p in pins] == [NOW_PIN, "rules", "plan"]
    changed = replace(RULES, text="Push to main only on Fridays.")
    assert [p.text for p in with_pin(pins, changed)][1] == changed.text
    assert [p.name for p in without_pin(pins, "rules")] == [NOW_PIN, "plan"]


def test_the_now_pin_is_cut_to_the_room_the_other_pins_leave() -> None:
    limits = PinLimits(max_tokens=1_000, share=0.25)
    long_request = "Please refactor the parser. " * 200
    pins = with_now((RULES,), long_request, NOW, estimate_text, limits)
    assert pins[0].name == NOW_PIN
    assert pins[0].text.endswith(NOW_CUT_NOTE)
    assert pins_tokens(pins, estimate_text) <= limits.pin_tokens
    assert pins[1] == RULES
    assert with_now(pins, None, NOW, estimate_text, limits) == (RULES,)
    same = with_now(pins, long_request, NOW + timedelta(hours=1), estimate_text, limits)
    assert same[0] is pins[0]  # unchanged text: the pin as it was


def test_now_text_copies_the_request_and_the_open_steps_of_each_todo_tool() -> None:
    request = message(5, Kind.USER, "Fix the flaky test in  tests/a.py\nthen release.", NOW, 3)
    claude = message(
        9,
        Kind.TOOL_CALL,
        "",
        NOW,
        3,
        name="TodoWrite",
        input={
            "todos": [
                {"content": "Find the race", "status": "completed", "activeForm": "Finding"},
                {"content": "Fix  it", "status": "in_progress", "activeForm": "Fixing"},
                {"content": "Release 1.2", "status": "pending", "activeForm": "Releasing"},
            ]
        },
    )
    text = now_text(request, claude)
    assert text is not None
    assert "Fix the flaky test in  tests/a.py\nthen release." in text
    assert "- [in_progress] Fix  it\n- [pending] Release 1.2" in text
    assert "Find the race" not in text
    codex = replace(claude, name="update_plan", input={"plan": [{"step": "Write docs", "status": "pending"}]})
    assert "- [pending] Write docs" in (now_text(None, codex) or "")
    gemini = replace(
        claude, name="write_todos", input={"todos": [{"description": "Ship", "status": "cancelled"}]}
    )
    assert "(none: every step is done)" in (now_text(None, gemini) or "")
    assert now_text(None, None) is None
