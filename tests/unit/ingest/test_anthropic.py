"""Rules of the Anthropic Messages format."""

from __future__ import annotations

import json
from typing import Any

from summarizer.domain.kinds import Kind
from tests.unit.ingest.helpers import failure, jsonl, parse


def _tool_use(call_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def test_plain_user_message_starts_an_exchange() -> None:
    (record,) = parse(jsonl({"role": "user", "content": "fix the bug"}), "anthropic")
    assert record.message.kind is Kind.USER
    assert record.message.starts_exchange


def test_text_blocks_are_joined_and_media_leave_placeholders() -> None:
    blocks = [
        {"type": "text", "text": "see attached"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}},
        {"type": "document", "title": "spec.pdf", "source": {"type": "url", "url": "https://x"}},
    ]
    (record,) = parse(jsonl({"role": "user", "content": blocks}), "anthropic")
    assert record.message.content == "see attached\n[image]\n[document: spec.pdf]"


def test_assistant_text_then_tool_use_blocks_become_tool_calls() -> None:
    blocks = [
        {"type": "text", "text": "Reading it."},
        _tool_use("tu1", "file_read", {"path": "a.py"}),
        _tool_use("tu2", "bash", {"cmd": "pytest"}),
    ]
    records = parse(jsonl({"role": "assistant", "content": blocks}), "anthropic")
    assert [r.message.kind for r in records] == [Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_CALL]
    call = records[1].message
    assert (call.tool_call_id, call.name, call.input) == ("tu1", "file_read", {"path": "a.py"})


def test_thinking_blocks_are_skipped() -> None:
    blocks = [
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        {"type": "redacted_thinking", "data": "xx"},
        {"type": "text", "text": "Done."},
    ]
    (record,) = parse(jsonl({"role": "assistant", "content": blocks}), "anthropic")
    assert record.message.content == "Done."


def test_anthropic_tool_result_carrier_does_not_start_exchange() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": "tu1", "content": [{"type": "text", "text": "3 passed"}]},
        {"type": "tool_result", "tool_use_id": "tu2", "content": "boom", "is_error": True},
        {"type": "text", "text": "also, use python 3.12"},
    ]
    records = parse(jsonl({"role": "user", "content": blocks}), "anthropic")
    kinds = [r.message.kind for r in records]
    assert kinds == [Kind.TOOL_RESULT, Kind.TOOL_RESULT, Kind.USER]
    assert not any(r.message.starts_exchange for r in records)
    assert records[2].message.continues_exchange
    assert (records[0].message.tool_call_id, records[0].message.content) == ("tu1", "3 passed")
    assert records[1].message.is_error is True


def test_carrier_without_text_yields_only_tool_results() -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "tu1", "content": "ok"}]
    (record,) = parse(jsonl({"role": "user", "content": blocks}), "anthropic")
    assert record.message.kind is Kind.TOOL_RESULT


def test_tool_result_needs_tool_use_id() -> None:
    blocks = [{"type": "tool_result", "content": "ok"}]
    error = failure(jsonl({"role": "user", "content": blocks}), "anthropic")
    assert error.reason == "missing 'content[0].tool_use_id'"


def test_tool_use_in_a_user_message_is_an_error() -> None:
    error = failure(jsonl({"role": "user", "content": [_tool_use("t", "n", {})]}), "anthropic")
    assert error.reason == "content[0]: a tool_use block is not allowed in a user message"


def test_unknown_block_type_is_named() -> None:
    error = failure(jsonl({"role": "user", "content": [{"type": "video"}]}), "anthropic")
    assert error.reason.startswith("content[0].type 'video' is unknown (expected one of: text, image")


def test_top_level_system_becomes_a_leading_system_message() -> None:
    body = {
        "model": "claude",
        "system": [{"type": "text", "text": "You are terse."}, {"type": "text", "text": "Use tools."}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    records = parse(json.dumps(body), "anthropic")
    assert [r.message.kind for r in records] == [Kind.SYSTEM, Kind.USER]
    assert records[0].message.content == "You are terse.\nUse tools."
    assert records[0].message.where == "chat.jsonl:1 system"


def test_top_level_system_takes_the_agent_of_the_first_message() -> None:
    body = {"system": "s", "messages": [{"role": "user", "content": "hi", "agent": "own"}]}
    records = parse(json.dumps(body), "anthropic", agent=None)
    assert [r.agent_id for r in records] == ["own", "own"]


def test_ids_on_a_carrier_get_suffixes() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": "tu1", "content": "ok"},
        {"type": "text", "text": "next"},
    ]
    records = parse(jsonl({"role": "user", "content": blocks, "id": "u9"}), "anthropic")
    assert [r.message.host_id for r in records] == ["u9#1", "u9#2"]


def test_unknown_role_is_an_error() -> None:
    error = failure(jsonl({"role": "tool", "content": "x"}), "anthropic")
    assert error.reason == "unknown role 'tool' (expected one of: user, assistant, system)"


def test_tool_result_is_error_must_be_boolean() -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "tu1", "content": "x", "is_error": "true"}]
    error = failure(jsonl({"role": "user", "content": blocks}), "anthropic")
    assert error.reason == "content[0].is_error must be true or false, got string"


def test_tool_result_content_blocks_keep_placeholders() -> None:
    content = [{"type": "text", "text": "chart:"}, {"type": "image", "source": {"type": "url", "url": "u"}}]
    blocks = [{"type": "tool_result", "tool_use_id": "tu1", "content": content}]
    (record,) = parse(jsonl({"role": "user", "content": blocks}), "anthropic")
    assert record.message.content == "chart:\n[image]"


def test_system_role_line_is_accepted_in_jsonl() -> None:
    (record,) = parse(jsonl({"role": "system", "content": "be terse"}), "anthropic")
    assert (record.message.kind, record.message.content) == (Kind.SYSTEM, "be terse")


def test_assistant_with_only_thinking_yields_nothing() -> None:
    assert (
        parse(jsonl({"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]}), "anthropic")
        == []
    )
