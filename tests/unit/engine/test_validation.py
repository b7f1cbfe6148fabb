from __future__ import annotations

from typing import Any

import pytest

from summarizer.domain.tokens import ByteEstimateCounter
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.operations import Operations, operations_schema, parse_operations
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.engine.validation import GateContext, text_problem, validate_answer
from tests.unit.engine.helpers import NOW, add_op, exchange, item

SHOWN = {
    i.id: i for i in (item((1,), text="Implemented JWT auth with RS256 signing."), item((2,)), item((3,)))
}
CTX = GateContext(batch_exchange_ids=[10, 11], visible_items=SHOWN, max_item_chars=200)


def rejected(raw: Any, ctx: GateContext = CTX) -> str:
    with pytest.raises(AnswerRejected) as info:
        validate_answer(raw, ctx)
    return info.value.reason


def test_valid_answer_passes_with_every_operation() -> None:
    ops = validate_answer(
        {
            "add": [add_op([10]), add_op([11], importance="low")],
            "merge": [{"item_ids": ["x2", "x3"], "text": "Fixed bugs.", "importance": "medium"}],
            "shorten": [{"item_id": "x1", "text": "JWT auth."}],
        },
        CTX,
    )
    assert [a.exchange_ids for a in ops.add] == [(10,), (11,)]
    assert ops.merge[0].item_ids == ("x2", "x3")


def test_gate_rejects_uncovered_exchange() -> None:
    assert "11" in rejected({"add": [add_op([10])]})


def test_explicit_drop_counts_as_covered() -> None:
    ops = validate_answer(
        {"add": [add_op([10])], "drop": [{"exchange_ids": [11], "reason": "small talk"}]}, CTX
    )
    assert ops.drop[0].exchange_ids == (11,)


def test_gate_rejects_unknown_exchange_id() -> None:
    assert "unknown exchange ids [12]" in rejected({"add": [add_op([10, 11, 12])]})


def test_gate_rejects_unknown_item_id() -> None:
    raw = {"add": [add_op([10, 11])], "shorten": [{"item_id": "x99", "text": "x"}]}
    assert "unknown item id 'x99'" in rejected(raw)


def test_gate_rejects_item_used_twice() -> None:
    raw = {
        "add": [add_op([10, 11])],
        "merge": [{"item_ids": ["x1", "x2"], "text": "Merged.", "importance": "high"}],
        "drop": [{"item_ids": ["x1"], "reason": "old"}],
    }
    assert "already used" in rejected(raw)


def test_gate_rejects_exchange_both_added_and_dropped() -> None:
    raw = {"add": [add_op([10, 11])], "drop": [{"exchange_ids": [11], "reason": "noise"}]}
    assert "both added and dropped" in rejected(raw)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_gate_rejects_empty_text(text: str) -> None:
    assert "empty text" in rejected({"add": [add_op([10, 11], text=text)]})


def test_gate_rejects_too_long_text() -> None:
    assert "over the limit of 200" in rejected({"add": [add_op([10, 11], text="a" * 201)]})


def test_gate_rejects_shorten_that_lengthens() -> None:
    raw = {"add": [add_op([10, 11])], "shorten": [{"item_id": "x2", "text": "Much longer text than before."}]}
    assert "longer" in rejected(raw)


@pytest.mark.parametrize(
    "text",
    [
        "I can't help with that request.",
        "I cannot summarize this conversation.",
        "I\u2019m unable to do that.",
        "Sorry, I won't do this.",
        "I'm sorry, but that is not possible.",
        "As an AI language model, I have no opinion.",
        "Here is the summary, though as an AI I cannot verify it.",
        "Error: upstream request failed",
        "Traceback (most recent call last): File x",
        "The user asked, and I cannot help with that part.",
    ],
)
def test_gate_rejects_refusal_and_error_text(text: str) -> None:
    reason = rejected({"add": [add_op([10, 11], text=text)]})
    assert "instead of a summary" in reason


@pytest.mark.parametrize(
    "text",
    [
        "Fixed error: handling of empty tokens in the parser.",
        "User reported the build cannot start; traced it to a missing env var.",
        "Debugged why the client can't connect; the proxy dropped TLS.",
        "Added an Error type for the sorry state of the old API.",
    ],
)
def test_ordinary_summaries_mentioning_errors_pass(text: str) -> None:
    assert text_problem(text, 200) is None


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (None, "no operations"),
        ([], "expected an object"),
        ({"add": "everything"}, "expected an array"),
        ({"add": [{"exchange_ids": [10], "text": "x"}]}, "missing importance"),
        ({"add": [{"exchange_ids": ["10"], "text": "x", "importance": "low"}]}, "expected an integer"),
        ({"add": [add_op([True])]}, "expected an integer"),
        ({"add": [add_op([])]}, "at least one exchange"),
        ({"add": [add_op([10, 11], importance="critical")]}, "expected one of"),
        ({"add": [add_op([10, 11])], "notes": "hi"}, "unknown field notes"),
        (
            {"add": [add_op([10, 11])], "merge": [{"item_ids": ["x1"], "text": "x", "importance": "low"}]},
            "two",
        ),
        ({"add": [add_op([10, 11])], "drop": [{"reason": "nothing"}]}, "names no item"),
        ({"add": [add_op([10]), {**add_op([11]), "tier": "week"}]}, "unknown field tier"),
    ],
)
def test_gate_rejects_schema_violations(raw: Any, fragment: str) -> None:
    assert fragment in rejected(raw)


def test_operations_round_trip_through_tool_input() -> None:
    raw = {
        "add": [add_op([10])],
        "merge": [{"item_ids": ["x2", "x3"], "text": "Merged.", "importance": "medium"}],
        "shorten": [{"item_id": "x1", "text": "JWT."}],
        "drop": [{"item_ids": [], "exchange_ids": [11], "reason": "noise"}],
    }
    ops = parse_operations(raw)
    assert parse_operations(ops.to_tool_input()) == ops
    assert ops.to_tool_input() == raw


def test_append_schema_offers_no_item_edits() -> None:
    append = operations_schema(UpdatePath.APPEND, 300)
    full = operations_schema(UpdatePath.FULL, 300)
    assert set(append["properties"]) == {"add", "drop"}
    assert set(full["properties"]) == {"add", "merge", "shorten", "drop"}
    assert append["properties"]["add"]["items"]["properties"]["text"]["maxLength"] == 300
    assert Operations().to_tool_input()["add"] == []


def test_the_schema_lists_the_batch_s_exchange_ids_and_the_shown_item_ids_as_enums() -> None:
    schema = operations_schema(UpdatePath.FULL, 300, [7, 5, 6], ["x2", "x1"])
    props = schema["properties"]
    assert props["add"]["items"]["properties"]["exchange_ids"]["items"]["enum"] == [5, 6, 7]
    assert props["drop"]["items"]["properties"]["exchange_ids"]["items"]["enum"] == [5, 6, 7]
    assert props["drop"]["items"]["properties"]["item_ids"]["items"]["enum"] == ["x1", "x2"]
    assert props["merge"]["items"]["properties"]["item_ids"]["items"]["enum"] == ["x1", "x2"]
    assert props["shorten"]["items"]["properties"]["item_id"]["enum"] == ["x1", "x2"]


def test_the_engine_sends_the_constrained_schema() -> None:
    seen: list[dict[str, Any]] = []

    class Recording:
        def complete(self, request: LLMRequest) -> LLMAnswer:
            seen.append(dict(request.tool_schema))
            ids = [x.id for x in request.context.batch]
            return LLMAnswer(
                {"add": [{"exchange_ids": ids, "text": "Did the work.", "importance": "medium"}]}
            )

    SummaryEngine(Recording(), ByteEstimateCounter()).update(None, "a", [exchange(3), exchange(4)], NOW)
    (schema,) = seen
    assert schema["properties"]["add"]["items"]["properties"]["exchange_ids"]["items"]["enum"] == [3, 4]


def test_a_credential_a_model_writes_is_masked_in_every_text_and_reason() -> None:
    key = "sk-ant-api03-" + "Zx9" * 12 + "WXYZ"
    ops = validate_answer(
        {
            "add": [add_op([10], text=f"Set the key to {key}.")],
            "drop": [{"exchange_ids": [11], "reason": f"only {key}"}],
            "shorten": [{"item_id": "x1", "text": f"Uses {key}."}],
        },
        CTX,
    )
    texts = [ops.add[0].text, ops.drop[0].reason, ops.shorten[0].text]
    assert all(key not in text and "[secret:anthropic-key …WXYZ]" in text for text in texts)
