"""A deterministic extractive summarizer: no network, no model, same input -> same answer.

It keeps the system useful without an API key (and in CI): one item per exchange, built from what the user
asked and what the assistant finally answered, each marked with OFFLINE_PREFIX so a reader can tell it from
a model's summary. On the merge and full rungs it folds the oldest shown items of a tier into one, so the
ladder still makes room before the hard cap has to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import TIERS_YOUNG_TO_OLD, Importance, SummaryItem
from summarizer.engine.operations import AddOp, MergeOp, Operations
from summarizer.engine.ports import LLMAnswer, LLMRequest
from summarizer.engine.render import display_order
from summarizer.engine.validation import text_problem

OFFLINE_PREFIX = "[offline] "
OFFLINE_MODEL = "offline-extractive"
REQUEST_CHARS = 140
ANSWER_CHARS = 200

_HIGH = re.compile(
    r"\b(decid\w*|decision|architect\w*|design\w*|api|schema|interface|protocol|migrat\w*|implement\w*|"
    r"feature|chose|choose|adopt\w*|introduc\w*)\b",
    re.I,
)
_LOW = re.compile(
    r"\b(debug\w*|typo|trivial|explor\w*|tried|try(?:ing)?|print|log(?:ging)?|rename\w*|wip|oops|"
    r"dead end|nevermind|never mind)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s")


def shorten(text: str, limit: int) -> str:
    """The first sentence when it fits, else a cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    first = _SENTENCE.split(text, maxsplit=1)[0]
    if len(first) <= limit:
        return first
    cut = first[: limit - 1].rsplit(" ", 1)[0] or first[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def importance_of(text: str) -> Importance:
    if _HIGH.search(text):
        return Importance.HIGH
    if _LOW.search(text):
        return Importance.LOW
    return Importance.MEDIUM


def _request_and_answer(exchange: EvictedExchange) -> tuple[str, str]:
    request = next((m.content for m in exchange.messages if m.kind is Kind.USER and m.content.strip()), "")
    answer = next(
        (m.content for m in reversed(exchange.messages) if m.kind is Kind.ASSISTANT and m.content.strip()), ""
    )
    return request, answer


def _fit(text: str, fallback: str, max_chars: int) -> str:
    """`text` if the gate would take it, else a neutral stand-in (data may look like a refusal)."""
    text = OFFLINE_PREFIX + text if text else ""
    if len(text) > max_chars:
        text = shorten(text, max_chars)
    if text_problem(text, max_chars) is None:
        return text
    return (OFFLINE_PREFIX + fallback)[:max_chars]


def summarize_exchange(exchange: EvictedExchange, max_chars: int) -> AddOp:
    request, answer = _request_and_answer(exchange)
    parts = []
    if request:
        parts.append("Asked: " + shorten(request, REQUEST_CHARS))
    if answer:
        parts.append("Answer: " + shorten(answer, ANSWER_CHARS))
    text = _fit(" ".join(parts), f"Exchange {exchange.id} ({exchange.tokens} tokens).", max_chars)
    return AddOp(exchange_ids=(exchange.id,), text=text, importance=importance_of(request + " " + answer))


def _merge_oldest(items: Sequence[SummaryItem], max_chars: int) -> MergeOp | None:
    """One merge of the oldest half of these items (at least two), or None when there are fewer than two."""
    ordered = display_order(items)
    if len(ordered) < 2:
        return None
    sources = ordered[: max(2, len(ordered) // 2)]
    pieces = [item.text.removeprefix(OFFLINE_PREFIX) for item in sources]
    room = max(16, (max_chars - len(OFFLINE_PREFIX)) // len(pieces) - 2)
    joined = "; ".join(shorten(piece, room) for piece in pieces)
    text = _fit(joined, f"{len(sources)} earlier items.", max_chars)
    importance = min((item.importance for item in sources), key=lambda i: i.rank)
    return MergeOp(item_ids=tuple(item.id for item in sources), text=text, importance=importance)


def offline_operations(request: LLMRequest) -> Operations:
    ctx = request.context
    adds = tuple(summarize_exchange(x, ctx.max_item_chars) for x in ctx.batch)
    merges: list[MergeOp] = []
    if ctx.path in (UpdatePath.MERGE, UpdatePath.FULL):
        for tier in TIERS_YOUNG_TO_OLD:
            merge = _merge_oldest([i for i in ctx.visible_items if i.tier is tier], ctx.max_item_chars)
            if merge:
                merges.append(merge)
    return Operations(add=adds, merge=tuple(merges))


class OfflineLLM:
    """The LLM port without a model. Answers are marked `offline=True`."""

    def complete(self, request: LLMRequest) -> LLMAnswer:
        return LLMAnswer(
            tool_input=offline_operations(request).to_tool_input(), model=OFFLINE_MODEL, offline=True
        )
