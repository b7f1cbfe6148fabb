"""Why an LLM answer was turned away."""

from __future__ import annotations

from summarizer.domain.errors import SummarizerError


class AnswerRejected(SummarizerError):
    """The answer broke the operations contract; nothing of it was applied and the previous summary stands.

    A model may well answer correctly on the next try, so the caller treats this as a failed attempt to be
    retried with backoff, not as a reason to give up at once.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"answer rejected: {reason}")
        self.reason = reason
        self.input_tokens = 0
        self.output_tokens = 0
        """What the rejected answer cost (set by the engine: it was billed like an accepted one)."""
        self.model = ""
        """The model that wrote the rejected answer (set by the engine: what prices its tokens)."""
