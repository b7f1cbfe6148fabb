"""The gate's second half: forgetting has to be earned by the budget.

`validation` checks an answer's shape and what each rung allows (append: nothing existing changes; merge:
existing items are merged or shortened, never dropped; full: they may also be dropped). This module
measures what the applied answer did to the existing items, with the same counter the cap uses:

- Drops are accepted only when the budget needs them: with the dropped items put back, the summary would
  be over the target (the size at which the ladder starts compressing). A drop never takes the summary
  under half of its cap (`floor_tokens`).
- Merges and shortenings forget no exchange (a merged item cites the union of its sources' exchanges), but
  they can forget what was said: six items merged into "ok" still cite their exchanges. So an answer that
  merges or shortens may take the summary down to half of its cap (`floor_tokens`), and no lower; a
  summary that was already under that may not end up smaller than it was (`shrink_floor`). The ladder
  reaches the merge rung only when the summary is heading over the target, which lies above the floor,
  so getting back under the target never needs to go under the floor. (With a target configured under
  the floor, the target is the limit instead.) A summarizer that merges by topic down to about 60% of
  the cap passes; an answer that folds a small summary into one short text does not.
- High-importance items go last: an answer may drop one only when no existing item of lower importance
  is left.
- New exchanges are folded, not dropped, while there is room: an answer may leave a new exchange out
  ("nothing worth remembering", always with a reason) only while the summary it started from is over half
  of its cap. Under that, a weak model's "drop everything new" would make the memory forget for no budget
  reason; such an answer is refused, and what the model will not fold the offline summarizer folds.

A broken rule raises AnswerRejected, like any other invalid answer: the previous summary stands and the
caller retries. This is what turns away an answer that obeys "drop every item" in the conversation data.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from summarizer.engine.errors import AnswerRejected
from summarizer.engine.model import Importance, SummaryItem
from summarizer.engine.operations import Operations

ItemsCounter = Callable[[Sequence[SummaryItem]], int]


@dataclass(frozen=True, slots=True)
class Budget:
    max_tokens: int
    target_tokens: int
    """Drops are needed only while the summary would be over this (the ladder's merge threshold)."""
    floor_tokens: int
    """Drops never leave the summary under this (half of the cap), nor do merges and shortenings of a
    summary that was over it."""

    @classmethod
    def for_cap(cls, max_tokens: int, merge_threshold: float, floor_fraction: float = 0.5) -> Budget:
        return cls(
            max_tokens=max_tokens,
            target_tokens=int(max_tokens * merge_threshold),
            floor_tokens=int(max_tokens * floor_fraction),
        )


def dropped_item_ids(ops: Operations) -> list[str]:
    return [item_id for drop in ops.drop for item_id in drop.item_ids]


def check_forgetting(
    before: Sequence[SummaryItem],
    after: Sequence[SummaryItem],
    added_ids: Collection[str],
    ops: Operations,
    budget: Budget,
    count: ItemsCounter,
) -> None:
    """AnswerRejected when `ops`, which turned `before` into `after`, drops more than the budget needs or
    merges and shortens the summary smaller than it may get."""
    _check_new_exchange_drops(before, ops, budget, count)
    by_id = {item.id: item for item in before}
    dropped = [by_id[item_id] for item_id in dropped_item_ids(ops)]
    if ops.merge or ops.shorten:
        _check_shrinking(before, after, ops, budget, count)
    if not dropped:
        return
    result = count(after)
    if result < budget.floor_tokens:
        raise AnswerRejected(
            f"dropping {len(dropped)} existing item(s) leaves the summary at {result} tokens, under half "
            f"of its cap ({budget.floor_tokens})"
        )
    without_drops = count([*after, *dropped])
    if without_drops <= budget.target_tokens:
        raise AnswerRejected(
            f"dropping {len(dropped)} existing item(s) is not needed: without the drops the summary would "
            f"be {without_drops} tokens, within the target of {budget.target_tokens}"
        )
    if len(dropped) > 1:
        smallest = min(dropped, key=lambda item: count([item]))
        with_smallest = count([*after, smallest])
        if with_smallest <= budget.target_tokens:
            raise AnswerRejected(
                f"dropping {len(dropped)} existing item(s) forgets more than the target needs: keeping "
                f"{smallest.id!r} the summary would be {with_smallest} tokens, within the target of "
                f"{budget.target_tokens}"
            )
    _check_high_last(dropped, after, added_ids)


def _check_new_exchange_drops(
    before: Sequence[SummaryItem], ops: Operations, budget: Budget, count: ItemsCounter
) -> None:
    new = sorted({x for drop in ops.drop for x in drop.exchange_ids})
    if not new:
        return
    size = count(before)
    if size <= budget.floor_tokens:
        raise AnswerRejected(
            f"drops new exchange(s) {new[:10]} while the summary is at {size} tokens, not over half of its "
            f"cap ({budget.floor_tokens}): there is room, so they must be folded"
        )


def shrink_floor(tokens_before: int, budget: Budget) -> int:
    """The fewest tokens an answer that merges or shortens may leave: half of the cap, or where the
    summary was if that was less (or the target, if that is configured under the floor)."""
    return min(tokens_before, budget.floor_tokens, budget.target_tokens)


def _check_shrinking(
    before: Sequence[SummaryItem],
    after: Sequence[SummaryItem],
    ops: Operations,
    budget: Budget,
    count: ItemsCounter,
) -> None:
    result = count(after)
    tokens_before = count(before)
    lowest = shrink_floor(tokens_before, budget)
    if result >= lowest:
        return
    what = []
    if ops.merge:
        what.append(f"merging {sum(len(m.item_ids) for m in ops.merge)} existing item(s)")
    if ops.shorten:
        what.append(f"shortening {len(ops.shorten)}")
    raise AnswerRejected(
        f"{' and '.join(what)} takes the summary from {tokens_before} to {result} tokens, under the "
        f"{lowest} it may shrink to (half of its cap, or its size before if that was smaller)"
    )


def _check_high_last(
    dropped: Sequence[SummaryItem], after: Sequence[SummaryItem], added_ids: Collection[str]
) -> None:
    high = [item.id for item in dropped if item.importance is Importance.HIGH]
    if not high:
        return
    lower = sorted(
        item.id for item in after if item.id not in added_ids and item.importance is not Importance.HIGH
    )
    if lower:
        raise AnswerRejected(
            f"drops high-importance item(s) {high} while lower-importance items {lower[:5]} stay"
        )
