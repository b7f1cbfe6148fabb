"""The bundled sample conversation, for demos, docs and tests that need realistic volume.

Only the finished file ships; its generator is a developer tool (`python -m tools.samples`).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

SAMPLE_NAME = "coding_agent.jsonl"
SAMPLE_AGENT = "demo-agent"


def sample_path() -> Path:
    """Where the shipped sample lives: package data next to this module, also inside an installed wheel."""
    return Path(str(files("summarizer.samples") / SAMPLE_NAME))
