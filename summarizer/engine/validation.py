"""The gate every LLM answer passes before anything is applied.

An answer is untrusted input: it may skip exchanges, name items it was never shown, come back empty, or be
an error message or a refusal dressed up as a summary. Any of those rejects the whole answer, so the stored
summary only ever moves from one valid state to the next.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from summarizer.engine.errors import AnswerRejected
from summarizer.engine.model import SummaryItem
from summarizer.engine.operations import Operations, parse_operations

# Kept short on purpose: each pattern is one way a model's non-answer looks, and each has a test.
# Anchored ones only match at the start of a text, so that an item may still report that a user
# "said the build cannot start".
_Q = "['\u2019]?"  # an apostrophe, straight or curly, or none
_NON_ANSWER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("refusal", re.compile(rf"^\W*i\s*(?:can\s*not|cannot|can{_Q}t|won{_Q}t|(?:am|{_Q}m)\s+unable)\b", re.I)),
    ("refusal", re.compile(rf"\bi\s*(?:can\s*not|cannot|can{_Q}t)\s+(?:help|assist)\b", re.I)),
    ("apology", re.compile(rf"^\W*(?:i\s*{_Q}m\s+sorry\b|i\s+am\s+sorry\b|sorry,|i\s+apologi[sz]e)", re.I)),
    ("refusal", re.compile(r"\bas\s+an\s+(?:ai|a\.i\.|language\s+model)\b", re.I)),
    ("error text", re.compile(r"^\W*(?:error|exception|fatal)\s*:", re.I)),
    ("error text", re.compile(r"^\W*traceback \(most recent call last\)", re.I)),
)


def text_problem(text: str, max_chars: int) -> str | None:
    """Why this text cannot be an item's text, or None when it can."""
    if not text.strip():
        return "empty text"
    if len(text) > max_chars:
        return f"text of {len(text)} characters is over the limit of {max_chars}"
    for label, pattern in _NON_ANSWER_PATTERNS:
        if pattern.search(text):
            return f"{label} instead of a summary: {text[:60]!r}"
    return None


@dataclass(frozen=True, slots=True)
class GateContext:
    batch_exchange_ids: Collection[int]
    visible_items: Mapping[str, SummaryItem]
    max_item_chars: int


def _check_text(text: str, where: str, max_chars: int) -> None:
    problem = text_problem(text, max_chars)
    if problem:
        raise AnswerRejected(f"{where}: {problem}")


def _check_items(ops: Operations, ctx: GateContext) -> None:
    used: dict[str, str] = {}

    def claim(item_id: str, where: str) -> None:
        if item_id not in ctx.visible_items:
            raise AnswerRejected(f"{where}: unknown item id {item_id!r}")
        if item_id in used:
            raise AnswerRejected(f"{where}: item {item_id!r} is already used by {used[item_id]}")
        used[item_id] = where

    for i, merge in enumerate(ops.merge):
        for item_id in merge.item_ids:
            claim(item_id, f"merge[{i}]")
    for i, shorten in enumerate(ops.shorten):
        claim(shorten.item_id, f"shorten[{i}]")
        if len(shorten.text) > len(ctx.visible_items[shorten.item_id].text):
            raise AnswerRejected(f"shorten[{i}]: the new text of {shorten.item_id!r} is longer than the old")
    for i, drop in enumerate(ops.drop):
        for item_id in drop.item_ids:
            claim(item_id, f"drop[{i}]")


def _check_exchanges(ops: Operations, ctx: GateContext) -> None:
    batch = set(ctx.batch_exchange_ids)
    added: set[int] = set()
    dropped: set[int] = set()
    for i, add in enumerate(ops.add):
        unknown = sorted(set(add.exchange_ids) - batch)
        if unknown:
            raise AnswerRejected(f"add[{i}]: unknown exchange ids {unknown}")
        added.update(add.exchange_ids)
    for i, drop in enumerate(ops.drop):
        unknown = sorted(set(drop.exchange_ids) - batch)
        if unknown:
            raise AnswerRejected(f"drop[{i}]: unknown exchange ids {unknown}")
        dropped.update(drop.exchange_ids)
    both = sorted(added & dropped)
    if both:
        raise AnswerRejected(f"exchanges both added and dropped: {both}")
    uncovered = sorted(batch - added - dropped)
    if uncovered:
        raise AnswerRejected(f"exchanges neither covered by an added item nor dropped: {uncovered}")


def validate_answer(raw: object, ctx: GateContext) -> Operations:
    """The answer's operations if they pass every rule; AnswerRejected with the first broken rule."""
    if raw is None:
        raise AnswerRejected("no operations in the answer")
    ops = parse_operations(raw)
    for i, add in enumerate(ops.add):
        _check_text(add.text, f"add[{i}]", ctx.max_item_chars)
    for i, merge in enumerate(ops.merge):
        _check_text(merge.text, f"merge[{i}]", ctx.max_item_chars)
    for i, shorten in enumerate(ops.shorten):
        _check_text(shorten.text, f"shorten[{i}]", ctx.max_item_chars)
    for i, drop in enumerate(ops.drop):
        if not drop.reason.strip():
            raise AnswerRejected(f"drop[{i}]: a drop needs a reason")
    _check_exchanges(ops, ctx)
    _check_items(ops, ctx)
    return ops
