"""Rules of the canonical JSON Lines format, one test per rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from summarizer.domain.kinds import Kind
from tests.unit.ingest.helpers import canonical_line, failure, jsonl, parse


def test_valid_line_becomes_record_with_file_and_line() -> None:
    (record,) = parse("\n" + canonical_line(agent="bot-1", content="hi there"))
    assert record.agent_id == "bot-1"
    assert record.message.kind is Kind.USER
    assert record.message.content == "hi there"
    assert record.message.where == "chat.jsonl:2"


def test_blank_lines_are_ignored() -> None:
    records = parse("\n   \n" + canonical_line() + "\t\n\n" + canonical_line(content="again"))
    assert [r.message.where for r in records] == ["chat.jsonl:3", "chat.jsonl:6"]


def test_unknown_kind_names_file_and_line() -> None:
    error = failure(canonical_line() + canonical_line(kind="usr"))
    assert error.where == "chat.jsonl:2"
    assert error.reason.startswith("unknown kind 'usr' (expected one of: system, user, assistant")


def test_missing_kind_is_an_error() -> None:
    assert failure(jsonl({"content": "x"})).reason == "missing 'kind'"


def test_agent_falls_back_to_default_agent() -> None:
    (record,) = parse(canonical_line(), agent="from-flag")
    assert record.agent_id == "from-flag"


def test_agent_on_message_wins_over_default_agent() -> None:
    (record,) = parse(canonical_line(agent="own"), agent="from-flag")
    assert record.agent_id == "own"


def test_missing_agent_without_default_is_an_error() -> None:
    error = failure(canonical_line(), agent=None)
    assert error.reason == "no agent: give 'agent' on the message or --agent"


def test_agent_must_be_a_string() -> None:
    assert failure(canonical_line(agent=7)).reason == "agent must be a string, got number"


def test_empty_agent_is_an_error() -> None:
    assert failure(canonical_line(agent=" ")).reason == "agent must not be empty"


def test_missing_content_is_an_error() -> None:
    assert failure(jsonl({"kind": "assistant"})).reason == "missing 'content'"


def test_content_must_be_a_string() -> None:
    assert failure(canonical_line(content=3)).reason == "content must be a string, got number"


def test_content_may_be_missing_on_tool_call() -> None:
    (record,) = parse(jsonl({"kind": "tool_call", "tool_call_id": "t1", "name": "bash", "input": {"c": 1}}))
    assert record.message.content == ""
    assert record.message.input == {"c": 1}
    assert record.message.name == "bash"


@pytest.mark.parametrize("kind", ["tool_call", "tool_result"])
def test_tool_call_id_is_required_on_tool_messages(kind: str) -> None:
    error = failure(jsonl({"kind": kind, "content": ""}))
    assert error.reason == f"a {kind} message needs 'tool_call_id'"


def test_tool_call_needs_a_name() -> None:
    error = failure(jsonl({"kind": "tool_call", "tool_call_id": "t1"}))
    assert error.reason == "a tool_call message needs 'name' (the tool's name)"


def test_tool_result_keeps_is_error_and_link() -> None:
    line = jsonl({"kind": "tool_result", "tool_call_id": "t1", "content": "boom", "is_error": True})
    (record,) = parse(line)
    assert record.message.tool_call_id == "t1"
    assert record.message.is_error is True


def test_is_error_must_be_boolean() -> None:
    error = failure(jsonl({"kind": "tool_result", "tool_call_id": "t1", "content": "", "is_error": "yes"}))
    assert error.reason == "is_error must be true or false, got string"


def test_tool_fields_are_refused_on_other_kinds() -> None:
    error = failure(canonical_line(name="bash"))
    assert error.reason == "'name' is not allowed on a user message (only on: tool, tool_call)"


def test_unknown_key_is_named() -> None:
    error = failure(canonical_line(contnet="typo"))
    assert error.reason.startswith("unknown key 'contnet' (expected: kind, content,")


def test_keys_starting_with_x_are_ignored() -> None:
    (record,) = parse(canonical_line(x_trace={"span": 1}))
    assert record.message.content == "hello"


def test_tokens_are_kept() -> None:
    (record,) = parse(canonical_line(tokens=12))
    assert record.message.tokens == 12


@pytest.mark.parametrize(
    ("tokens", "reason"),
    [
        (True, "tokens must be an integer, got boolean"),
        (1.5, "tokens must be an integer, got number 1.5"),
        ("3", "tokens must be an integer, got string"),
        (-1, "tokens must be >= 0, got -1"),
    ],
)
def test_tokens_must_be_a_non_negative_integer(tokens: object, reason: str) -> None:
    assert failure(canonical_line(tokens=tokens)).reason == reason


def test_created_at_with_zone_is_parsed() -> None:
    (record,) = parse(canonical_line(created_at="2024-03-04T09:15:00+01:00"))
    assert record.message.created_at == datetime(2024, 3, 4, 9, 15, tzinfo=timezone(timedelta(hours=1)))


def test_created_at_accepts_trailing_z() -> None:
    (record,) = parse(canonical_line(created_at="2024-03-04T08:15:00Z"))
    assert record.message.created_at == datetime(2024, 3, 4, 8, 15, tzinfo=UTC)


def test_created_at_without_zone_is_an_error() -> None:
    error = failure(canonical_line(created_at="2024-01-01T00:00:00"))
    assert error.reason == "created_at '2024-01-01T00:00:00' has no time zone"


def test_created_at_that_is_not_a_timestamp_is_an_error() -> None:
    error = failure(canonical_line(created_at="yesterday"))
    assert error.reason == "created_at 'yesterday' is not an ISO-8601 timestamp"


def test_created_at_must_be_a_string() -> None:
    error = failure(canonical_line(created_at=1700000000))
    assert error.reason == "created_at must be a string, got number"


@pytest.mark.parametrize(("value", "stored"), [("msg-1", "msg-1"), (42, "42")])
def test_id_is_stored_as_string(value: object, stored: str) -> None:
    (record,) = parse(canonical_line(id=value))
    assert record.message.host_id == stored


@pytest.mark.parametrize("value", [True, 1.5, None, [1]])
def test_id_must_be_string_or_integer(value: object) -> None:
    assert failure(canonical_line(id=value)).reason.startswith("id must be a string or an integer, got ")


def test_nul_byte_in_content_is_an_error() -> None:
    assert failure(canonical_line(content="a\x00b")).reason == "NUL byte in content"


def test_nul_byte_nested_in_input_names_the_path() -> None:
    line = jsonl({"kind": "tool_call", "tool_call_id": "t", "name": "n", "input": {"argv": ["ls", "\x00"]}})
    assert failure(line).reason == "NUL byte in input.argv[1]"


def test_line_must_be_an_object() -> None:
    assert failure("[1, 2]\n").reason == "expected a JSON object, got array"


def test_invalid_json_reports_decoder_reason_and_column() -> None:
    error = failure(canonical_line() + '{"kind": "user" "content": "x"}\n')
    assert error.where == "chat.jsonl:2"
    assert error.reason == "invalid JSON: Expecting ',' delimiter at column 17"


def test_duplicate_key_is_an_error() -> None:
    assert failure('{"kind": "user", "content": "a", "content": "b"}\n').reason == (
        "invalid JSON: duplicate key 'content'"
    )


def test_nan_is_not_json() -> None:
    assert failure('{"kind": "user", "content": "a", "tokens": NaN}\n').reason == (
        "invalid JSON: NaN is not allowed"
    )


def test_metadata_kinds_are_accepted() -> None:
    records = parse(jsonl({"kind": "command", "content": "/clear"}, {"kind": "clear", "content": ""}))
    assert [r.message.kind for r in records] == [Kind.COMMAND, Kind.CLEAR]
