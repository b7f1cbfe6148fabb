"""VS Code chat sessions: a workspace's `chatSessions/<id>.json` and an exported session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest.records import IngestRecord
from summarizer.ingest.vscode_chat import (
    LAYOUT,
    VscodeChatSession,
    detect_vscode_chat,
    large_vscode_chat,
)
from summarizer.ingest.vscode_chat_log import read_vscode_chat, replay
from tests.unit.ingest.document_reads import lines_of, read_bytes, read_path, reading

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vscode_chat"
SESSION_ID = "7c1e4b2a-93d5-4f60-b8a1-2e3f4a5b6c7d"
SESSION = FIXTURES / "chatSessions" / f"{SESSION_ID}.json"
EXPORT = FIXTURES / "cart-discount-export.json"


def _read(path: Path, agent: str | None = None) -> tuple[list[IngestRecord], VscodeChatSession]:
    reader = VscodeChatSession(agent, str(path))
    records, notes = read_path(path, LAYOUT, reader.feed)
    assert (notes.unpaired_calls, notes.orphan_results) == (0, 0)
    return records, reader


def test_a_session_keeps_prompts_replies_and_paired_tool_calls() -> None:
    records, reader = _read(SESSION)
    shown = [(r.message.kind, r.message.tool_call_id) for r in records]
    assert shown == [
        (Kind.USER, None),
        (Kind.TOOL_CALL, "0f1e2d3c-read"),
        (Kind.TOOL_RESULT, "0f1e2d3c-read"),
        (Kind.ASSISTANT, None),
        (Kind.USER, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_edit_77"),
        (Kind.TOOL_RESULT, "call_edit_77"),
        (Kind.TOOL_CALL, "call_term_78"),
        (Kind.TOOL_RESULT, "call_term_78"),
        (Kind.ASSISTANT, None),
        (Kind.USER, None),
        (Kind.MARK, None),
        (Kind.MARK, None),
    ]
    assert [r.message.content for r in records if r.message.kind is Kind.USER] == [
        "Why does the cart total ignore the discount?",
        "Fix it and run the tests.",
        "Also update the changelog.",
    ]
    assert records[3].message.content == (
        "The discount is applied after the total is returned in `cart.py`, so it never reaches the caller."
    )
    assert {r.agent_id for r in records} == {SESSION_ID}
    assert dict(reader.unknown_types) == {"hologramPreview": 1}
    assert reader.first_unknown["hologramPreview"].endswith("requests[1] response[5]")
    assert [r.message.content for r in records[-2:]] == [
        "error: Sorry, the response hit the length limit.",
        "canceled",
    ]


def test_tool_inputs_and_results_come_from_the_best_record_kept() -> None:
    records, _ = _read(SESSION, "s")
    messages = {(r.message.kind, r.message.tool_call_id): r.message for r in records}
    read = messages[(Kind.TOOL_CALL, "0f1e2d3c-read")]
    assert (read.name, read.input) == (
        "copilot_readFile",
        {"filePath": "/home/dev/shop/cart.py", "startLine": 1, "endLine": 40},
    )
    assert messages[(Kind.TOOL_RESULT, "0f1e2d3c-read")].content.startswith("def total(items, discount):")
    assert messages[(Kind.TOOL_CALL, "call_edit_77")].input == {"filePath": "/home/dev/shop/cart.py"}
    edited = messages[(Kind.TOOL_RESULT, "call_edit_77")]
    assert (edited.content, edited.is_error) == ("The file was edited.", False)
    assert messages[(Kind.TOOL_CALL, "call_term_78")].input == {"command": "pytest -q"}
    assert messages[(Kind.TOOL_RESULT, "call_term_78")].content == "12 passed in 0.41s"
    first = records[0].message
    assert first.host_id == "request_11111111-aaaa-4bbb-8ccc-000000000001#1"
    assert first.created_at is not None
    assert first.created_at.isoformat() == "2026-03-14T12:06:40+00:00"


def test_an_exported_session_reads_as_the_session_does() -> None:
    records, _ = _read(EXPORT)
    session, _ = _read(SESSION)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (r.message.kind, r.message.content) for r in session[:4]
    ]
    assert {r.agent_id for r in records} == {"cart-discount-export"}


def test_without_kept_results_the_shown_messages_stand_in() -> None:
    document = json.loads(EXPORT.read_text())
    request = document["requests"][0]
    del request["result"]
    request["response"][1]["isComplete"] = False
    reader = VscodeChatSession("a", "e.json")
    records, _ = read_bytes(json.dumps(document).encode(), "e.json", LAYOUT, reader.feed)
    call, result = records[1].message, records[2].message
    assert call.input == {"invocation": "Reading [](file:///home/dev/shop/cart.py)"}
    assert (result.content, result.is_error) == (
        "Read [](file:///home/dev/shop/cart.py)\n[not completed]",
        True,
    )


def test_the_oldest_layout_with_a_string_message_reads() -> None:
    document = {
        "requesterUsername": "dev",
        "responderUsername": "Copilot",
        "requests": [
            {"requestId": "r1", "message": "hello", "response": [{"value": "Hi!"}]},
        ],
    }
    reader = VscodeChatSession("a", "old.json")
    records, _ = read_bytes(json.dumps(document).encode(), "old.json", LAYOUT, reader.feed)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.USER, "hello"),
        (Kind.ASSISTANT, "Hi!"),
    ]


def test_detection() -> None:
    assert detect_vscode_chat(json.loads(SESSION.read_text()))
    assert detect_vscode_chat(json.loads(EXPORT.read_text()))
    assert detect_vscode_chat({"requests": []}) is None
    assert detect_vscode_chat({"messages": [], "requesterUsername": "dev"}) is None


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        ({"requestId": "r"}, "a request needs 'message' (an object with 'text'), got null"),
        ({"message": {"text": 3}}, "message.text must be a string, got number"),
        ({"message": "x", "response": {"value": "y"}}, "response must be an array of parts, got object"),
        (
            {"message": "x", "response": [{"value": 1}]},
            "response[0] is Markdown and needs 'value' as a string, got number",
        ),
        (
            {"message": "x", "response": [{"kind": "toolInvocationSerialized", "toolId": "t"}]},
            "response[0] is a tool invocation",
        ),
        (
            {"message": "x", "timestamp": "today"},
            "timestamp must be milliseconds since the epoch, got string",
        ),
    ],
)
def test_a_malformed_request_is_one_line_naming_its_place(request_: dict[str, object], reason: str) -> None:
    document = {"requesterUsername": "dev", "requests": [{"message": "ok"}, request_]}
    with pytest.raises(InvalidMessage) as caught:
        read_bytes(json.dumps(document).encode(), "s.json", LAYOUT, VscodeChatSession("a", "s.json").feed)
    assert caught.value.where == "s.json:1 requests[1]"
    assert caught.value.reason.startswith(reason)


def test_the_whole_file_reader_names_unknown_part_kinds() -> None:
    read_with, notes = reading()
    records = list(read_vscode_chat(lines_of(SESSION.read_bytes(), str(SESSION)), read_with))
    assert len(records) == 14
    assert notes.warnings == [
        f"{SESSION}:1 requests[1] response[5]: 1 response part(s) of unknown kind 'hologramPreview' skipped"
    ]
    assert large_vscode_chat(SESSION, b"{")
    assert large_vscode_chat(Path("export.json"), EXPORT.read_bytes()[:200])
    assert not large_vscode_chat(Path("other.json"), b'{"messages": []}')


LOG = FIXTURES / "chatSessions" / "0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f.jsonl"


def test_a_session_log_reads_as_the_session_its_changes_build() -> None:
    read_with, notes = reading()
    records = list(read_vscode_chat(lines_of(LOG.read_bytes(), str(LOG)), read_with))
    session, _ = _read(SESSION)
    expected = [(r.message.kind, r.message.content, r.message.tool_call_id) for r in session[:11]]
    assert [(r.message.kind, r.message.content, r.message.tool_call_id) for r in records] == expected
    assert {r.agent_id for r in records} == {LOG.stem}
    assert "Draft reply that was replaced." not in [r.message.content for r in records]
    assert notes.warnings == [
        f"{LOG} requests[1] response[5]: 1 response part(s) of unknown kind 'hologramPreview' skipped"
    ]
    first_line = json.loads(LOG.read_text().splitlines()[0])
    assert detect_vscode_chat(first_line)
    assert large_vscode_chat(LOG, b"{")


@pytest.mark.parametrize(
    ("second_line", "reason"),
    [
        ("not json", "invalid JSON"),
        ('{"kind": 1, "k": ["requests", 5, "result"], "v": {}}', "the path step 5 is not in the session"),
        ('{"kind": 2, "k": ["requests"], "v": {"a": 1}}', "a push's 'v' must be an array, got object"),
        ('{"kind": 9, "k": ["x"]}', "unknown change kind 9"),
        ('{"kind": 1, "k": []}', "a change needs 'k', a non-empty path"),
    ],
)
def test_a_log_line_that_cannot_be_applied_is_named(second_line: str, reason: str) -> None:
    first = json.dumps({"kind": 0, "v": {"requesterUsername": "dev", "requests": [{"message": "hi"}]}})
    data = f"{first}\n{second_line}\n".encode()
    read_with, _ = reading("a")
    with pytest.raises(InvalidMessage) as caught:
        list(read_vscode_chat(lines_of(data, "s.jsonl"), read_with))
    assert caught.value.where == "s.jsonl:2"
    assert caught.value.reason.startswith(reason)


def test_a_log_without_its_initial_entry_is_refused() -> None:
    read_with, _ = reading("a")
    data = b'{"kind": 0, "v": {"requesterUsername": "d", "requests": []}}\n'
    assert list(read_vscode_chat(lines_of(data, "s.jsonl"), read_with)) == []
    with pytest.raises(InvalidMessage) as caught:
        replay('\n{"kind": 1, "k": ["requests"], "v": []}\n', "s.jsonl")
    assert (caught.value.where, caught.value.reason) == (
        "s.jsonl:2",
        "a change comes before the initial entry (kind 0)",
    )
    with pytest.raises(InvalidMessage, match="the initial entry's 'v' must be the session"):
        list(read_vscode_chat(lines_of(data + b'{"kind": 0}\n', "s.jsonl"), read_with))
