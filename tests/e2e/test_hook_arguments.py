"""`summarizer hook` as a real process with arguments a settings file could hold by mistake: a bad option
on the hook group itself, no hook named, a hook that does not exist, a bad option or argument to each hook.
Every one exits 1 with one line on stderr (exit status 2 would block Claude Code and Gemini CLI), and the
event JSON on stdin is held to the bounds of every JSON the project reads, each refusal one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.services import ROOT

pytestmark = pytest.mark.slow

HOOKS = ("claude-code", "gemini-cli", "codex")
BAD_ARGUMENTS = [
    ["--bogus"],
    ["--bogus", "claude-code"],
    ["-x", "gemini-cli"],
    ["--per", "project", "claude-code"],  # an option of the hooks, given to the group
    [],
    ["bogus"],
    ["Claude-Code"],
    *[[name, "--bogus"] for name in HOOKS],
    *[[name, "--per", "nonsense"] for name in HOOKS],
    *[[name, "--per"] for name in HOOKS],
    ["claude-code", "extra"],
    ["gemini-cli", "extra"],
    ["codex", "{}", "extra"],
]


def _hook(tmp_path: Path, args: list[str], stdin: bytes = b"{}") -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMARIZER_")}
    env |= {
        "HOME": str(tmp_path / "home"),
        "CODEX_HOME": "",
        "SUMMARIZER_DATABASE_URL": f"sqlite:///{(tmp_path / 'hooks.db').as_posix()}",
    }
    return subprocess.run(
        [sys.executable, "-m", "summarizer", "hook", *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def _one_line(done: subprocess.CompletedProcess[bytes]) -> str:
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, (done.returncode, stderr)
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("summarizer hook: "), stderr
    return lines[0]


@pytest.mark.parametrize("args", BAD_ARGUMENTS, ids=lambda a: " ".join(a) or "(none)")
def test_bad_arguments_never_block_the_agent(tmp_path: Path, args: list[str]) -> None:
    line = _one_line(_hook(tmp_path, args))
    assert not (tmp_path / "hooks.db").exists()  # refused before anything was opened
    if not args:
        assert all(name in line for name in HOOKS), line


def test_help_still_answers(tmp_path: Path) -> None:
    for args in (["--help"], ["claude-code", "--help"]):
        done = _hook(tmp_path, args)
        assert done.returncode == 0, done.stderr
        assert b"summarizer hook" in done.stdout.split(b"\n")[0]


HOSTILE_EVENTS = {
    b'{"hook_event_name": "Stop", "n": ' + b"7" * 5000 + b"}": "an integer of more than 4300 digits (5000)",
    b"[" * 100_000 + b"]" * 100_000: "nested deeper than 100 levels",
    b'{"hook_event_name": "Stop", "x": ' + b"[" * 150 + b"]" * 150 + b"}": "nested deeper than 100 levels",
}


@pytest.mark.parametrize("name", ["claude-code", "gemini-cli"])
def test_hostile_event_json_is_one_clear_line(tmp_path: Path, name: str) -> None:
    for stdin, reason in HOSTILE_EVENTS.items():
        line = _one_line(_hook(tmp_path, [name], stdin))
        assert "the event is not JSON that can be read" in line, line
        assert reason in line, line
    payload = json.dumps({"type": "agent-turn-complete", "n": int("7" * 4000)})[:-1] + "7" * 1000 + "}"
    line = _one_line(_hook(tmp_path, ["codex", payload]))
    assert "an integer of more than 4300 digits" in line, line
