"""`--format sharegpt`: `{"conversations": [{"from", "value"}...]}` items, one agent per conversation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.formats.base import LogFormat, conversations_reader
from summarizer.ingest.sharegpt_format import DEFAULT_AGENT, conversation_id, parse_sharegpt


def _detect(value: Any) -> str | None:
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, Mapping) and ("from" in first or "value" in first):
            return "an array of ShareGPT turns"
        if isinstance(first, Mapping) and "conversations" in first:
            return "an array of ShareGPT conversations"
        return None
    if isinstance(value, Mapping) and "conversations" in value:
        return "ShareGPT conversations"
    return None


FORMAT = LogFormat(
    name="sharegpt",
    title="ShareGPT",
    read=conversations_reader(parse_sharegpt, DEFAULT_AGENT, conversation_id),
    detect=_detect,
)
