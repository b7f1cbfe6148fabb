"""The agents' log folders are defined once: the folders `watch` follows when none is named are the ones
the hooks may read, with $CLAUDE_CONFIG_DIR, $CODEX_HOME and $COPILOT_HOME honoured the same way (an
empty one counts as unset)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from summarizer.cli.commands_hook import agent_log_folders
from summarizer.ingest.log_folders import AGENT_HOMES, agent_folder, default_directories

MOVABLE = {"claude-code": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME", "copilot": "COPILOT_HOME"}
HOOKED = ("claude-code", "codex", "gemini-cli")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for variable in MOVABLE.values():
        monkeypatch.delenv(variable, raising=False)
    for agent in AGENT_HOMES:
        agent_folder(agent).mkdir(parents=True)
    return home


def _hook_folder(agent: str) -> Path:
    return agent_log_folders(agent, "")[0]


def test_unset_or_empty_variables_mean_the_folders_under_the_home(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = {
        "claude-code": home / ".claude" / "projects",
        "codex": home / ".codex" / "sessions",
        "gemini-cli": home / ".gemini" / "tmp",
        "copilot": home / ".copilot" / "session-state",
    }
    assert {agent: agent_folder(agent) for agent in AGENT_HOMES} == expected
    for variable in MOVABLE.values():
        monkeypatch.setenv(variable, "")  # set, but empty: as if unset (not the relative folder "sessions")
    assert {agent: agent_folder(agent) for agent in AGENT_HOMES} == expected
    assert default_directories() == list(expected.values())
    for agent in HOOKED:
        assert _hook_folder(agent) == expected[agent]


def test_a_variable_moves_the_folder_for_watch_and_the_hooks_alike(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for agent, variable in MOVABLE.items():
        moved = tmp_path / f"moved-{agent}"
        monkeypatch.setenv(variable, str(moved))
        logs = moved / AGENT_HOMES[agent][2]
        logs.mkdir(parents=True)
        assert agent_folder(agent) == logs
        assert logs in default_directories()
        assert home / AGENT_HOMES[agent][1] / AGENT_HOMES[agent][2] not in default_directories()
        if agent in HOOKED:
            assert _hook_folder(agent) == logs


def test_the_hooks_add_the_configured_folders_after_the_agents_own(home: Path, tmp_path: Path) -> None:
    extra = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    assert agent_log_folders("codex", extra) == [home / ".codex" / "sessions", tmp_path / "a", tmp_path / "b"]
