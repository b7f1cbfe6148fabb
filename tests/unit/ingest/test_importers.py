"""Claude Code, Responses and ShareGPT importers: the public fixtures and the rules each format needs."""

from __future__ import annotations

import io
import json

import pytest

from summarizer.domain.kinds import Kind
from summarizer.ingest import IngestRecord, ReadNotes, ReadOptions, Sidechains, iter_stream_records
from tests.support.corpora import fixture_path
from tests.unit.ingest.helpers import failure, jsonl, parse

FIXTURES = fixture_path("")


def _event(kind: str, content: object, uuid: str, **extra: object) -> dict[str, object]:
    return {
        "type": kind,
        "sessionId": "s",
        "uuid": uuid,
        "isSidechain": False,
        "timestamp": "2025-01-01T10:00:00Z",
        "message": {"role": kind, "content": content},
        **extra,
    }


@pytest.mark.usefixtures("corpora")
def test_claude_code_fixture_keeps_the_main_chain_with_event_ids() -> None:
    text = (FIXTURES / "claude_code" / "sidechain_integrated.jsonl").read_text(encoding="utf-8")
    records = parse(text, "claude-code", agent=None)
    assert {r.agent_id for r in records} == {"88a8d761-7b9a-4bf1-a8ca-c1febe6bf358"}
    assert [r.message.kind for r in records] == [Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    assert records[0].message.host_id == "83a7cabd-3642-45d6-ba73-9b9f843b9ab1"
    assert records[1].message.tool_call_id == records[0].message.tool_call_id
    assert records[1].message.is_error is None


@pytest.mark.usefixtures("corpora")
def test_claude_code_sidechains_can_be_kept_as_their_own_agent() -> None:
    text = (FIXTURES / "claude_code" / "sidechain_integrated.jsonl").read_text(encoding="utf-8")
    records = parse_with(text, "claude-code", ReadOptions(sidechains=Sidechains.AGENT, strict=True))
    side = [
        r for r in records if r.agent_id.endswith("/sidechain-e1c84ba5") or r.agent_id.endswith("/sidechain")
    ]
    assert [r.message.kind for r in side] == [Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_RESULT]
    # Read tolerantly, the result whose call the shortened file lost is kept as tool activity.
    notes = ReadNotes()
    tolerant = list(
        iter_stream_records(
            io.BytesIO(text.encode()),
            "s.jsonl",
            "claude-code",
            None,
            1 << 20,
            ReadOptions(sidechains=Sidechains.AGENT),
            notes,
        )
    )
    side = [r for r in tolerant if "/sidechain" in r.agent_id]
    assert [r.message.kind for r in side] == [Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL]
    assert side[2].message.tool_call_id == side[2].message.tool_call_id != side[1].message.tool_call_id
    assert notes.orphan_results == 1
    assert notes.warnings[0].startswith("s.jsonl:5: tool result for call 'toolu_011V1hetiJ3pC79EoLTY53Ni'")


def test_claude_code_meta_lines_bookkeeping_and_hooks_are_skipped() -> None:
    lines = jsonl(
        {"type": "summary", "summary": "x", "leafUuid": "l"},
        _event("user", "Caveat: injected", "m", isMeta=True),
        {"type": "system", "content": "Running hook", "uuid": "h", "sessionId": "s"},
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
        _event("user", "real question", "u"),
    )
    (record,) = parse(lines, "claude-code", agent=None)
    assert (record.message.kind, record.message.content, record.message.host_id) == (
        Kind.USER,
        "real question",
        "u",
    )


def test_claude_code_clear_and_the_compaction_boundary_clear_and_commands_do_not() -> None:
    """A manual `/compact` writes its boundary (a clear), the compaction summary, then the command's lines:
    those are a `command`, so the summary the compaction left stays in the window."""
    lines = jsonl(
        _event("user", "<command-name>/clear</command-name>\n<command-message>clear</command-message>", "c1"),
        {"type": "system", "subtype": "compact_boundary", "uuid": "b", "sessionId": "s", "content": "x"},
        _event("user", "This session is being continued from a previous conversation. Summary: ...", "sum"),
        _event(
            "user", "<command-name>/compact</command-name>\n<command-message>compact</command-message>", "c2"
        ),
        _event("user", "<command-name>/model</command-name>", "c3"),
    )
    kinds = [r.message.kind for r in parse(lines, "claude-code", agent=None)]
    assert kinds == [Kind.CLEAR, Kind.CLEAR, Kind.USER, Kind.COMMAND, Kind.COMMAND]


def test_claude_code_split_assistant_events_keep_their_own_ids_and_parallel_calls_pair() -> None:
    call = {"type": "tool_use", "name": "Read", "input": {}}
    lines = jsonl(
        _event("user", "go", "u"),
        _event("assistant", [{"type": "text", "text": "Reading"}], "a1", message_id="msg_1"),
        _event("assistant", [{**call, "id": "t1"}], "a2"),
        _event("assistant", [{**call, "id": "t2"}], "a3"),
        _event("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "B"}], "r2"),
        _event("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "A"}], "r1"),
    )
    records = parse(lines, "claude-code", agent="cc")
    assert [r.message.host_id for r in records] == ["u", "a1", "a2", "a3", "r2", "r1"]
    assert all(r.agent_id == "cc" for r in records)


def test_claude_code_repeated_tool_id_across_split_events_is_an_error() -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    lines = jsonl(
        _event("user", "go", "u"), _event("assistant", [call], "a1"), _event("assistant", [call], "a2")
    )
    problem = failure(lines, "claude-code", agent=None)
    assert str(problem) == (
        "chat.jsonl:3: tool call id 't1' is used twice in one exchange before the first call was answered"
    )


def test_a_call_id_used_again_after_its_result_is_a_new_call() -> None:
    """tau-bench GPT-4o trajectories and SWE-agent replays reuse an id once its call was answered."""
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "A"}
    lines = jsonl(
        _event("user", "go", "u"),
        _event("assistant", [call], "a1"),
        _event("user", [result], "r1"),
        _event("assistant", [call], "a2"),
        _event("user", [{**result, "content": "B"}], "r2"),
    )
    records = parse(lines, "claude-code", agent="cc")
    assert [r.message.host_id for r in records] == ["u", "a1", "r1", "a2", "r2"]


def test_claude_code_event_without_session_or_agent_is_refused() -> None:
    event = _event("user", "hi", "u")
    del event["sessionId"]
    assert str(failure(jsonl(event), "claude-code", agent=None)) == (
        "chat.jsonl:1: no agent: the event has no 'sessionId'; pass --agent"
    )


@pytest.mark.usefixtures("corpora")
def test_responses_fixture_response_keeps_the_message_and_leaves_out_reasoning() -> None:
    text = (FIXTURES / "responses" / "reasoning_response.json").read_text(encoding="utf-8")
    (record,) = parse(text, "responses", agent="joke")
    assert record.message.kind is Kind.ASSISTANT
    assert (
        record.message.content == "Why don\u2019t scientists trust atoms?  \nBecause they make up everything!"
    )
    assert record.message.host_id == "msg_6820f3854688819187769ff582b170a60ac5ba57aafcbac7"


@pytest.mark.usefixtures("corpora")
def test_responses_fixture_items_pair_the_function_call_with_its_output() -> None:
    text = (FIXTURES / "responses" / "weather_function_call.jsonl").read_text(encoding="utf-8")
    records = parse(text, "responses", agent="w")
    assert [r.message.kind for r in records] == [Kind.USER, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.ASSISTANT]
    call, result = records[1].message, records[2].message
    assert call.input == {"latitude": 48.8566, "longitude": 2.3522}
    assert call.host_id == "fc_68210c78357c8191977197499d5de6ca00c77cc15fd2f785"
    assert result.tool_call_id == call.tool_call_id == "call_9ylqPOZUyFEwhxvBwgpNDqPT"
    assert all(r.message.host_id for r in records)  # derived where the item has no id


def test_responses_function_call_arguments_given_as_an_object_are_accepted() -> None:
    # Some OpenAI-compatible gateways answer with `arguments` as a JSON object instead of a string.
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "calculate"}
    (record,) = parse(jsonl({**item, "arguments": {"expression": "25*4"}}), "responses", agent="g")
    assert record.message.input == {"expression": "25*4"}
    assert record.message.host_id == "fc_1"


def test_responses_reasoning_is_left_out_and_built_in_tools_are_tool_activity() -> None:
    body = {
        "instructions": "Be brief.",
        "input": "What's new?",
    }
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "think"}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "news"}},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Here."}]},
    ]
    records = parse(json.dumps(body), "responses", agent="r") + parse(jsonl(*items), "responses", agent="r")
    assert [r.message.kind for r in records] == [Kind.SYSTEM, Kind.USER, Kind.TOOL, Kind.ASSISTANT]
    assert records[2].message.name == "web_search_call"


def test_responses_unknown_item_type_is_named() -> None:
    problem = failure(jsonl({"type": "telepathy"}), "responses")
    assert str(problem).startswith("chat.jsonl:1: unknown item type 'telepathy' (expected one of: message,")


@pytest.mark.usefixtures("corpora")
def test_sharegpt_fixture_pairs_calls_and_observations() -> None:
    text = (FIXTURES / "sharegpt" / "glaive_toolcall_en_demo.json").read_text(encoding="utf-8")
    records = parse(text, "sharegpt", agent="g")
    assert {r.agent_id for r in records} == {"g/1"}
    calls = [r.message for r in records if r.message.kind is Kind.TOOL_CALL]
    results = [r.message for r in records if r.message.kind is Kind.TOOL_RESULT]
    assert (
        [c.tool_call_id for c in calls] == [r.tool_call_id for r in results] == ["call_1", "call_2", "call_3"]
    )
    assert calls[1].input == {"shape": "circle", "dimensions": [4]}


def test_sharegpt_hermes_tool_call_tags_and_parallel_calls() -> None:
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    conversation = {
        "id": "h7",
        "conversations": [
            {"from": "system", "value": "You are a function calling AI model."},
            {"from": "human", "value": "do it twice"},
            {"from": "gpt", "value": call + "\n" + call.replace("1", "2")},
            {
                "from": "tool",
                "value": "<tool_response>\none\n</tool_response>\n<tool_response>two</tool_response>",
            },
            {"from": "gpt", "value": "Done."},
        ],
    }
    records = parse(jsonl(conversation), "sharegpt", agent=None)
    assert {r.agent_id for r in records} == {"sharegpt/h7"}
    kinds = [r.message.kind for r in records]
    assert kinds == [
        Kind.SYSTEM,
        Kind.USER,
        Kind.TOOL_CALL,
        Kind.TOOL_CALL,
        Kind.TOOL_RESULT,
        Kind.TOOL_RESULT,
        Kind.ASSISTANT,
    ]
    assert [r.message.content for r in records[4:6]] == ["one", "two"]


def test_sharegpt_observation_without_a_call_is_refused() -> None:
    conversation = {
        "conversations": [{"from": "human", "value": "hi"}, {"from": "observation", "value": "{}"}]
    }
    assert str(failure(jsonl(conversation), "sharegpt")) == (
        "chat.jsonl:1: conversations[1]: a function output with no function call before it to answer"
    )


def test_openai_arguments_as_object_are_accepted_and_repeated_call_ids_refused() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    records = parse(jsonl({"role": "assistant", "content": None, "tool_calls": [call]}), "openai")
    assert records[0].message.input == {"a": 1}
    problem = failure(jsonl({"role": "assistant", "content": None, "tool_calls": [call, call]}), "openai")
    assert str(problem) == "chat.jsonl:1: tool call id 'c1' appears twice in one assistant turn"


def test_anthropic_server_tool_blocks_are_tool_activity() -> None:
    blocks = [
        {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "x"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srv1",
            "content": [{"type": "web_search_result", "title": "X", "url": "https://x.test"}],
        },
        {"type": "text", "text": "Found it."},
    ]
    records = parse(jsonl({"role": "assistant", "content": blocks}), "anthropic")
    assert [r.message.kind for r in records] == [Kind.TOOL, Kind.TOOL, Kind.ASSISTANT]
    assert records[1].message.content == "X <https://x.test>"


def test_derived_ids_are_stable_and_depend_on_position() -> None:
    lines = jsonl(
        {"role": "user", "content": "yes"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "yes"},
    )
    first = [r.message.host_id for r in parse(lines, "openai")]
    assert first == [r.message.host_id for r in parse(lines, "openai")]
    assert len(set(first)) == 3


def test_canonical_messages_without_an_id_get_the_same_derived_ids_as_the_other_formats() -> None:
    chat = jsonl({"role": "user", "content": "yes"}, {"role": "assistant", "content": "ok"})
    canonical = jsonl({"kind": "user", "content": "yes"}, {"kind": "assistant", "content": "ok"})
    ids = [r.message.host_id for r in parse(canonical, "canonical")]
    assert ids == [r.message.host_id for r in parse(chat, "openai")]
    assert all(i and i.startswith("~") for i in ids)
    given = parse(jsonl({"kind": "user", "content": "yes", "id": "u1"}), "canonical")
    assert given[0].message.host_id == "u1"


def test_a_timestamp_is_part_of_a_derived_id() -> None:
    def first_id(created_at: str) -> str | None:
        line = jsonl({"kind": "user", "content": "yes", "created_at": created_at})
        return parse(line, "canonical")[0].message.host_id

    assert first_id("2026-01-01T10:00:00Z") == first_id("2026-01-01T11:00:00+01:00")  # the same instant
    assert first_id("2026-01-01T10:00:00Z") != first_id("2026-01-01T10:00:01Z")
    assert (
        first_id("2026-01-01T10:00:00Z")
        != parse(jsonl({"kind": "user", "content": "yes"}), "canonical")[0].message.host_id
    )


def parse_with(text: str, fmt: str, options: ReadOptions) -> list[IngestRecord]:
    return list(iter_stream_records(io.BytesIO(text.encode()), "chat.jsonl", fmt, None, 1 << 20, options))


@pytest.mark.usefixtures("corpora")
def test_claude_code_a_rewind_is_marked_where_the_conversation_goes_back() -> None:
    """The published transcript branches twice from `a1`: the second branch is preceded by a `rewind`
    marker naming its parent, the abandoned first branch stays as it was."""
    text = (FIXTURES / "claude_code" / "compact_after_rewind.jsonl").read_text(encoding="utf-8")
    records = parse(text, "claude-code", agent=None)
    shown = [(r.message.kind, r.message.content) for r in records[:7]]
    assert shown == [
        (Kind.USER, "Start"),
        (Kind.ASSISTANT, "Ready"),
        (Kind.USER, "First attempt"),
        (Kind.ASSISTANT, "First answer"),
        (Kind.REWIND, "continues from a1"),
        (Kind.USER, "Second attempt"),
        (Kind.ASSISTANT, "Second answer"),
    ]
    # After the compaction boundary the chain restarts: no rewind there.
    assert [r.message.kind for r in records].count(Kind.REWIND) == 1


def test_claude_code_a_slash_commands_expanded_prompt_is_the_users_request() -> None:
    command = "<command-message>review is running</command-message>\n<command-name>/review</command-name>"
    lines = jsonl(
        _event("user", command, "c", parentUuid=None),
        _event(
            "user",
            [{"type": "text", "text": "Review PR 42 for security issues."}],
            "x",
            isMeta=True,
            parentUuid="c",
        ),
        _event("assistant", [{"type": "text", "text": "Looking at PR 42."}], "a", parentUuid="x"),
        _event("user", "Caveat: injected", "m", isMeta=True, parentUuid="a"),
    )
    records = parse(lines, "claude-code", agent=None)
    assert [(r.message.kind, r.message.content) for r in records] == [
        (Kind.COMMAND, command),
        (Kind.USER, "Review PR 42 for security issues."),
        (Kind.ASSISTANT, "Looking at PR 42."),
    ]


@pytest.mark.usefixtures("corpora")
def test_claude_code_skipped_sidechains_and_unanswered_calls_are_counted() -> None:
    text = (FIXTURES / "claude_code" / "sidechain_integrated.jsonl").read_text(encoding="utf-8")
    notes = ReadNotes()
    records = list(
        iter_stream_records(io.BytesIO(text.encode()), "t", "claude-code", None, 1_000_000, notes=notes)
    )
    assert len(records) == 3
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    sub_agent = [e for e in events if e.get("isSidechain") is True and e.get("type") in ("user", "assistant")]
    assert notes.sidechains_skipped == len(sub_agent) > 0
    calls = jsonl(
        _event("user", "go", "u1"),
        _event("assistant", [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}], "a1"),
        _event("user", "never mind", "u2"),
    )
    notes = ReadNotes()
    list(iter_stream_records(io.BytesIO(calls.encode()), "t", "claude-code", None, 1_000_000, notes=notes))
    assert notes.unpaired_calls == 1


def test_claude_code_a_reply_written_after_a_later_prompt_is_filed_with_its_own_prompt() -> None:
    """Lines of two branches interleaved: the reply to the first prompt, its tool result and its final
    answer were written after the second prompt. Each is filed by its `parentUuid` in its own exchange;
    the second prompt's time is raised to the reply's and counted."""
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make test"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    lines = jsonl(
        _event("user", "Run the tests", "u1", parentUuid=None, timestamp="2025-01-01T10:00:00Z"),
        _event("assistant", [call], "a1", parentUuid="u1", timestamp="2025-01-01T10:00:01Z"),
        _event("user", "Also lint it", "u2", parentUuid="a1", timestamp="2025-01-01T10:00:02Z"),
        _event("user", [result], "r1", parentUuid="a1", timestamp="2025-01-01T10:00:03Z"),
        _event("assistant", [{"type": "text", "text": "Tests pass."}], "f1", parentUuid="r1"),
        _event("assistant", [{"type": "text", "text": "Lint is clean."}], "f2", parentUuid="u2"),
    )
    notes = ReadNotes()
    records = list(
        iter_stream_records(io.BytesIO(lines.encode()), "s.jsonl", "claude-code", None, 1 << 20, notes=notes)
    )
    shown = [(r.message.kind, r.message.content or r.message.tool_call_id) for r in records]
    assert shown == [
        (Kind.USER, "Run the tests"),
        (Kind.TOOL_CALL, "t1"),
        (Kind.TOOL_RESULT, "ok"),
        (Kind.ASSISTANT, "Tests pass."),
        (Kind.REWIND, "continues from a1"),
        (Kind.USER, "Also lint it"),
        (Kind.ASSISTANT, "Lint is clean."),
    ]
    assert notes.unpaired_calls == 0


@pytest.mark.usefixtures("corpora")
def test_claude_code_a_transcript_in_order_is_read_in_line_order() -> None:
    for name in ("compact_after_rewind.jsonl", "sidechain_integrated.jsonl"):
        text = (FIXTURES / "claude_code" / name).read_text(encoding="utf-8")
        in_order = [json.loads(line)["uuid"] for line in text.splitlines() if '"uuid"' in line]
        records = parse_with(text, "claude-code", ReadOptions(sidechains=Sidechains.AGENT))
        ids = [
            r.message.host_id.split("#")[0]
            for r in records
            if r.message.host_id and "~" not in r.message.host_id
        ]
        assert ids == [u for u in in_order if u in set(ids)]
