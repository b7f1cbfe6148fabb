"""Rules of the OpenAI Chat Completions format."""

from __future__ import annotations

import json
from typing import Any

import pytest

from summarizer.domain.kinds import Kind
from tests.unit.ingest.helpers import failure, jsonl, parse


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize("role", ["system", "developer"])
def test_system_and_developer_roles_become_system(role: str) -> None:
    (record,) = parse(jsonl({"role": role, "content": "be brief"}), "openai")
    assert (record.message.kind, record.message.content) == (Kind.SYSTEM, "be brief")


def test_user_string_content_becomes_user() -> None:
    (record,) = parse(jsonl({"role": "user", "content": "hi"}), "openai")
    assert record.message.starts_exchange
    assert record.message.content == "hi"


def test_user_content_parts_join_text_and_leave_placeholders() -> None:
    parts = [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
        {"type": "text", "text": "thanks"},
    ]
    (record,) = parse(jsonl({"role": "user", "content": parts}), "openai")
    assert record.message.content == "what is this?\n[image]\n[audio]\nthanks"


def test_unsupported_content_part_is_named() -> None:
    error = failure(jsonl({"role": "user", "content": [{"type": "video", "video": {}}]}), "openai")
    assert error.reason.startswith("content[0].type 'video' is not supported here")


def test_assistant_text_then_one_tool_call_per_entry() -> None:
    message = {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [_call("c1", "read", '{"path": "a.py"}'), _call("c2", "bash", '{"cmd": "ls"}')],
    }
    records = parse(jsonl(message), "openai")
    assert [r.message.kind for r in records] == [Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_CALL]
    assert records[0].message.content == "Let me look."
    call = records[2].message
    assert (call.tool_call_id, call.name, call.input) == ("c2", "bash", {"cmd": "ls"})


def test_assistant_without_text_yields_only_tool_calls() -> None:
    message = {"role": "assistant", "content": None, "tool_calls": [_call("c1", "read", "{}")]}
    (record,) = parse(jsonl(message), "openai")
    assert record.message.kind is Kind.TOOL_CALL


def test_unparseable_tool_arguments_are_an_error() -> None:
    message = {"role": "assistant", "tool_calls": [_call("c1", "read", '{"path": ')]}
    error = failure(jsonl(message), "openai")
    assert error.reason.startswith("tool_calls[0].function.arguments is not valid JSON: Expecting value")


def test_empty_tool_arguments_mean_no_arguments() -> None:
    (record,) = parse(jsonl({"role": "assistant", "tool_calls": [_call("c1", "now", "")]}), "openai")
    assert record.message.input == {}


def test_tool_role_becomes_tool_result_with_its_call_id() -> None:
    (record,) = parse(jsonl({"role": "tool", "tool_call_id": "c1", "content": "42"}), "openai")
    assert (record.message.kind, record.message.tool_call_id, record.message.content) == (
        Kind.TOOL_RESULT,
        "c1",
        "42",
    )


def test_tool_role_needs_tool_call_id() -> None:
    assert failure(jsonl({"role": "tool", "content": "42"}), "openai").reason == "missing 'tool_call_id'"


def test_legacy_function_role_becomes_generic_tool() -> None:
    (record,) = parse(jsonl({"role": "function", "name": "clock", "content": "12:00"}), "openai")
    assert (record.message.kind, record.message.name, record.message.content) == (Kind.TOOL, "clock", "12:00")


def test_unknown_role_is_an_error() -> None:
    error = failure(jsonl({"role": "bot", "content": "x"}), "openai")
    expected = "system, developer, user, assistant, tool, function"
    assert error.reason == f"unknown role 'bot' (expected one of: {expected})"


def test_one_id_on_an_expanded_assistant_message_gets_suffixes() -> None:
    message = {
        "role": "assistant",
        "id": "m7",
        "tokens": 30,
        "content": "ok",
        "tool_calls": [_call("c1", "a", "{}"), _call("c2", "b", "{}")],
    }
    records = parse(jsonl(message), "openai")
    assert [r.message.host_id for r in records] == ["m7#1", "m7#2", "m7#3"]
    assert [r.message.tokens for r in records] == [30, 0, 0]


def test_id_on_a_single_message_is_kept_as_is() -> None:
    (record,) = parse(jsonl({"role": "user", "content": "x", "id": 5}), "openai")
    assert record.message.host_id == "5"


def test_extension_keys_follow_canonical_rules() -> None:
    error = failure(jsonl({"role": "user", "content": "x", "created_at": "2024-01-01T00:00:00"}), "openai")
    assert error.reason == "created_at '2024-01-01T00:00:00' has no time zone"


def test_agent_extension_key_sets_the_agent() -> None:
    (record,) = parse(jsonl({"role": "user", "content": "x", "agent": "b"}), "openai", agent=None)
    assert record.agent_id == "b"


def test_request_body_document_reports_message_index() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}, {"role": "user", "content": 3}]}
    error = failure(json.dumps(body, indent=2), "openai")
    assert error.where == "chat.jsonl:1 messages[1]"
    assert error.reason == "content must be a string or an array of content parts, got number"


def test_array_document_is_accepted() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    records = parse("\n" + json.dumps(messages, indent=1), "openai")
    assert [r.message.where for r in records] == ["chat.jsonl:2 [0]", "chat.jsonl:2 [1]"]


def test_nul_byte_in_tool_arguments_is_an_error() -> None:
    message = {"role": "assistant", "tool_calls": [_call("c1", "a", '{"p": "\\u0000"}')]}
    assert failure(jsonl(message), "openai").reason == "NUL byte in tool_calls[0].function.arguments.p"


def test_legacy_function_call_becomes_generic_tool_with_input() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "clock", "arguments": '{"tz": "UTC"}'},
    }
    (record,) = parse(jsonl(message), "openai")
    assert (record.message.kind, record.message.name, record.message.input) == (
        Kind.TOOL,
        "clock",
        {"tz": "UTC"},
    )


def test_custom_tool_call_keeps_its_raw_input() -> None:
    call = {"id": "c1", "type": "custom", "custom": {"name": "grammar", "input": "SELECT 1"}}
    (record,) = parse(jsonl({"role": "assistant", "tool_calls": [call]}), "openai")
    assert (record.message.name, record.message.input) == ("grammar", "SELECT 1")


def test_refusal_stands_in_for_missing_text() -> None:
    (record,) = parse(
        jsonl({"role": "assistant", "content": None, "refusal": "I can't help with that."}), "openai"
    )
    assert (record.message.kind, record.message.content) == (Kind.ASSISTANT, "I can't help with that.")
