"""A cheaper model for the rungs that rewrite: the configured model writes the session tier, another
model (SUMMARIZER_MERGE_MODEL) does the merges and the whole-summary compressions.

The cost ladder (engine/ladder.py) appends new items in most updates (`append`: only the new exchanges
are shown) and rewrites existing ones only when the summary nears its cap (`merge`: the session tier is
shown; `full`: every tier). Those rewrites read the whole visible summary, so they cost the most input
tokens; sending them to a cheaper model leaves the expensive one the work that decides what is kept.
"""

from __future__ import annotations

from summarizer.engine.ladder import UpdatePath
from summarizer.engine.ports import LLM, LLMAnswer, LLMRequest

REWRITING_PATHS = frozenset({UpdatePath.MERGE, UpdatePath.FULL})


class RungLLM:
    """`session` answers the append rung; `rewriting` the merge and full rungs."""

    def __init__(self, session: LLM, rewriting: LLM) -> None:
        self.session = session
        self.rewriting = rewriting

    def complete(self, request: LLMRequest) -> LLMAnswer:
        chosen = self.rewriting if request.context.path in REWRITING_PATHS else self.session
        return chosen.complete(request)
