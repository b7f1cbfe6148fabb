"""Where the coding agents keep their logs: the folders `summarizer watch` follows when none is named, and
the only ones the hooks read (each format's `home` and `more_folders`)."""

from __future__ import annotations

import os
from pathlib import Path

from summarizer.ingest.formats.base import home_folder
from summarizer.ingest.formats.cline import TASKS as CLINE_TASKS
from summarizer.ingest.formats.registry import LISTED, format_named

__all__ = [
    "AGENT_HOMES",
    "CLINE_TASKS",
    "DEFAULT_FOLDERS_SHOWN",
    "FOLDER_NOTES",
    "agent_folder",
    "default_directories",
]

AGENT_HOMES = {f.name: f.home for f in LISTED if f.home is not None}
"""Each agent's home (the variable that moves it, and its folder in the user's home) and the folder in it
that holds its logs."""
DEFAULT_FOLDERS_SHOWN = (
    *(f"~/{home.folder}/{home.logs}" for home in AGENT_HOMES.values()),
    *(f.more_folders_shown for f in LISTED if f.more_folders is not None),
)
"""The default folders as a user reads them (in help and messages), in the order they are looked for."""
FOLDER_NOTES = "; ".join(f.folder_note for f in LISTED if f.folder_note)
"""Where the logs of the agents with no folder of their own are."""


def agent_folder(agent: str) -> Path:
    """Where `agent` (a key of AGENT_HOMES) keeps its logs, whether or not the folder exists: under the
    folder its variable names ($CLAUDE_CONFIG_DIR, $CODEX_HOME, $COPILOT_HOME), or under the user's home
    when the variable is unset or empty."""
    home = format_named(agent).home
    if home is None:
        raise KeyError(agent)
    return home_folder(home, os.environ, Path(os.path.expanduser("~")))


def default_directories() -> list[Path]:
    """Where the coding agents keep their logs, those that exist: each agent's home folder, then the
    folders found elsewhere (Cline's in the global storage of VS Code and its forks, VS Code's Copilot Chat
    transcripts)."""
    homes = [agent_folder(agent) for agent in AGENT_HOMES]
    more = [d for f in LISTED if f.more_folders is not None for d in f.more_folders()]
    return [d for d in homes if d.is_dir()] + more
