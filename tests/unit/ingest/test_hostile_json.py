"""Hostile JSON (a 5,000-digit integer, 100,000 levels of nesting) in every format, as a whole line and
inside the JSON texts formats carry (tool arguments): a reason with a position, never an exception from
the decoder, and for a value the format keeps as text, the text."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import IngestRecord, InputFormat
from summarizer.ingest.jsontext import MAX_NESTING, DocumentError, loads_json, loads_strict
from tests.unit.ingest.helpers import jsonl, parse

HUGE = "7" * 5000
DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_LINES = {
    "huge integer": '{"kind": "user", "content": "hi", "tokens": ' + HUGE + "}\n",
    "deep nesting": '{"kind": "user", "content": "hi", "input": ' + DEEP + "}\n",
    "deep document": DEEP + "\n",
}


@pytest.mark.parametrize("loads", [loads_strict, loads_json])
def test_the_decoders_say_what_and_where(loads: Callable[[str], Any]) -> None:
    with pytest.raises(DocumentError) as huge:
        loads('{"a": 1,\n "b": ' + HUGE + "}")
    assert huge.value.reason == "invalid JSON: an integer of more than 4300 digits (5000) at column 7"
    assert huge.value.line == 2
    with pytest.raises(DocumentError) as deep:
        loads('{"a":\n' + DEEP + "}")
    assert (
        deep.value.reason
        == f"invalid JSON: arrays and objects nested deeper than {MAX_NESTING} levels at column {MAX_NESTING}"
    )
    assert deep.value.line == 2
    just_deep_enough = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert json.dumps(loads(just_deep_enough)) == just_deep_enough
    with pytest.raises(DocumentError, match="nested deeper"):
        loads("[" + just_deep_enough + "]")


def test_brackets_inside_strings_do_not_count() -> None:
    text = '{"a": "' + "[" * 500 + '", "b": ["]]]"]}'
    assert loads_strict(text) == {"a": "[" * 500, "b": ["]]]"]}


def test_a_lenient_failure_is_a_value_error_for_callers_that_keep_the_text() -> None:
    with pytest.raises(ValueError, match="nested deeper"):
        loads_json(DEEP.encode())


def _read(text: str, fmt: str) -> list[IngestRecord] | InvalidMessage:
    """The records, or the InvalidMessage the reader raised (any other exception fails the test)."""
    try:
        return parse(text, fmt)
    except InvalidMessage as exc:
        return exc


@pytest.mark.parametrize("fmt", [f.value for f in InputFormat])
@pytest.mark.parametrize("case", list(HOSTILE_LINES))
def test_every_format_refuses_hostile_lines_with_a_reason(fmt: str, case: str) -> None:
    started = time.perf_counter()
    outcome = _read(HOSTILE_LINES[case], fmt)
    assert time.perf_counter() - started < 2
    if isinstance(outcome, InvalidMessage):
        assert str(outcome).startswith("chat.jsonl")
    else:
        assert all(r.message.tokens is None or r.message.tokens < 10**9 for r in outcome)


@pytest.mark.parametrize(
    ("fmt", "line"),
    [
        (
            "codex",
            {
                "type": "response_item",
                "payload": {"type": "function_call", "name": "sh", "call_id": "c", "arguments": DEEP},
            },
        ),
        (
            "openai",
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "sh", "arguments": DEEP}}
                ],
            },
        ),
    ],
)
def test_hostile_tool_arguments_inside_a_line_are_refused_or_kept_as_text(fmt: str, line: object) -> None:
    outcome = _read(jsonl(line), fmt)
    if isinstance(outcome, InvalidMessage):
        assert str(outcome).startswith("chat.jsonl:1")
    else:
        assert [type(r.message.input) for r in outcome if r.message.input is not None] == [str]
