"""`--format auto`: each real fixture (sources in their READMEs) is detected as its format; what no format
matches is refused with the formats tried and the nearest miss; a log still being written (an unterminated
last line) is read up to its last complete line."""

from __future__ import annotations

import io

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import ReadNotes, ReadOptions
from summarizer.ingest.detect import UndetectedFormat, detect
from summarizer.ingest.reader import iter_stream_records, read_records
from tests.support.corpora import fixture_path

FIXTURES = fixture_path("")
REAL = {
    "claude_code/compact_after_rewind.jsonl": "claude-code",
    "claude_code/sidechain_integrated.jsonl": "claude-code",
    "sharegpt/glaive_toolcall_en_demo.json": "sharegpt",
    "tau_bench_airline.jsonl": "canonical",
    "responses/reasoning_response.json": "responses",
    "responses/weather_function_call.jsonl": "responses",
    "codex/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl": "codex",
    "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": "codex",
    "swe_agent/6e44b9__sweagenttestrepo-1c2844.traj": "swe-agent",
    "swe_agent/swe-agent__test-repo-i1.traj": "swe-agent",
    "openhands/basic.json": "openhands",
    "openhands/basic_interactions.json": "openhands",
    "gemini_cli/gemini-cli-pomodoro-timer.json": "gemini-cli",
    "gemini_cli/control_pro_run4_abandoned.json": "gemini-cli",
    "opencode/session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json": "opencode",
    "opencode/session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json": "opencode",
}


@pytest.mark.usefixtures("corpora")
@pytest.mark.parametrize(("name", "expected"), sorted(REAL.items()))
def test_each_real_fixture_is_detected_as_its_format(name: str, expected: str) -> None:
    path = FIXTURES / name
    assert detect(path.read_bytes()[: 1 << 20], name).format == expected
    notes = ReadNotes()
    auto = read_records(path, "auto", "agent", 1_000_000, notes=notes)
    explicit = read_records(path, expected, "agent", 1_000_000)
    assert notes.detected.startswith(expected)
    assert [(r.agent_id, r.message) for r in auto] == [(r.agent_id, r.message) for r in explicit]
    assert auto


@pytest.mark.parametrize(
    ("head", "says"),
    [
        (b'{"foo": 1, "bar": 2}\n', "keys bar, foo"),
        (b"not json at all\n", "neither JSON nor JSON Lines"),
        (b"", "empty"),
        (b"[1, 2, 3]", "not chat messages"),
    ],
)
def test_what_no_format_matches_is_refused_with_the_formats_tried(head: bytes, says: str) -> None:
    with pytest.raises(UndetectedFormat) as info:
        detect(head, "log.jsonl")
    assert says in str(info.value)
    assert str(info.value).startswith("log.jsonl: ")
    with pytest.raises(InvalidMessage) as failed:
        list(iter_stream_records(io.BytesIO(head), "log.jsonl", "auto", "a", 1_000_000))
    assert says in str(failed.value)


@pytest.mark.usefixtures("corpora")
def test_an_unterminated_last_line_is_a_log_still_being_written() -> None:
    lines = (FIXTURES / "claude_code/compact_after_rewind.jsonl").read_bytes().splitlines(keepends=True)
    whole = read_records(FIXTURES / "claude_code/compact_after_rewind.jsonl", "claude-code", None, 1_000_000)
    cut = b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2].rstrip(b"\n")
    notes = ReadNotes()
    records = list(iter_stream_records(io.BytesIO(cut), "live.jsonl", "auto", None, 1_000_000, notes=notes))
    assert notes.partial_lines == 1
    assert len(records) <= len(whole)

    def shown(rs: list) -> list:  # type: ignore[type-arg]
        return [(r.agent_id, r.message.kind, r.message.content, r.message.created_at) for r in rs]

    assert shown(records) == shown(whole[: len(records)])
    broken_inside = b'{"kind": "user", "content": "a"}\n{"kind": \n{"kind": "user", "content": "b"}\n'
    strict = ReadOptions(strict=True)
    with pytest.raises(InvalidMessage) as info:
        list(iter_stream_records(io.BytesIO(broken_inside), "bad.jsonl", "auto", "a", 1_000_000, strict))
    assert "bad.jsonl:2" in str(info.value)  # a broken line that is not the last is an error when strict
    notes = ReadNotes()
    kept = list(
        iter_stream_records(io.BytesIO(broken_inside), "bad.jsonl", "auto", "a", 1_000_000, notes=notes)
    )
    assert [r.message.content for r in kept] == ["a", "b"]  # and otherwise skipped and named
    assert notes.partial_lines == 0
    assert notes.warnings[0].startswith("bad.jsonl:2: ")


# The response example of Anthropic's Messages API reference (POST /v1/messages, a tool_use answer), and a
# Responses `message` item as the OpenAI reference shows it: both have type "message" and a role.
ANTHROPIC_RESPONSE = (
    b'{"id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",'
    b' "content": [{"type": "text", "text": "I will check the weather."}, {"type": "tool_use",'
    b' "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"location": "Paris"}}],'
    b' "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 472, "output_tokens": 89}}'
)
RESPONSES_MESSAGE = (
    b'{"type": "message", "id": "msg_67b73f697ba4819183a15cc17d011509", "status": "completed",'
    b' "role": "assistant", "content": [{"type": "output_text", "text": "Hi there.", "annotations": []}]}'
)


def test_an_anthropic_response_object_is_anthropic_and_a_responses_message_item_is_responses() -> None:
    assert detect(ANTHROPIC_RESPONSE, "r.json").format == "anthropic"
    assert detect(RESPONSES_MESSAGE, "m.json").format == "responses"
    notes = ReadNotes()
    records = list(
        iter_stream_records(io.BytesIO(ANTHROPIC_RESPONSE), "r.json", "auto", "bot", 10**6, notes=notes)
    )
    assert [(r.message.kind.value, r.message.name) for r in records] == [
        ("assistant", None),
        ("tool_call", "get_weather"),
    ]
    assert notes.detected.startswith("anthropic")


def test_a_refusal_names_every_importable_format() -> None:
    with pytest.raises(UndetectedFormat) as info:
        detect(b'{"foo": 1}', "x.json")
    for name in (
        "claude-code",
        "codex",
        "gemini-cli",
        "opencode",
        "openhands",
        "swe-agent",
        "cline",
        "responses",
    ):
        assert name in str(info.value)
