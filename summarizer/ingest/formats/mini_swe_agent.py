"""`--format mini-swe-agent`: mini-swe-agent trajectories (`*.traj.json`: `info` and `messages`)."""

from __future__ import annotations

from summarizer.ingest.formats.base import LogFormat
from summarizer.ingest.mini_swe_agent import detect_mini_swe_agent, large_mini_swe_agent, read_mini_swe_agent

FORMAT = LogFormat(
    name="mini-swe-agent",
    title="mini-swe-agent",
    read=read_mini_swe_agent,
    detect=detect_mini_swe_agent,
    large_document=large_mini_swe_agent,
    document=True,
)
