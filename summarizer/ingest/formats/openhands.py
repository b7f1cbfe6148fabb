"""`--format openhands`: OpenHands trajectories (the JSON array of a session's events)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.formats.base import LogFormat, items_reader
from summarizer.ingest.openhands import LAYOUT, OpenHandsEvents


def _detect(value: Any) -> str | None:
    first = value[0] if isinstance(value, list) and value else None
    if isinstance(first, Mapping) and "source" in first and ("action" in first or "observation" in first):
        return "an OpenHands event stream (source with action or observation)"
    return None


FORMAT = LogFormat(
    name="openhands",
    title="OpenHands",
    read=items_reader(LAYOUT, lambda agent, label: OpenHandsEvents(agent, label).feed),
    detect=_detect,
    document=True,
)
