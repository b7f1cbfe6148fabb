"""The user data folders of VS Code and its forks, where extensions keep their agents' logs."""

from __future__ import annotations

import os
from pathlib import Path

EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""The VS Code family."""


def _configs() -> tuple[Path, ...]:
    home = Path(os.path.expanduser("~"))
    return home / ".config", home / "Library" / "Application Support"


def global_storage_folders(extension_folder: str) -> list[Path]:
    """An extension's folder (`publisher.name/...`) in the global storage of each editor of the family,
    on Linux and macOS, whether or not it exists."""
    return [
        c / editor / "User" / "globalStorage" / extension_folder for c in _configs() for editor in EDITORS
    ]


def user_folders() -> list[Path]:
    """The user data folders of the family's desktop editors and of VS Code Server, whether or not they
    exist."""
    home = Path(os.path.expanduser("~"))
    users = [c / editor / "User" for c in _configs() for editor in EDITORS]
    return users + [
        home / server / "data" / "User" for server in (".vscode-server", ".vscode-server-insiders")
    ]


def editor_folders(users: list[Path], user_folder: str, workspace_folder: str) -> list[Path]:
    """Those that exist of, for each user data folder in `users`, `user_folder` in it, then
    `workspace_folder` in the storage of each of its workspaces (none when that storage cannot be read)."""
    found: list[Path] = []
    for user in users:
        if (user / user_folder).is_dir():
            found.append(user / user_folder)
        try:
            found.extend(
                sorted(p for p in (user / "workspaceStorage").glob(f"*/{workspace_folder}") if p.is_dir())
            )
        except OSError:
            continue
    return found
