"""The gate every LLM answer passes before anything is applied.

An answer is untrusted input: it may skip exchanges, name items it was never shown, come back empty, be
an error message or a refusal dressed up as a summary, touch items its rung may not touch, or flood the
summary with items for one exchange. Any of those rejects the whole answer, so the stored summary only
ever moves from one valid state to the next. What survives has its texts sanitized (`item_text`). How much
an answer may forget is measured after applying it (`budget_gate`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from summarizer.domain.credentials import mask_credentials
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.item_text import sanitize
from summarizer.engine.item_text import text_problem as text_problem
from summarizer.engine.ladder import UpdatePath
from summarizer.engine.model import SummaryItem
from summarizer.engine.operations import MAX_REASON_CHARS, Operations, parse_operations

DEFAULT_MAX_ITEMS_PER_EXCHANGE = 4


@dataclass(frozen=True, slots=True)
class GateContext:
    batch_exchange_ids: Collection[int]
    visible_items: Mapping[str, SummaryItem]
    max_item_chars: int
    path: UpdatePath = UpdatePath.FULL
    """What the answer may do to existing items: nothing (append), merge and shorten (merge), also drop
    (full; how much is checked after applying, see `budget_gate`)."""
    max_items_per_exchange: int = DEFAULT_MAX_ITEMS_PER_EXCHANGE
    """How many added items may cite one exchange, so one exchange cannot flood the summary."""
    uncovered_tail_ok: bool = False
    """Whether the last exchanges of the batch may be left neither covered nor dropped when every one
    before them is accounted for (the caller then folds only that prefix; the rest waits for the next
    update). An exchange left out before an accounted one is still a rejection."""


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


def _check_path(ops: Operations, ctx: GateContext) -> None:
    """The rung's rules for existing items, before anything is measured."""
    if ctx.path is UpdatePath.APPEND or ctx.path is UpdatePath.NONE:
        if ops.merge or ops.shorten or any(drop.item_ids for drop in ops.drop):
            raise AnswerRejected("the append path may not change existing items")
    elif ctx.path is UpdatePath.MERGE:
        for i, drop in enumerate(ops.drop):
            if drop.item_ids:
                raise AnswerRejected(
                    f"drop[{i}]: the merge path may not drop existing items (merge or shorten them)"
                )


def _check_rewrites(ops: Operations) -> None:
    """A merged or shortened text may not repeat another text of the same answer: one text standing in
    for many items ("HACKED" everywhere) is a wipe, not a summary."""
    written = [add.text for add in ops.add] + [m.text for m in ops.merge] + [s.text for s in ops.shorten]
    seen: dict[str, int] = {}
    for text in written:
        key = " ".join(text.split()).casefold()
        seen[key] = seen.get(key, 0) + 1
    rewrites = [(f"merge[{i}]", m.text) for i, m in enumerate(ops.merge)]
    rewrites += [(f"shorten[{i}]", op.text) for i, op in enumerate(ops.shorten)]
    for where, text in rewrites:
        if seen[" ".join(text.split()).casefold()] > 1:
            raise AnswerRejected(f"{where}: its text {text[:40]!r} also stands for other items")


def _check_exchanges(ops: Operations, ctx: GateContext) -> None:
    batch = set(ctx.batch_exchange_ids)
    added: set[int] = set()
    dropped: set[int] = set()
    citations: dict[int, int] = {}
    for i, add in enumerate(ops.add):
        unknown = sorted(set(add.exchange_ids) - batch)
        if unknown:
            raise AnswerRejected(f"add[{i}]: unknown exchange ids {unknown}")
        added.update(add.exchange_ids)
        for x in set(add.exchange_ids):
            citations[x] = citations.get(x, 0) + 1
            if citations[x] > ctx.max_items_per_exchange:
                raise AnswerRejected(
                    f"add[{i}]: exchange {x} is cited by more than {ctx.max_items_per_exchange} new items"
                )
    for i, drop in enumerate(ops.drop):
        unknown = sorted(set(drop.exchange_ids) - batch)
        if unknown:
            raise AnswerRejected(f"drop[{i}]: unknown exchange ids {unknown}")
        dropped.update(drop.exchange_ids)
    both = sorted(added & dropped)
    if both:
        raise AnswerRejected(f"exchanges both added and dropped: {both}")
    uncovered = sorted(batch - added - dropped)
    accounted = added | dropped
    tail = bool(accounted) and bool(uncovered) and uncovered[0] > max(accounted)
    if uncovered and not (ctx.uncovered_tail_ok and tail):
        raise AnswerRejected(f"exchanges neither covered by an added item nor dropped: {uncovered}")


def accounted_through(ops: Operations) -> int | None:
    """The newest exchange the operations cite (added or dropped): with `uncovered_tail_ok`, the answer
    folds the batch up to and including it."""
    cited = [x for add in ops.add for x in add.exchange_ids] + [
        x for drop in ops.drop for x in drop.exchange_ids
    ]
    return max(cited, default=None)


def sanitize_operations(ops: Operations) -> Operations:
    """The same operations with control characters stripped from every text and reason, and any
    credential in them masked: what a model writes is untrusted, and it may write a key it was never
    shown."""

    def clean(text: str) -> str:
        return mask_credentials(sanitize(text))

    return Operations(
        add=tuple(replace(op, text=clean(op.text)) for op in ops.add),
        merge=tuple(replace(op, text=clean(op.text)) for op in ops.merge),
        shorten=tuple(replace(op, text=clean(op.text)) for op in ops.shorten),
        drop=tuple(replace(op, reason=clean(op.reason)[:MAX_REASON_CHARS]) for op in ops.drop),
    )


def validate_answer(raw: object, ctx: GateContext) -> Operations:
    """The answer's operations, sanitized, if they pass every rule; AnswerRejected with the first broken
    rule."""
    if raw is None:
        raise AnswerRejected("no operations in the answer")
    ops = sanitize_operations(parse_operations(raw))
    for i, add in enumerate(ops.add):
        _check_text(add.text, f"add[{i}]", ctx.max_item_chars)
    for i, merge in enumerate(ops.merge):
        _check_text(merge.text, f"merge[{i}]", ctx.max_item_chars)
    for i, shorten in enumerate(ops.shorten):
        _check_text(shorten.text, f"shorten[{i}]", ctx.max_item_chars)
    for i, drop in enumerate(ops.drop):
        if not drop.reason.strip():
            raise AnswerRejected(f"drop[{i}]: a drop needs a reason")
    _check_path(ops, ctx)
    _check_rewrites(ops)
    _check_exchanges(ops, ctx)
    _check_items(ops, ctx)
    return ops
