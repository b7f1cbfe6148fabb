"""The entry point: paths, stdin, format names and all-or-nothing reading."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from summarizer.domain.errors import InvalidMessage
from summarizer.ingest import (
    InputFormat,
    ReadNotes,
    ReadOptions,
    UnknownFormat,
    iter_records,
    parse_format,
    read_records,
)
from tests.unit.ingest.helpers import canonical_line

LIMIT = 1_048_576


def test_parse_format_accepts_each_format_name() -> None:
    assert [
        parse_format(name)
        for name in (
            "auto",
            "canonical",
            "OpenAI",
            "anthropic",
            "responses",
            "ShareGPT",
            "claude-code",
            "Codex",
            "gemini-cli",
            "swe-agent",
            "openhands",
            "opencode",
            "Cline",
            "aider",
            "Copilot",
            "mini-swe-agent",
            "OpenHands-V1",
            "vscode-chat",
            "tau-bench",
        )
    ] == list(InputFormat)


def test_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(
        UnknownFormat, match=r"unknown input format 'claude' \(expected one of: auto, canonical"
    ):
        parse_format("claude")


def test_read_records_names_the_file_in_positions(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(canonical_line() + canonical_line(kind="assistant"))
    records = read_records(path, "canonical", "a", LIMIT)
    assert [r.message.where for r in records] == [f"{path}:1", f"{path}:2"]


def test_dash_reads_stdin_and_names_it_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(("\n" + canonical_line()).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    (record,) = read_records("-", "canonical", "a", LIMIT)
    assert record.message.where == "-:2"


def test_read_records_is_all_or_nothing_when_strict(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(canonical_line() * 3 + canonical_line(kind="usr"))
    result: list[object] = []
    with pytest.raises(InvalidMessage) as caught:
        result = list(read_records(path, "canonical", "a", LIMIT, ReadOptions(strict=True)))
    assert result == []
    assert caught.value.where == f"{path}:4"


def test_iter_records_reads_lazily(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(canonical_line() + canonical_line(kind="usr"))
    records = iter_records(path, "canonical", "a", LIMIT, ReadOptions(strict=True))
    assert next(records).message.content == "hello"
    with pytest.raises(InvalidMessage):
        next(records)


def test_a_line_that_cannot_be_read_is_skipped_counted_and_named(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(
        (canonical_line() + canonical_line(kind="usr") + "{not json\n" + "[1]\n").encode()
        + b"\xff\xfe\n"
        + canonical_line(kind="assistant", content="bye").encode()
    )
    notes = ReadNotes()
    records = read_records(path, "canonical", "a", LIMIT, notes=notes)
    assert [r.message.content for r in records] == ["hello", "bye"]
    assert notes.skipped == 4
    assert [w.split(": ")[0] for w in notes.warnings] == [f"{path}:{n}" for n in (2, 3, 4, 5)]
    assert "unknown kind 'usr'" in notes.warnings[0]
    assert all(w.endswith("; skipped") for w in notes.warnings)


def test_empty_default_agent_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(canonical_line())
    with pytest.raises(InvalidMessage, match=r"default agent \(--agent\) must not be empty"):
        read_records(path, "canonical", " ", LIMIT)
