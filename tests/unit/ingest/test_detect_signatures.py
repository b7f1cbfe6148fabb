"""Detection by the first line that carries a format's signature, within a bounded read."""

from __future__ import annotations

import json

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest.detect import HEAD_BYTES, HEAD_LINES, UndetectedFormat, detect
from tests.unit.ingest.helpers import jsonl, parse

SNAPSHOT = {
    "type": "file-history-snapshot",
    "messageId": "8e0c5a2b",
    "snapshot": {"messageId": "8e0c5a2b", "trackedFileBackups": {}, "timestamp": "2025-11-02T10:00:00Z"},
    "isSnapshotUpdate": False,
}
PROMPT = {
    "type": "user",
    "sessionId": "s-2x",
    "uuid": "u1",
    "parentUuid": None,
    "timestamp": "2025-11-02T10:00:01Z",
    "message": {"role": "user", "content": "hello"},
}


def test_a_claude_code_2x_session_opening_with_a_snapshot_is_detected_and_imported() -> None:
    text = jsonl(SNAPSHOT, {"type": "queue-operation", "operation": "enqueue"}, PROMPT)
    found = detect(text.encode(), "s.jsonl")
    assert found.format == "claude-code"
    assert "session id" in found.reason
    (record,) = parse(text, "auto", agent=None)
    assert (record.agent_id, record.message.kind, record.message.content) == ("s-2x", Kind.USER, "hello")


def test_a_session_of_bookkeeping_alone_so_far_is_claude_code() -> None:
    found = detect(jsonl(SNAPSHOT).encode(), "s.jsonl")
    assert found.format == "claude-code"
    assert "bookkeeping lines only" in found.reason


def test_the_signature_is_looked_for_within_the_first_lines_only() -> None:
    odd = {"type": "unheard-of", "x": 1}
    near = jsonl(*[odd] * (HEAD_LINES - 1), PROMPT)
    assert detect(near.encode(), "s.jsonl").format == "claude-code"
    far = jsonl(*[odd] * HEAD_LINES, PROMPT)
    with pytest.raises(UndetectedFormat, match="nearest: an event of type 'unheard-of'"):
        detect(far.encode(), "s.jsonl")


def test_lines_that_are_not_json_are_passed_over() -> None:
    text = "not json at all\n" + jsonl(PROMPT)
    assert detect(text.encode(), "s.jsonl").format == "claude-code"


def test_a_first_line_longer_than_the_read_is_told_by_its_opening() -> None:
    image = {**PROMPT, "message": {"role": "user", "content": "x" * HEAD_BYTES}}
    head = json.dumps(image).encode()[:HEAD_BYTES]
    assert detect(head, "s.jsonl").format == "claude-code"


def test_a_miss_names_the_format_to_pass() -> None:
    no_session = {"type": "user", "parentUuid": None, "message": {"role": "user", "content": "hi"}}
    with pytest.raises(UndetectedFormat) as caught:
        detect(jsonl(no_session).encode(), "s.jsonl")
    message = str(caught.value)
    assert "without a session id (name the agent with --agent)" in message
    assert message.endswith("; pass --format claude-code if it is one")


def test_a_swe_agent_trajectory_holding_only_its_history_is_detected_and_read() -> None:
    history = [
        {"role": "system", "content": "You are a helpful assistant.", "agent": "main"},
        {"role": "user", "content": "Fix the failing test.", "agent": "main"},
        {"role": "assistant", "content": "Looking.", "thought": "Looking.", "action": "ls", "agent": "main"},
        {"role": "user", "content": "a.py\nb.py", "agent": "main"},
    ]
    text = json.dumps({"history": history}, indent=2)
    assert detect(text.encode(), "x.traj").format == "swe-agent"
    records = parse(text, "auto", agent="run")
    assert [r.message.kind for r in records] == [
        Kind.SYSTEM,
        Kind.USER,
        Kind.ASSISTANT,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
    ]


# The shape of a Messages API response that used the server-side web search tool (as the web search tool
# documentation shows it): a server_tool_use block, its web_search_tool_result, then cited text.
SEARCH_RESPONSE = {
    "id": "msg_01WebSearch",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "I'll search for that."},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01",
            "name": "web_search",
            "input": {"query": "claude shannon birth date"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                    "title": "Claude Shannon - Wikipedia",
                    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2U",
                    "page_age": "April 30, 2025",
                }
            ],
        },
        {"type": "text", "text": "Claude Shannon was born on April 30, 1916."},
    ],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 6039, "output_tokens": 931, "server_tool_use": {"web_search_requests": 1}},
}


@pytest.mark.parametrize("indent", [None, 2])
def test_a_single_anthropic_response_with_server_tool_blocks_is_read(indent: int | None) -> None:
    text = json.dumps(SEARCH_RESPONSE, indent=indent) + "\n"
    assert detect(text.encode(), "r.json").format == "anthropic"
    records = parse(text, "auto", agent="bot")
    assert [(r.message.kind, r.message.name) for r in records] == [
        (Kind.TOOL, "web_search"),
        (Kind.TOOL, "web_search_tool_result"),
        (Kind.ASSISTANT, None),
    ]
    assert records[-1].message.content.endswith("Claude Shannon was born on April 30, 1916.")
