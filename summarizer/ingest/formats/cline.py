"""`--format cline`: Cline task histories (`.../saoudrizwan.claude-dev/tasks/<taskId>/api_conversation_history.json`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from summarizer.ingest.cline import LAYOUT, ClineTask, looks_like_cline
from summarizer.ingest.formats.base import LogFormat, items_reader
from summarizer.ingest.formats.vscode import global_storage_folders

TASKS = "saoudrizwan.claude-dev/tasks"
"""Cline's task folder in the global storage of VS Code and its forks."""
HISTORY_NAME = "api_conversation_history.json"


def _detect(value: Any) -> str | None:
    first = value[0] if isinstance(value, list) and value else None
    if isinstance(first, Mapping) and "role" in first and looks_like_cline(value):
        return "a Cline task history (<task>, <environment_details>, Result: texts)"
    return None


def _history(path: Path, _head: bytes) -> bool:
    return path.name == HISTORY_NAME


def _task_folders() -> list[Path]:
    return [d for d in global_storage_folders(TASKS) if d.is_dir()]


def _in_task_folder(name: str) -> bool:
    return name == HISTORY_NAME


FORMAT = LogFormat(
    name="cline",
    title="Cline",
    read=items_reader(LAYOUT, lambda agent, label: ClineTask(agent, label).feed),
    detect=_detect,
    document=True,
    large_document=_history,
    more_folders=_task_folders,
    more_folders_shown="Cline's task folder in VS Code or a fork",
    session_files=_in_task_folder,
)
