"""The offline summarizer's answer: one item per new exchange, and on the merge and full rungs the merges
that bring the summary back to about 60% of its cap (never planned under 55%: the gate refuses merges
that take it under half).

The answer keeps to what each rung allows: on append it only adds (one item per exchange); on merge and
full it adds, and merges shown items; it never drops or rewrites an item away. Merges keep every decision
whole and the engine gives a merged item the union of its sources' exchange ids.
"""

from __future__ import annotations

import re

from summarizer.domain.messages import EvictedExchange
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import Importance
from summarizer.engine.operations import AddOp, Operations
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.engine.validation import text_problem
from summarizer.llm.offline.clustering import line_bytes, plan_merges
from summarizer.llm.offline.facts import OFFLINE_PREFIX, Facts, facts_of_exchange, is_low, states_decision
from summarizer.llm.offline.wording import compose

OFFLINE_MODEL = "offline-extractive"
TARGET_SHARE = 0.6
"""After a merge or full update the summary should be at about this share of its cap."""
FLOOR_MARGIN_SHARE = 0.05
"""Merges never plan to leave the summary closer than this share of the cap to the gate's floor (half of
the cap): the sizes here are byte estimates of the rendering, the gate counts the real one."""
BYTES_PER_TOKEN = 4

_HIGH_WORDS = re.compile(
    r"\b(architect\w*|schema|interface|protocol|migrat\w*|design\w*)\b",
    re.I,
)


def importance_of(text: str) -> Importance:
    """High for decisions and design work, low for debugging and trivia, else medium."""
    if states_decision(text) or _HIGH_WORDS.search(text):
        return Importance.HIGH
    if is_low(text):
        return Importance.LOW
    return Importance.MEDIUM


def _importance(facts: Facts) -> Importance:
    if facts.decisions:
        return Importance.HIGH
    return importance_of(" ".join((*facts.asked, *facts.done)))


def summarize_exchange(exchange: EvictedExchange, max_chars: int) -> AddOp:
    """One item for one exchange; data that reads like a refusal or an error loses its words, not its
    decisions or artifacts, and at worst the item names the exchange."""
    facts = facts_of_exchange(exchange)
    candidates = (
        facts,
        Facts(decisions=facts.decisions, artifacts=facts.artifacts),
        Facts(artifacts=facts.artifacts),
    )
    for candidate in candidates:
        text = compose(candidate, max_chars).text
        if text != OFFLINE_PREFIX and text_problem(text, max_chars) is None:
            return AddOp(exchange_ids=(exchange.id,), text=text, importance=_importance(facts))
    fallback = f"{OFFLINE_PREFIX}Exchange {exchange.id} ({exchange.tokens} tokens)."[:max_chars]
    return AddOp(exchange_ids=(exchange.id,), text=fallback, importance=Importance.LOW)


def offline_operations(request: LLMRequest) -> Operations:
    ctx = request.context
    adds = tuple(summarize_exchange(x, ctx.max_item_chars) for x in ctx.batch)
    if ctx.path not in (UpdatePath.MERGE, UpdatePath.FULL):
        return Operations(add=adds)
    added = sum(line_bytes(a.text) for a in adds)
    projected = ctx.current_tokens * BYTES_PER_TOKEN + added
    need = projected - int(TARGET_SHARE * ctx.max_tokens) * BYTES_PER_TOKEN
    keep = ctx.floor_tokens + int(FLOOR_MARGIN_SHARE * ctx.max_tokens)
    merges = plan_merges(
        ctx.visible_items,
        need,
        ctx.max_item_chars,
        lambda text: text_problem(text, ctx.max_item_chars) is None,
        room_bytes=projected - keep * BYTES_PER_TOKEN,
    )
    return Operations(add=adds, merge=tuple(merges))


class OfflineLLM:
    """The LLM port without a model. Answers are marked `offline=True`."""

    def complete(self, request: LLMRequest) -> LLMAnswer:
        return LLMAnswer(
            tool_input=offline_operations(request).to_tool_input(), model=OFFLINE_MODEL, offline=True
        )
