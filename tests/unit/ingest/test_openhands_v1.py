"""OpenHands V1 (software-agent-sdk) conversations: a saved conversation folder, and the same events as
one JSON array or as JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.domain.kinds import Kind
from summarizer.ingest.openhands_v1 import LAYOUT, OpenHandsV1Events, detect_openhands_v1, read_openhands_v1
from summarizer.ingest.openhands_v1_folder import (
    conversation_items,
    is_conversation_folder,
    read_conversation_folder,
)
from summarizer.ingest.records import IngestRecord
from tests.unit.ingest.document_reads import LIMIT, lines_of, read_bytes, read_items, reading

CONVERSATION = Path(__file__).parents[2] / "fixtures" / "openhands_v1" / "5d0c7a1e9b2f4c3d8e6a0b1c2d3e4f50"
EVENTS = sorted((CONVERSATION / "events").iterdir())


def _events() -> list[dict[str, object]]:
    return [json.loads(path.read_text()) for path in EVENTS]


def _read_folder(agent: str | None = None) -> tuple[list[IngestRecord], OpenHandsV1Events]:
    reader = OpenHandsV1Events(agent, str(CONVERSATION / "events"))
    records, _ = read_items(conversation_items(CONVERSATION, LIMIT), reader.feed)
    return records, reader


def test_the_saved_folder_reads_as_one_conversation_with_every_call_paired() -> None:
    reader = OpenHandsV1Events(None, str(CONVERSATION / "events"))
    records, notes = read_items(conversation_items(CONVERSATION, LIMIT), reader.feed)
    shown = [(r.message.kind, r.message.tool_call_id) for r in records]
    assert shown == [
        (Kind.SYSTEM, None),
        (Kind.USER, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_view_1"),
        (Kind.TOOL_RESULT, "call_view_1"),
        (Kind.TOOL_CALL, "call_run_2"),
        (Kind.TOOL_RESULT, "call_run_2"),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_edit_3"),
        (Kind.TOOL_RESULT, "call_edit_3"),
        (Kind.MARK, None),
        (Kind.USER, None),
        (Kind.SYSTEM, None),
        (Kind.ASSISTANT, None),
        (Kind.TOOL_CALL, "call_lint_4"),
        (Kind.TOOL_RESULT, "call_lint_4"),
        (Kind.ASSISTANT, None),
    ]
    assert (notes.unpaired_calls, notes.orphan_results) == (0, 0)
    assert {r.agent_id for r in records} == {CONVERSATION.name}
    assert records[-1].message.content == "Added -v/--verbose to cli.py; the tests pass now."
    assert dict(reader.unknown_types) == {"TelemetrySnapshotEvent": 1}
    assert reader.first_unknown["TelemetrySnapshotEvent"].endswith(
        "event-00013-a1b2c3d4-0000-4000-8000-000000000013.json"
    )


def test_calls_results_and_errors_keep_what_the_agent_did() -> None:
    records, _ = _read_folder("oh")
    by_call = {(r.message.kind, r.message.tool_call_id): r.message for r in records}
    view = by_call[(Kind.TOOL_CALL, "call_view_1")]
    assert (view.name, view.input) == ("file_editor", {"command": "view", "path": "/workspace/cli.py"})
    assert by_call[(Kind.TOOL_RESULT, "call_view_1")].content.startswith("1\timport argparse")
    assert by_call[(Kind.TOOL_RESULT, "call_view_1")].is_error is False
    assert by_call[(Kind.TOOL_RESULT, "call_run_2")].is_error is True
    rejected = by_call[(Kind.TOOL_RESULT, "call_edit_3")]
    assert (rejected.content, rejected.is_error) == ("Action rejected: Use -v as the short form too.", True)
    failed = by_call[(Kind.TOOL_RESULT, "call_lint_4")]
    assert failed.is_error is True
    assert failed.content.startswith("Tool 'lint' not found")
    prompts = [r.message.content for r in records if r.message.kind is Kind.USER]
    assert prompts == [
        "Add a --verbose flag to cli.py and make the tests pass.",
        "Add both -v and --verbose, then run the tests again.",
    ]
    assert "prefer argparse" in records[12].message.content
    assert records[0].message.content == "You are a careful coding agent working in /workspace."
    assert records[1].message.host_id == "a1b2c3d4-0000-4000-8000-000000000001"
    assert str(records[1].message.created_at) == "2026-03-14 09:11:00.123456+00:00"
    assert records[3].message.host_id == "a1b2c3d4-0000-4000-8000-000000000003#2"
    assert {r.agent_id for r in records} == {"oh"}


@pytest.mark.parametrize("layout", ["array", "jsonl"])
def test_an_array_or_json_lines_of_the_same_events_reads_the_same(layout: str) -> None:
    events = _events()
    if layout == "array":
        data = json.dumps(events, indent=2).encode()
    else:
        data = "".join(json.dumps(e) + "\n" for e in events).encode()
    reader = OpenHandsV1Events(None, "run-42.json")
    records, notes = read_bytes(data, "run-42.json", LAYOUT, reader.feed)
    folder, _ = _read_folder("run-42")
    assert [(r.message.kind, r.message.content, r.message.host_id) for r in records] == [
        (r.message.kind, r.message.content, r.message.host_id) for r in folder
    ]
    assert {r.agent_id for r in records} == {"run-42"}
    assert notes.unpaired_calls == 0
    assert reader.unknown_types["TelemetrySnapshotEvent"] == 1


def test_one_event_file_alone_reads_as_its_conversation() -> None:
    path = EVENTS[1]
    reader = OpenHandsV1Events(None, str(path))
    (record,), _ = read_bytes(path.read_bytes(), str(path), LAYOUT, reader.feed)
    assert (record.agent_id, record.message.kind) == (CONVERSATION.name, Kind.USER)


def test_detection_knows_an_event_an_array_and_not_the_older_layout() -> None:
    events = _events()
    assert detect_openhands_v1(events[0])
    assert detect_openhands_v1(events)
    assert detect_openhands_v1([{"source": "user", "action": "message", "args": {}}]) is None
    assert detect_openhands_v1({"kind": "user", "content": "hi"}) is None
    assert is_conversation_folder(CONVERSATION)
    assert is_conversation_folder(CONVERSATION / "events")
    assert not is_conversation_folder(CONVERSATION.parent)


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({"kind": 7, "source": "user"}, "an event needs 'kind' (its class, e.g. 'MessageEvent'), got number"),
        ({"kind": "MessageEvent", "source": "robot", "llm_message": {}}, "a MessageEvent needs 'source'"),
        (
            {"kind": "MessageEvent", "source": "user", "llm_message": "hi"},
            "'llm_message' as an object, got string",
        ),
        ({"kind": "ActionEvent", "source": "agent", "thought": []}, "an ActionEvent needs 'tool_name'"),
        (
            {"kind": "ObservationEvent", "source": "environment", "tool_call_id": "c"},
            "'observation' as an object",
        ),
        (
            {"kind": "MessageEvent", "source": "user", "timestamp": "soon", "llm_message": {"content": []}},
            "not an ISO-8601",
        ),
    ],
)
def test_a_malformed_event_is_one_line_naming_its_place(event: dict[str, object], reason: str) -> None:
    data = json.dumps([{"kind": "PauseEvent", "source": "user"}, event]).encode()
    with pytest.raises(InvalidMessage) as caught:
        read_bytes(data, "conv.json", LAYOUT, OpenHandsV1Events("a", "conv.json").feed)
    assert caught.value.where == "conv.json:1 [1]"
    assert reason in caught.value.reason
    assert "\n" not in str(caught.value)


def test_an_unreadable_event_file_is_named(tmp_path: Path) -> None:
    events = tmp_path / "conv" / "events"
    events.mkdir(parents=True)
    (events / "event-00000-0123456789ab.json").write_text('{"kind": "PauseEvent", "source": "user"}')
    (events / "event-00001-0123456789ac.json").write_text('{"kind": "PauseEvent",')
    (events / "notes.txt").write_text("not an event")
    items = conversation_items(tmp_path / "conv", LIMIT)
    assert next(items).value["kind"] == "PauseEvent"
    with pytest.raises(InvalidMessage) as caught:
        next(items)
    assert caught.value.where == str(events / "event-00001-0123456789ac.json")
    assert caught.value.reason.startswith("invalid JSON")


def test_stdin_needs_an_agent() -> None:
    data = json.dumps(_events()[1]).encode()
    with pytest.raises(InvalidMessage, match="pass --agent"):
        read_bytes(data, "-", LAYOUT, OpenHandsV1Events(None, "-").feed)


def test_the_whole_file_reader_names_unknown_kinds_once() -> None:
    data = "".join(json.dumps(e) + "\n" for e in _events()).encode()
    read_with, notes = reading()
    records = list(read_openhands_v1(lines_of(data, "run-7.jsonl"), read_with))
    assert len(records) == 17
    assert notes.warnings == ["run-7.jsonl:14: 1 event(s) of unknown kind 'TelemetrySnapshotEvent' skipped"]
    strict, _ = reading(strict=True)
    with pytest.raises(InvalidMessage, match="--strict reads no type it does not know"):
        list(read_openhands_v1(lines_of(data, "run-7.jsonl"), strict))


def test_the_folder_reader_pairs_across_files_and_passes_over_a_broken_one(tmp_path: Path) -> None:
    events = tmp_path / "conv-1" / "events"
    events.mkdir(parents=True)
    for path in EVENTS:
        (events / path.name).write_bytes(path.read_bytes())
    broken = events / "event-00099-0123456789ab.json"
    broken.write_text("[1, 2]")
    read_with, notes = reading()
    records = list(read_conversation_folder(tmp_path / "conv-1", read_with))
    assert len(records) == 17
    assert {r.agent_id for r in records} == {"conv-1"}
    assert notes.skipped == 2
    assert notes.warnings[0] == f"{broken}: expected one event (a JSON object), got array; skipped"


def test_an_acp_tool_call_is_read_once_it_is_done() -> None:
    def acp(status: str, output: object = None) -> dict[str, object]:
        return {
            "kind": "ACPToolCallEvent",
            "id": f"acp-{status}",
            "source": "agent",
            "tool_call_id": "acp_1",
            "title": "Run tests",
            "tool_kind": "execute",
            "status": status,
            "raw_input": {"command": "pytest"},
            "raw_output": output,
            "content": [{"type": "text", "text": "3 passed"}],
            "is_error": status == "failed",
        }

    events = [acp("pending"), acp("in_progress"), acp("completed")]
    reader = OpenHandsV1Events("a", "acp.json")
    records, notes = read_bytes(json.dumps(events).encode(), "acp.json", LAYOUT, reader.feed)
    assert [(r.message.kind, r.message.name, r.message.content) for r in records] == [
        (Kind.TOOL_CALL, "execute", ""),
        (Kind.TOOL_RESULT, None, "3 passed"),
    ]
    assert records[0].message.input == {"command": "pytest"}
    assert notes.unpaired_calls == 0
    failed, _ = read_bytes(json.dumps([acp("failed", {"exit": 2})]).encode(), "acp.json", LAYOUT, reader.feed)
    assert (failed[1].message.content, failed[1].message.is_error) == ('{"exit": 2}', True)


def test_a_folder_that_cannot_be_listed_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    with pytest.raises(InvalidMessage) as caught:
        list(conversation_items(missing, LIMIT))
    assert caught.value.where == str(missing)
    assert caught.value.reason.startswith("cannot list the events:")
    assert not is_conversation_folder(missing)
