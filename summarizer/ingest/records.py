"""What every input parser hands to the store: a message and the agent it belongs to."""

from __future__ import annotations

from dataclasses import dataclass

from summarizer.domain.messages import NewMessage


@dataclass(frozen=True, slots=True)
class IngestRecord:
    """One parsed message; the agent id travels beside the message because one input may mix agents."""

    agent_id: str
    message: NewMessage
