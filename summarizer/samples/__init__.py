"""The bundled sample conversation, for demos, docs and tests that need realistic volume."""

from __future__ import annotations

from pathlib import Path

SAMPLE_NAME = "coding_agent.jsonl"


def sample_path() -> Path:
    """Where the shipped sample lives; a plain file next to this module, also inside an installed wheel."""
    return Path(__file__).with_name(SAMPLE_NAME)
