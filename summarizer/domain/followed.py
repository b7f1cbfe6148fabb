"""Where a followed agent log has been recorded up to (`summarizer watch`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class FilePosition:
    """A file's format, its identity when read (device:inode, `LENGTH:HASH` of its first bytes), the byte
    offset up to which its lines are recorded, and the reader's state there."""

    format: str
    file_id: str
    head: str
    offset: int
    state: Mapping[str, Any] = field(default_factory=dict)
