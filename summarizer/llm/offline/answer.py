"""The offline summarizer's answer: one item per new exchange, and on the merge and full rungs the merges
that bring the summary back to about 60% of its cap (never planned under 55%: the gate refuses merges
that take it under half).

Each new item gets the room the summary has left before compression starts (the target), shared by the
batch: the whole item limit while there is plenty, so it keeps everything the turn said; less near the
target, where it keeps the turn's most informative sentences. Compression is the merges' job.

The answer keeps to what each rung allows: on append it only adds (one item per exchange); on merge and
full it adds, and either shortens items that keep a whole turn (oldest tier, least important and oldest
first, `shortening`) when that alone saves enough, or else merges shown items; it never drops an item. Merges keep every decision
whole and the engine gives a merged item the union of its sources' exchange ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import EvictedExchange
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import Importance
from summarizer.engine.operations import AddOp, Operations
from summarizer.engine.ports import LLMAnswer, LLMRequest, UpdateContext
from summarizer.engine.validation import text_problem
from summarizer.llm.offline.clustering import LINE_OVERHEAD_BYTES, line_bytes, plan_merges
from summarizer.llm.offline.facts import OFFLINE_PREFIX, Facts, facts_of_exchange, is_low, states_decision
from summarizer.llm.offline.informative import CLIP_CHARS, fit, lead, turn_sentences
from summarizer.llm.offline.shortening import plan_shortenings
from summarizer.llm.offline.wording import compose, compose_turn

OFFLINE_MODEL = "offline-extractive"
TARGET_SHARE = 0.6
"""After a merge or full update the summary should be at about this share of its cap."""
SHORTEN_TARGET_SHARE = 0.7
"""Shortening, which keeps every exchange's own item, only has to bring the summary back to this share of
its cap: it runs again as soon as the summary grows past where compression starts."""
FLOOR_MARGIN_SHARE = 0.05
"""Merges never plan to leave the summary closer than this share of the cap to the gate's floor (half of
the cap): the sizes here are byte estimates of the rendering, the gate counts the real one."""
BYTES_PER_TOKEN = 4
DEFAULT_TARGET_SHARE = 0.8
"""Where compression starts when the request names no target (the ladder's default merge threshold)."""
MIN_ITEM_CHARS = 200
"""The least room a new item gets when the summary is near its cap: about its two best sentences."""

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


def _side(
    exchange: EvictedExchange, kind: Kind, decided: Sequence[str], topic: str = ""
) -> tuple[list[str], int | None]:
    """The sentences one side said (not those the decisions hold), and which of them leads: for the
    user the first request's, for the assistant its last message's (where an agent reports the outcome),
    preferring one that speaks to the `topic` (the user's first request)."""
    said = [m.content for m in exchange.messages if m.kind is kind and m.content.strip()]
    found: list[str] = []
    lead_at: int | None = None
    budget = 2 * CLIP_CHARS  # what is read of one side; its last message is always read
    for n, content in enumerate(said):
        last = n == len(said) - 1
        if budget <= 0 and not last:
            continue
        text = content[: max(budget, CLIP_CHARS if last else 0)]
        mine = [s for s in turn_sentences(text) if not any(d in s.casefold() for d in decided)]
        budget -= len(text)
        at = lead(mine, topic)
        if at is not None and (lead_at is None or (kind is Kind.ASSISTANT and last)):
            lead_at = len(found) + at
        found.extend(mine)
    return found, lead_at


def turn_text(exchange: EvictedExchange, facts: Facts, room: int) -> str:
    """The item for an exchange that keeps what both sides said, as much of it as `room` characters
    hold (the least informative sentences go first, each side's lead sentence last), with its decisions
    whole."""
    decided = [d.casefold() for d in facts.decisions]
    asks, ask_lead = _side(exchange, Kind.USER, decided)
    topic = asks[ask_lead] if ask_lead is not None else ""
    says, say_lead = _side(exchange, Kind.ASSISTANT, decided, topic)
    sides = [asks, says]
    said = " ".join(s for side in sides for s in side).casefold()
    missing = [a for a in facts.artifacts if a.casefold() not in said]
    reserve = min(len(", ".join(missing)) + len(" Artifacts: ."), room // 4) if missing else 0
    fixed = (
        len(OFFLINE_PREFIX) + len("Asked: . Done: .") + sum(len(f" Decided: {d}.") for d in facts.decisions)
    )
    leads = sum(len(side[at]) + 1 for side, at in ((asks, ask_lead), (says, say_lead)) if at is not None)
    reserve = max(0, min(reserve, room - fixed - leads))  # the artifacts' room never costs a lead sentence
    asked, done = (" ".join(side) for side in fit(sides, room - fixed - reserve, (ask_lead, say_lead)))
    return compose_turn(asked, done, facts.decisions, facts.artifacts, room)


def summarize_exchange(exchange: EvictedExchange, max_chars: int, room: int | None = None) -> AddOp:
    """One item for one exchange, in at most `room` characters (the item limit when None): what both
    sides said, or its most informative sentences; data that reads like a refusal or an error loses its
    words, not its decisions or artifacts, and at worst the item names the exchange."""
    facts = facts_of_exchange(exchange)
    rich = turn_text(exchange, facts, min(room or max_chars, max_chars))
    if text_problem(rich, max_chars) is None and rich != OFFLINE_PREFIX:
        return AddOp(exchange_ids=(exchange.id,), text=rich, importance=_importance(facts))
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


def item_room(ctx: UpdateContext) -> int:
    """How many characters each new item may use: the item limit while the summary, with the batch,
    stays under the size at which compression starts; less as it gets near (never under MIN_ITEM_CHARS)."""
    limit = ctx.target_tokens or int(DEFAULT_TARGET_SHARE * ctx.max_tokens)
    free = (limit - ctx.current_tokens) * BYTES_PER_TOKEN
    each = free // max(len(ctx.batch), 1) - LINE_OVERHEAD_BYTES
    return max(min(each, ctx.max_item_chars), min(MIN_ITEM_CHARS, ctx.max_item_chars))


def offline_operations(request: LLMRequest) -> Operations:
    ctx = request.context
    room = item_room(ctx)
    adds = tuple(summarize_exchange(x, ctx.max_item_chars, room) for x in ctx.batch)
    if ctx.path not in (UpdatePath.MERGE, UpdatePath.FULL):
        return Operations(add=adds)
    added = sum(line_bytes(a.text) for a in adds)
    projected = ctx.current_tokens * BYTES_PER_TOKEN + added
    need = projected - int(TARGET_SHARE * ctx.max_tokens) * BYTES_PER_TOKEN
    keep = ctx.floor_tokens + int(FLOOR_MARGIN_SHARE * ctx.max_tokens)
    room = projected - keep * BYTES_PER_TOKEN
    if need <= 0:
        return Operations(add=adds)

    def acceptable(text: str) -> bool:
        return text_problem(text, ctx.max_item_chars) is None

    taken = {" ".join(a.text.split()).casefold() for a in adds}
    enough = projected - int(SHORTEN_TARGET_SHARE * ctx.max_tokens) * BYTES_PER_TOKEN
    shortens, saved = plan_shortenings(ctx.visible_items, enough, room, ctx.max_item_chars, acceptable, taken)
    if saved >= enough:
        return Operations(add=adds, shorten=tuple(shortens))
    # Shortening alone is not enough: merge instead (an item merged now could not be shortened too, and
    # merging around items being shortened would fold the same few merged items ever wider).
    merges = plan_merges(ctx.visible_items, need, ctx.max_item_chars, acceptable, room_bytes=room)
    return Operations(add=adds, merge=tuple(merges))


class OfflineLLM:
    """The LLM port without a model. Answers are marked `offline=True`."""

    def complete(self, request: LLMRequest) -> LLMAnswer:
        return LLMAnswer(
            tool_input=offline_operations(request).to_tool_input(), model=OFFLINE_MODEL, offline=True
        )
