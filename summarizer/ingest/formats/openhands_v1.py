"""`--format openhands-v1`: OpenHands V1 conversations (the agent SDK's events, kind and source on each)."""

from __future__ import annotations

from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.openhands_v1 import detect_openhands_v1, read_openhands_v1

FORMAT = LogFormat(
    name="openhands-v1",
    title="OpenHands V1",
    read=read_openhands_v1,
    detect=detect_openhands_v1,
    document=True,
)
