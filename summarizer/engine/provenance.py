"""Where every exchange went: cited by an item, or forgotten with a reason.

An update or an aging pass turns one set of items into another. Every exchange that the old items cited
or the batch brought is afterwards either cited by an item of the new summary or listed in exactly one
`Forgotten` record, never both and never neither. The records say why:

- `model`: the model dropped the exchange or an item citing it; `detail` is the model's own reason;
- `cap`: emergency truncation removed the last item citing it;
- `aging`: the last item citing it ended more than 14 days ago, or the exchange itself had when it
  arrived;
- `unsummarizable`: never produced by the engine; the caller records an exchange it gave up on;
- `rollback`: never produced by the engine; an operator made an older version current again.

A merge keeps the union of its sources' exchange ids, so merging forgets nothing; a shortened or cut item
keeps its id and its exchanges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from summarizer.engine.model import SummaryItem, in_time_order

ForgetReason = Literal["model", "cap", "aging", "unsummarizable", "rollback"]
FORGET_REASONS: tuple[ForgetReason, ...] = ("model", "cap", "aging", "unsummarizable", "rollback")


@dataclass(frozen=True, slots=True)
class Forgotten:
    """Exchanges that no item of the new summary cites any more, and why."""

    exchange_ids: tuple[int, ...]
    reason: ForgetReason
    item_id: str | None
    """The item whose removal forgot them; None for exchanges dropped or expired before becoming an item."""
    detail: str


@dataclass(frozen=True, slots=True)
class Removal:
    """One item leaving the summary, for `forgotten_by`."""

    item: SummaryItem
    reason: ForgetReason
    detail: str


def exchange_citations(items: Iterable[SummaryItem]) -> dict[int, str]:
    """exchange id -> the id of the item that cites it. When several items cite one exchange, the first
    in the summary's time order names it."""
    cited: dict[int, str] = {}
    for item in in_time_order(items):
        for x in item.exchange_ids:
            cited.setdefault(x, item.id)
    return cited


def cited_exchanges(items: Iterable[SummaryItem]) -> set[int]:
    return {x for item in items for x in item.exchange_ids}


def forgotten_by(removals: Sequence[Removal], still_cited: Collection[int]) -> list[Forgotten]:
    """The records for items that left: each names the exchanges that no remaining item cites and that
    no earlier removal in `removals` already named."""
    named: set[int] = set()
    records = []
    for removal in removals:
        lost = tuple(
            sorted(x for x in set(removal.item.exchange_ids) if x not in still_cited and x not in named)
        )
        if lost:
            named.update(lost)
            records.append(Forgotten(lost, removal.reason, removal.item.id, removal.detail))
    return records


class ForgetLog:
    """Collects what left during one update or aging pass, in order, and turns it into the records of the
    exchanges that ended up uncited."""

    def __init__(self) -> None:
        self._removals: list[Removal] = []
        self._loose: list[Forgotten] = []

    def items(
        self, items: Iterable[SummaryItem], reason: ForgetReason, detail: str | Callable[[SummaryItem], str]
    ) -> None:
        """Items that left the summary, in the order they left."""
        for item in items:
            self._removals.append(Removal(item, reason, detail if isinstance(detail, str) else detail(item)))

    def exchanges(self, exchange_ids: Iterable[int], reason: ForgetReason, detail: str) -> None:
        """Exchanges that never became an item (dropped by the model, or already expired)."""
        ids = tuple(sorted(set(exchange_ids)))
        if ids:
            self._loose.append(Forgotten(ids, reason, None, detail))

    def records(self, final_items: Iterable[SummaryItem]) -> tuple[Forgotten, ...]:
        cited = cited_exchanges(final_items)
        records = forgotten_by(self._removals, cited)
        named = set(forgotten_exchanges(records)) | cited
        for loose in self._loose:
            ids = tuple(x for x in loose.exchange_ids if x not in named)
            if ids:
                named.update(ids)
                records.append(Forgotten(ids, loose.reason, None, loose.detail))
        return tuple(records)


def forgotten_exchanges(records: Iterable[Forgotten]) -> list[int]:
    """Every exchange id the records name, with repeats (a sound outcome has none)."""
    return [x for record in records for x in record.exchange_ids]


def partition_problems(
    previous: Iterable[SummaryItem],
    batch_exchange_ids: Iterable[int],
    new: Iterable[SummaryItem],
    forgotten: Iterable[Forgotten],
) -> list[str]:
    """What breaks "every exchange of the batch and of the previous summary is cited by an item of the new
    summary or forgotten, not both, and forgotten once"; empty when the outcome is sound."""
    expected = cited_exchanges(previous) | set(batch_exchange_ids)
    cited = cited_exchanges(new)
    listed = forgotten_exchanges(forgotten)
    problems = []
    repeated = sorted(x for x, n in Counter(listed).items() if n > 1)
    if repeated:
        problems.append(f"forgotten more than once: {repeated}")
    both = sorted(cited & set(listed))
    if both:
        problems.append(f"both cited and forgotten: {both}")
    missing = sorted(expected - cited - set(listed))
    if missing:
        problems.append(f"neither cited nor forgotten: {missing}")
    unknown = sorted(set(listed) - expected)
    if unknown:
        problems.append(f"forgotten but never known: {unknown}")
    invented = sorted(cited - expected)
    if invented:
        problems.append(f"cited but never known: {invented}")
    return problems
