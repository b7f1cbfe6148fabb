"""How inputs lay out their messages: JSON Lines, an array, or a request body."""

from __future__ import annotations

import json

from tests.unit.ingest.helpers import failure, jsonl, parse


def test_chat_jsonl_reports_file_and_line() -> None:
    text = jsonl({"role": "user", "content": "a"}) + "\n" + jsonl({"role": "user", "content": 1})
    error = failure(text, "openai")
    assert error.where == "chat.jsonl:3"


def test_pretty_printed_document_is_read_whole() -> None:
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    body = {"model": "m", "messages": messages}
    records = parse(json.dumps(body, indent=4), "openai")
    assert [r.message.where for r in records] == ["chat.jsonl:1 messages[0]", "chat.jsonl:1 messages[1]"]


def test_single_line_request_body_is_a_document() -> None:
    records = parse(json.dumps({"messages": [{"role": "user", "content": "a"}]}) + "\n", "openai")
    assert records[0].message.where == "chat.jsonl:1 messages[0]"


def test_invalid_json_in_a_document_names_the_line() -> None:
    text = '{\n  "messages": [\n    {"role": "user" "content": "x"}\n  ]\n}\n'
    error = failure(text, "openai")
    assert error.where == "chat.jsonl:3"
    assert error.reason == "invalid JSON: Expecting ',' delimiter at column 21"


def test_document_without_messages_is_an_error() -> None:
    error = failure('{\n  "model": "m"\n}\n', "openai")
    assert error.reason == "the JSON document has no 'messages' array"


def test_messages_must_be_an_array() -> None:
    error = failure('{"messages": {"role": "user"}}', "anthropic")
    assert error.reason == "'messages' must be an array, got object"


def test_message_in_a_document_must_be_an_object() -> None:
    error = failure('["hello"]', "openai")
    assert (error.where, error.reason) == ("chat.jsonl:1 [0]", "expected a JSON object, got string")


def test_message_in_a_document_over_the_limit_is_refused() -> None:
    body = {"messages": [{"role": "user", "content": "x" * 300}]}
    error = failure(json.dumps(body), "openai", limit=200)
    assert error.where == "chat.jsonl:1 messages[0]"
    assert error.reason.startswith("message is 328 bytes, over the 200-byte limit")


def test_data_after_a_document_is_an_error() -> None:
    error = failure('[\n{"role": "user", "content": "a"}\n]\n[]\n', "openai")
    assert error.where == "chat.jsonl:4"
    assert error.reason.startswith("invalid JSON: Extra data")


def test_empty_input_has_no_records() -> None:
    assert parse("\n\n", "anthropic") == []
    assert parse("", "canonical") == []
