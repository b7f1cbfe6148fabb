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


def default_directories() -> list[Path]:
    """Where the coding agents keep their logs, those that exist: Claude Code, Codex CLI ($CODEX_HOME),
    Gemini CLI, GitHub Copilot CLI ($COPILOT_HOME) and Cline (in the global storage of VS Code and its
    forks, on Linux and macOS). aider has no folder of its own (AIDER_NOTE)."""
    home = Path(os.path.expanduser("~"))
    codex = Path(os.environ.get("CODEX_HOME", home / ".codex")) / "sessions"
    copilot = Path(os.environ.get("COPILOT_HOME", home / ".copilot")) / "session-state"
    configs = (home / ".config", home / "Library" / "Application Support")
    users = [c / editor / "User" for c in configs for editor in EDITORS]
    users += [home / server / "data" / "User" for server in (".vscode-server", ".vscode-server-insiders")]
    cline = [c / editor / "User" / "globalStorage" / CLINE_TASKS for c in configs for editor in EDITORS]
    candidates = [home / ".claude" / "projects", codex, home / ".gemini" / "tmp", copilot, *cline]
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
