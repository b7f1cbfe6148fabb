"""`summarizer watch` with no directory: the agents' own log folders under the home, those that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.ingest.follow import default_directories


def test_the_default_directories_are_the_agents_log_folders_that_exist(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert default_directories() == []
    made = [
        tmp_path / ".claude" / "projects",
        tmp_path / ".codex" / "sessions",
        tmp_path / ".gemini" / "tmp",
        tmp_path / ".config" / "Cursor" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks",
        tmp_path
        / "Library"
        / "Application Support"
        / "Code"
        / "User"
        / "globalStorage"
        / "saoudrizwan.claude-dev"
        / "tasks",
    ]
    for directory in made:
        directory.mkdir(parents=True)
    assert sorted(default_directories()) == sorted(made)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere"))
    assert tmp_path / ".codex" / "sessions" not in default_directories()


def test_vscode_chat_session_folders_of_each_workspace_are_followed_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    user = tmp_path / ".config" / "Code" / "User"
    sessions = [user / "workspaceStorage" / w / "chatSessions" for w in ("a1", "b2")]
    empty_window = user / "globalStorage" / "emptyWindowChatSessions"
    for folder in (*sessions, empty_window, user / "workspaceStorage" / "c3"):
        folder.mkdir(parents=True)
    assert sorted(default_directories()) == sorted([*sessions, empty_window])
