"""The provenance ledger: where every exchange of an agent is now.

Computed from three facts the store keeps in step (`ProvenanceFacts`): the current summary, each
exchange's eviction and folding, and the `exchange_drops` rows written in the same commit as the version
that forgot an exchange. Each evicted exchange is in exactly one state:

- `waiting`: evicted, not yet folded into a summary;
- `summarized`: cited by an item of the current summary (`item_id`, `version` = the current version);
- `dropped`: folded, no item cites it, and the newest drop row says which version forgot it and why
  (`model`, `cap`, `aging`, `unsummarizable`, `rollback`; `pre_ledger` for an exchange forgotten before
  the ledger was kept, written by migration 0006 when a database from before it is upgraded).

Exchanges still in the window are listed as `in_window`. An exchange that is folded, uncited and has no
drop row would be `unaccounted`: a broken invariant, which the tests check never happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from summarizer.engine.provenance import exchange_citations
from summarizer.storage.port import DropRecord, ProvenanceFacts

WAITING, SUMMARIZED, DROPPED, IN_WINDOW, UNACCOUNTED = (
    "waiting",
    "summarized",
    "dropped",
    "in_window",
    "unaccounted",
)
DROP_REASONS = ("model", "cap", "aging", "unsummarizable", "rollback", "pre_ledger")


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: int
    state: str
    item_id: str | None = None
    version: int | None = None
    reason: str | None = None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "item_id": self.item_id,
            "version": self.version,
            "reason": self.reason,
            "detail": self.detail,
        }


def ledger_entries(facts: ProvenanceFacts) -> list[LedgerEntry]:
    summary = facts.summary
    cited = exchange_citations(summary.items) if summary else {}
    version = summary.version if summary else None
    last_drop: dict[int, DropRecord] = {}
    for drop in facts.drops:
        known = last_drop.get(drop.exchange_id)
        if known is None or drop.version > known.version:
            last_drop[drop.exchange_id] = drop
    entries = []
    for x, evicted, folded_in, _ended in facts.exchanges:
        if not evicted:
            entries.append(LedgerEntry(x, IN_WINDOW))
        elif x in cited:
            entries.append(LedgerEntry(x, SUMMARIZED, cited[x], version))
        elif folded_in is None:
            entries.append(LedgerEntry(x, WAITING))
        elif x in last_drop:
            d = last_drop[x]
            entries.append(LedgerEntry(x, DROPPED, d.item_id, d.version, d.reason, d.detail))
        else:
            entries.append(LedgerEntry(x, UNACCOUNTED, version=folded_in))
    return entries


def aged_out(facts: ProvenanceFacts) -> tuple[int, datetime | None]:
    """How many evicted exchanges are dropped for age, and when the oldest of them ended."""
    aging = {e.id for e in ledger_entries(facts) if e.state == DROPPED and e.reason == "aging"}
    ended = [end for x, _, _, end in facts.exchanges if x in aging]
    return len(aging), min(ended, default=None)
