"""`--format opencode`: opencode session exports (`opencode export SESSION`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.formats.base import LogFormat, items_reader
from summarizer.ingest.opencode import LAYOUT, OpencodeSession


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    messages = value.get("messages")
    if isinstance(value.get("info"), Mapping) and isinstance(messages, list):
        first = messages[0] if messages else None
        if first is None or (isinstance(first, Mapping) and "parts" in first and "info" in first):
            return "an opencode session export (info and messages with parts)"
    return None


FORMAT = LogFormat(
    name="opencode",
    title="opencode",
    read=items_reader(LAYOUT, lambda agent, _label: OpencodeSession(agent).feed),
    detect=_detect,
    document=True,
)
