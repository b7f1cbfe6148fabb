"""Where the coding agents keep their logs: the folders `summarizer watch` follows when none is named."""

from __future__ import annotations

import os
from pathlib import Path

from summarizer.ingest.aider import HISTORY_NAME as AIDER_HISTORY

CLINE_TASKS = "saoudrizwan.claude-dev/tasks"
COPILOT_TRANSCRIPTS = "GitHub.copilot-chat/transcripts"
"""Where VS Code's Copilot Chat agent writes its event-stream transcripts (the Copilot CLI's events), in the
user data folder and in each workspace's storage folder."""
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""The VS Code family, whose global storage holds Cline's task folder."""
DEFAULT_FOLDERS_SHOWN = (
    "~/.claude/projects",
    "~/.codex/sessions",
    "~/.gemini/tmp",
    "~/.copilot/session-state",
    "Cline's task folder in VS Code or a fork",
    f"VS Code's Copilot Chat transcripts ({COPILOT_TRANSCRIPTS})",
)
"""The default folders as a user reads them (in help and messages), in the order they are looked for."""
AIDER_NOTE = f"aider keeps {AIDER_HISTORY} in each project's root: name the file or the project folder"


AGENT_HOMES = {
    "claude-code": ("CLAUDE_CONFIG_DIR", ".claude", "projects"),
    "codex": ("CODEX_HOME", ".codex", "sessions"),
    "gemini-cli": (None, ".gemini", "tmp"),
    "copilot": ("COPILOT_HOME", ".copilot", "session-state"),
}
"""Each agent's home (the variable that moves it, and its folder in the user's home) and the folder in it
that holds its logs."""


def agent_folder(agent: str) -> Path:
    """Where `agent` (a key of AGENT_HOMES) keeps its logs, whether or not the folder exists: under the
    folder its variable names ($CLAUDE_CONFIG_DIR, $CODEX_HOME, $COPILOT_HOME), or under the user's home
    when the variable is unset or empty."""
    variable, home_name, logs = AGENT_HOMES[agent]
    moved = os.environ.get(variable, "") if variable else ""
    home = Path(moved) if moved else Path(os.path.expanduser("~")) / home_name
    return home / logs


def default_directories() -> list[Path]:
    """Where the coding agents keep their logs, those that exist: Claude Code ($CLAUDE_CONFIG_DIR), Codex
    CLI ($CODEX_HOME), Gemini CLI, GitHub Copilot CLI ($COPILOT_HOME) and Cline (in the global storage of
    VS Code and its forks, on Linux and macOS). aider has no folder of its own (AIDER_NOTE)."""
    home = Path(os.path.expanduser("~"))
    configs = (home / ".config", home / "Library" / "Application Support")
    users = [c / editor / "User" for c in configs for editor in EDITORS]
    users += [home / server / "data" / "User" for server in (".vscode-server", ".vscode-server-insiders")]
    cline = [c / editor / "User" / "globalStorage" / CLINE_TASKS for c in configs for editor in EDITORS]
    candidates = [*(agent_folder(agent) for agent in AGENT_HOMES), *cline]
    return [d for d in candidates if d.is_dir()] + vscode_transcript_folders(users)


def vscode_transcript_folders(users: list[Path]) -> list[Path]:
    """The Copilot Chat transcript folders of VS Code's user data folders (desktop and VS Code Server):
    the user-level one and each workspace's, those that exist when `watch` starts. An unreadable
    workspace storage folder is passed over."""
    found: list[Path] = []
    for user in users:
        if (user / COPILOT_TRANSCRIPTS).is_dir():
            found.append(user / COPILOT_TRANSCRIPTS)
        try:
            found.extend(
                sorted(p for p in (user / "workspaceStorage").glob(f"*/{COPILOT_TRANSCRIPTS}") if p.is_dir())
            )
        except OSError:
            continue
    return found
