"""`--format swe-agent`: SWE-agent trajectories (`*.traj`, or a file holding only their `history`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summarizer.ingest.formats.base import LogFormat, items_reader
from summarizer.ingest.swe_agent import LAYOUT, Trajectory


def _detect(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    history = value.get("history")
    if isinstance(value.get("trajectory"), list) and isinstance(history, list):
        return "a SWE-agent trajectory (trajectory and history)"
    if isinstance(history, list) and history and "messages" not in value:
        first = history[0]
        if isinstance(first, Mapping) and isinstance(first.get("role"), str):
            return "a SWE-agent trajectory holding only its history"
    return None


FORMAT = LogFormat(
    name="swe-agent",
    title="SWE-agent",
    read=items_reader(LAYOUT, lambda agent, label: Trajectory(agent, label).feed),
    detect=_detect,
)
