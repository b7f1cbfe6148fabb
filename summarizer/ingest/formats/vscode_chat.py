"""`--format vscode-chat`: VS Code Copilot Chat sessions (`chatSessions/*.json`, their `.jsonl` change
log, and what "Chat: Export Session" writes). `watch` with no folder named follows each workspace's
`chatSessions` folder (and the empty window's) in the user data folders of the VS Code family."""

from __future__ import annotations

from pathlib import Path

from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.formats.vscode import editor_folders, user_folders
from summarizer.ingest.vscode_chat import SESSIONS_FOLDER, detect_vscode_chat, large_vscode_chat
from summarizer.ingest.vscode_chat_log import read_vscode_chat


def session_folders(users: list[Path]) -> list[Path]:
    """The chat session folders of VS Code's user data folders that exist: the empty window's
    (`globalStorage/emptyWindowChatSessions`) and each workspace's (`workspaceStorage/*/chatSessions`).
    An unreadable workspace storage folder is passed over."""
    return editor_folders(users, "globalStorage/emptyWindowChatSessions", SESSIONS_FOLDER)


FORMAT = LogFormat(
    name="vscode-chat",
    title="VS Code chat",
    read=read_vscode_chat,
    detect=detect_vscode_chat,
    large_document=large_vscode_chat,
    document=True,
    more_folders=lambda: session_folders(user_folders()),
    more_folders_shown=f"VS Code's Copilot Chat sessions (workspaceStorage/*/{SESSIONS_FOLDER})",
)
