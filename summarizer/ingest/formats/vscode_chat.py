"""`--format vscode-chat`: VS Code Copilot Chat sessions (`chatSessions/*.json`, their `.jsonl` change
log, and what "Chat: Export Session" writes)."""

from __future__ import annotations

from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.vscode_chat import detect_vscode_chat, large_vscode_chat
from summarizer.ingest.vscode_chat_log import read_vscode_chat

FORMAT = LogFormat(
    name="vscode-chat",
    title="VS Code chat",
    read=read_vscode_chat,
    detect=detect_vscode_chat,
    large_document=large_vscode_chat,
    document=True,
)
