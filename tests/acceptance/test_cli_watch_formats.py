"""`summarizer watch` names every format it follows and every default folder: in `--format`'s choices, in
its help, and in the message when no folder exists; a format given reads only the files of its kind."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from summarizer.ingest.follow import DOCUMENT_FORMATS, FOLLOWED_FORMATS, read_document, read_new
from summarizer.ingest.log_folders import CLINE_TASKS, DEFAULT_FOLDERS_SHOWN, default_directories
from tests.acceptance.cli import run_cli
from tests.support.corpora import fixture_path

FIXTURES = fixture_path("")
FOLLOWED = {*FOLLOWED_FORMATS, *DOCUMENT_FORMATS}
LIMIT = 1 << 20


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_help_lists_every_followed_format_and_default_folder(tmp_path: Path) -> None:
    done = run_cli("watch", "--help", env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    text = _flat(done.stdout)
    choices = text.split("--format [", 1)[1].split("]", 1)[0].split("|")
    assert set(choices) == {"auto", *FOLLOWED}
    for folder in DEFAULT_FOLDERS_SHOWN:
        assert folder in text, folder
    for agent in ("Claude Code", "Codex", "Gemini CLI", "Copilot", "Cline", "opencode", "OpenHands", "aider"):
        assert agent in text, agent


def test_no_folder_to_watch_names_every_default_folder(tmp_path: Path) -> None:
    done = run_cli("watch", "--once", env={"HOME": str(tmp_path), "CODEX_HOME": "", "COPILOT_HOME": ""})
    assert done.returncode == 2, done.stderr
    message = _flat(done.stderr)
    assert "no directory to watch" in message
    for folder in DEFAULT_FOLDERS_SHOWN:
        assert folder in message, folder
    assert ".aider.chat.history.md" in message


def test_the_folders_shown_are_the_folders_looked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(variable, raising=False)
    for shown in DEFAULT_FOLDERS_SHOWN:
        if shown.startswith("~/"):
            (tmp_path / shown[2:]).mkdir(parents=True)
    (tmp_path / ".config" / "Code" / "User" / "globalStorage" / CLINE_TASKS).mkdir(parents=True)
    found = default_directories()
    named = {
        f"~/{d.relative_to(tmp_path).as_posix()}" for d in found if not d.as_posix().endswith(CLINE_TASKS)
    }
    assert named == {s for s in DEFAULT_FOLDERS_SHOWN if s.startswith("~/")}
    assert len(found) == len(named) + 1


@pytest.mark.usefixtures("corpora")
def test_a_format_given_reads_the_files_of_its_kind_and_passes_the_others_over(tmp_path: Path) -> None:
    lines = tmp_path / "session.jsonl"
    shutil.copy(FIXTURES / "copilot" / "session.jsonl", lines)
    history = tmp_path / ".aider.chat.history.md"
    shutil.copy(FIXTURES / "aider" / ".aider.chat.history.md", history)
    assert read_new(lines, None, fmt="copilot", max_bytes=LIMIT).records
    assert read_document(history, None, fmt="aider", max_bytes=LIMIT).records
    for fmt in sorted(FOLLOWED - set(FOLLOWED_FORMATS)):
        passed = read_new(lines, None, fmt=fmt, max_bytes=LIMIT)
        assert (passed.records, passed.position, passed.problem) == ([], None, None), fmt
    for fmt in sorted(FOLLOWED - set(DOCUMENT_FORMATS)):
        passed = read_document(history, None, fmt=fmt, max_bytes=LIMIT)
        assert (passed.records, passed.position, passed.problem) == ([], None, None), fmt


@pytest.mark.usefixtures("corpora")
def test_vs_code_copilot_transcripts_are_followed_where_vs_code_writes_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    desktop, server = tmp_path / ".config" / "Code" / "User", tmp_path / ".vscode-server" / "data" / "User"
    workspace = desktop / "workspaceStorage" / "5f3e0c1a" / "GitHub.copilot-chat" / "transcripts"
    user_level = server / "GitHub.copilot-chat" / "transcripts"
    (desktop / "workspaceStorage" / "no-copilot-here").mkdir(parents=True)
    for folder in (workspace, user_level):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(variable, raising=False)
    assert default_directories() == [workspace, user_level]
    shutil.copy(FIXTURES / "copilot" / "session.jsonl", workspace / "session.jsonl")
    env = {"HOME": str(tmp_path), "SUMMARIZER_DATABASE_URL": f"sqlite:///{tmp_path / 'watch.db'}"}
    assert run_cli("db", "upgrade", env=env).returncode == 0
    done = run_cli("watch", "--once", env=env)
    assert done.returncode == 0, done.stderr
    assert f"{workspace / 'session.jsonl'}: stored 37 message(s)" in done.stdout
