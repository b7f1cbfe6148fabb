"""The registry of input formats is the one list: every format in it can be detected and read, every
format `watch` follows has a line parser, and the CLI's choices and the docs' table name exactly its
formats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest

from summarizer.cli.commands_conversation import ingest
from summarizer.cli.commands_hook import hook
from summarizer.cli.commands_watch import watch
from summarizer.ingest import InputFormat
from summarizer.ingest.detect import detect
from summarizer.ingest.follow import DOCUMENT_FORMATS, FOLLOWED_FORMATS
from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.registry import FORMATS, LISTED, choices, hooked, names
from summarizer.ingest.line_parsers import line_parser

DOCS_TABLE = Path(__file__).resolve().parents[3] / "docs" / "input-formats.md"
TABLE_HEADER = "| `--format` |"

SAMPLES: dict[str, Any] = {
    "codex": {"timestamp": "2025-09-24T20:12:23Z", "type": "session_meta", "payload": {"id": "s-1"}},
    "opencode": {"info": {"id": "ses_1"}, "messages": [{"info": {"role": "user"}, "parts": []}]},
    "swe-agent": {"trajectory": [], "history": [{"role": "system", "content": "You are a helper."}]},
    "gemini-cli": {
        "sessionId": "s-1",
        "projectHash": "abc",
        "startTime": "2025-01-01T00:00:00Z",
        "messages": [],
    },
    "copilot": {"type": "session.start", "data": {"sessionId": "s-1"}, "id": "e-1"},
    "claude-code": {
        "type": "user",
        "sessionId": "s-1",
        "uuid": "u-1",
        "message": {"role": "user", "content": "hi"},
    },
    "openhands": [{"id": 0, "source": "user", "action": "message", "args": {"content": "fix the bug"}}],
    "canonical": {"agent": "a", "kind": "user", "content": "hi"},
    "sharegpt": {"conversations": [{"from": "human", "value": "hi"}]},
    "cline": [{"role": "user", "content": [{"type": "text", "text": "<task>fix the bug</task>"}]}],
    "responses": {"type": "function_call", "call_id": "c-1", "name": "ls", "arguments": "{}"},
    "anthropic": {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]},
    "openai": {"role": "user", "content": "hi"},
    "aider": "# aider chat started at 2025-01-01 10:00:00\n\n#### fix the bug  \n",
    "mini-swe-agent": {
        "info": {"exit_status": "Submitted"},
        "messages": [],
        "trajectory_format": "mini-swe-agent-1",
    },
    "vscode-chat": {
        "version": 3,
        "requesterUsername": "me",
        "responderUsername": "GitHub Copilot",
        "requests": [],
    },
    "tau-bench": [{"task_id": 3, "reward": 1.0, "traj": [{"role": "user", "content": "hi"}]}],
    "openhands-v1": [
        {"kind": "MessageEvent", "source": "user", "id": "e-1", "llm_message": {"role": "user"}}
    ],
}
"""One small hand-written input of each format, in its published shape."""


def _sample(fmt: LogFormat) -> Any:
    assert fmt.name in SAMPLES, f"no sample of {fmt.name!r}: add one to SAMPLES"
    return SAMPLES[fmt.name]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_format_recognises_its_sample_and_has_a_reader(fmt: LogFormat) -> None:
    sample = _sample(fmt)
    assert fmt.detectable, f"{fmt.name} has no detection predicate"
    if isinstance(sample, str):
        assert fmt.detect_text is not None
        assert fmt.detect_text(sample) is not None
        head = sample.encode()
    else:
        assert fmt.detect is not None
        assert fmt.detect(sample) is not None
        head = json.dumps(sample).encode()
    assert detect(head, "sample").format == fmt.name  # and detection, in the registry's order, picks it
    assert callable(fmt.read)


def test_every_sample_is_of_a_listed_format() -> None:
    assert set(SAMPLES) == set(names())


def test_names_and_aliases_are_unique_and_never_auto() -> None:
    every = [n for f in FORMATS for n in (f.name, *f.aliases)]
    assert len(every) == len(set(every))
    assert "auto" not in every
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in every)
    assert sorted(f.name for f in LISTED) == sorted(f.name for f in FORMATS)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f.follow is not None], ids=lambda f: f.name)
def test_every_followed_format_has_a_line_parser(fmt: LogFormat) -> None:
    parser = line_parser(fmt.name, None, {})
    assert parser.pending is False
    assert parser.unknown() == (0, [])
    assert isinstance(parser.state(), dict)


def test_watch_follows_exactly_the_formats_with_a_line_parser_or_read_whole() -> None:
    assert set(FOLLOWED_FORMATS) == {f.name for f in FORMATS if f.follow is not None}
    assert set(DOCUMENT_FORMATS) == {f.name for f in FORMATS if f.document}
    unfollowed = next(f.name for f in FORMATS if f.follow is None)
    with pytest.raises(ValueError, match="not a log format that can be followed line by line"):
        line_parser(unfollowed, None, {})
    assert set(_choices(watch)) == {"auto", *FOLLOWED_FORMATS, *DOCUMENT_FORMATS}


def _choices(command: click.Command) -> list[str]:
    option = next(p for p in command.params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    return [str(c) for c in option.type.choices]


def test_the_ingest_format_choices_are_the_registry_names() -> None:
    assert _choices(ingest) == ["auto", *choices()]
    assert set(choices()) == {n for f in FORMATS for n in (f.name, *f.aliases)}
    assert [f.value for f in InputFormat] == ["auto", *names()]


def test_the_hooks_are_the_formats_hooks() -> None:
    ctx = click.Context(hook)
    assert hook.list_commands(ctx) == sorted(hooked())
    for name in hooked():
        command = hook.get_command(ctx, name)
        assert command is not None
        assert command.name == name


def test_the_docs_table_lists_exactly_the_registry_formats() -> None:
    rows = _table(DOCS_TABLE.read_text(encoding="utf-8"))
    assert [name for name, _ in rows] == list(names())
    for name, watched in rows:
        fmt = next(f for f in FORMATS if f.name == name)
        said = [part.strip() for part in watched.split(";") if part.strip()]
        expected = [
            *(["line by line"] if fmt.follow else []),
            *(["whole when rewritten"] if fmt.document else []),
        ]
        assert said == expected, f"{DOCS_TABLE.name}: the row of {name} says watch reads it {watched!r}"


def _table(text: str) -> list[tuple[str, str]]:
    """(`--format` value, how `watch` reads it) of each row of the docs' table of formats."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(TABLE_HEADER))
    rows: list[tuple[str, str]] = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0].strip("`"), cells[-1]))
    return rows
