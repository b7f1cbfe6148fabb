"""The provenance facade: where each exchange went, the kept summary versions, diff, rollback and prune.

For any front end (the CLI's `provenance`, `summary --version`, `diff`, `rollback`, `versions prune`; the
HTTP API's provenance route). It speaks only to the storage port and returns plain values.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.engine.model import Pin, Summary, SummaryItem
from summarizer.engine.provenance import Forgotten, cited_exchanges
from summarizer.engine.render import departed_text
from summarizer.service.ledger import DROPPED, SUMMARIZED, WAITING, LedgerEntry, aged_out, ledger_entries
from summarizer.storage.port import KeptVersion, ProvenanceStore, StaleSummary, VersionWrite


class UnknownVersion(SummarizerError):
    """No kept version with that number (never written, or pruned)."""


@dataclass(frozen=True, slots=True)
class VersionDiff:
    added: tuple[SummaryItem, ...]
    removed: tuple[SummaryItem, ...]
    merged: tuple[tuple[tuple[str, ...], SummaryItem], ...]
    """(the ids of the older version's items, the newer item that cites all their exchanges)."""
    pinned: tuple[Pin, ...] = ()
    """Pins of the newer version that the older one lacks, or holds with another text."""
    unpinned: tuple[Pin, ...] = ()
    """Pins of the older version that the newer one lacks."""


@dataclass(frozen=True, slots=True)
class AgedOut:
    count: int
    oldest_ended_at: datetime | None


def diff_items(old: Summary, new: Summary) -> VersionDiff:
    old_by_id = {i.id: i for i in old.items}
    new_ids = {i.id for i in new.items}
    gone = [i for i in old.items if i.id not in new_ids]
    fresh = [i for i in new.items if i.id not in old_by_id]
    merged: list[tuple[tuple[str, ...], SummaryItem]] = []
    used: set[str] = set()
    for item in fresh:
        covers = set(item.exchange_ids)
        sources = [g for g in gone if g.id not in used and g.exchange_ids and set(g.exchange_ids) <= covers]
        if len(sources) >= 2:
            merged.append((tuple(g.id for g in sources), item))
            used.update(g.id for g in sources)
    merged_into = {item.id for _, item in merged}
    old_pins = {(p.name, p.text) for p in old.pins}
    new_names = {p.name for p in new.pins}
    return VersionDiff(
        added=tuple(i for i in fresh if i.id not in merged_into),
        removed=tuple(g for g in gone if g.id not in used),
        merged=tuple(merged),
        pinned=tuple(p for p in new.pins if (p.name, p.text) not in old_pins),
        unpinned=tuple(p for p in old.pins if p.name not in new_names),
    )


class Provenance:
    def __init__(
        self,
        store: ProvenanceStore,
        *,
        clock: Clock = utcnow,
        wake: Callable[[Sequence[str]], None] | None = None,
        spent_budget: Callable[[str, datetime], str | None] | None = None,
    ) -> None:
        self.store = store
        self._clock = clock
        self._wake = wake
        self._spent_budget = spent_budget
        """Why the agent's daily cost budget is spent (None: it is not, or none applies)."""

    def ledger(self, agent_id: str, between: tuple[int, int] | None = None) -> list[LedgerEntry]:
        """Every exchange of the agent (with `between`, those whose id is in that closed range: a history
        page's) with its state (`waiting`, `summarized`, `dropped`, `in_window`)."""
        facts = self.store.provenance(agent_id, between)
        if facts is None:
            raise UnknownAgent(agent_id)
        return ledger_entries(facts)

    def departed(self, agent_id: str) -> str:
        """The placeholder for an agent whose summary has no items: how many exchanges left the window and
        where each went (summarized, dropped with its reason, waiting)."""
        entries = self.ledger(agent_id)
        dropped: dict[str, int] = {}
        for e in entries:
            if e.state == DROPPED:
                dropped[e.reason or "unknown"] = dropped.get(e.reason or "unknown", 0) + 1
        summarized = sum(1 for e in entries if e.state == SUMMARIZED)
        waiting = sum(1 for e in entries if e.state == WAITING)
        return departed_text(summarized, waiting, dropped)

    def aged_out(self, agent_id: str) -> AgedOut:
        facts = self.store.provenance(agent_id)
        if facts is None:
            raise UnknownAgent(agent_id)
        return AgedOut(*aged_out(facts))

    def version(self, agent_id: str, version: int) -> KeptVersion:
        kept = self.store.summary_version(agent_id, version)
        if kept is None:
            if not self.store.agent_exists(agent_id):
                raise UnknownAgent(agent_id)
            raise UnknownVersion(f"agent {agent_id!r} has no kept summary version {version}")
        return kept

    def versions(self, agent_id: str) -> list[KeptVersion]:
        if not self.store.agent_exists(agent_id):
            raise UnknownAgent(agent_id)
        return self.store.summary_versions(agent_id)

    def diff(self, agent_id: str, older: int, newer: int) -> VersionDiff:
        return diff_items(self.version(agent_id, older).summary, self.version(agent_id, newer).summary)

    def rollback(self, agent_id: str, to_version: int) -> Summary:
        """Make version `to_version`'s items and pins current as a new version (compare-and-swap on the current
        one); exchanges the current summary cites and the old one does not are recorded as dropped with
        the reason `rollback`. Raises `StaleSummary` if an update committed meanwhile."""
        kept = self.version(agent_id, to_version)
        current = self.store.load_summary(agent_id)
        if current is None:
            raise UnknownVersion(f"agent {agent_id!r} has no current summary to roll back")
        now = self._clock()
        new = Summary(
            agent_id=agent_id,
            version=current.version + 1,
            items=kept.summary.items,
            covered_through_exchange_id=current.covered_through_exchange_id,
            token_count=kept.summary.token_count,
            updated_at=now,
            last_aged_on=None,
            pins=kept.summary.pins,
        )
        lost = sorted(cited_exchanges(current.items) - cited_exchanges(new.items))
        drops = (
            (Forgotten(tuple(lost), "rollback", None, f"rolled back to version {to_version}"),)
            if lost
            else ()
        )
        self.store.swap_summary(new, current.version, VersionWrite("rollback", drops))
        return new

    def resummarize(self, agent_id: str) -> str:
        """Ask the workers to rebuild the summary from the stored history (in the background) and wake
        one; returns the queue row's previous state."""
        previous = self.store.request_resummarize(agent_id, self._clock())
        if previous is None:
            raise UnknownAgent(agent_id)
        if self._wake is not None:
            # A lost wake-up only delays: the dispatcher finds every pending row.
            with contextlib.suppress(Exception):
                self._wake([agent_id])
        return previous

    def rebuild_offline(self, agent_id: str) -> str | None:
        """Why a rebuild would now be made by the offline summarizer (a daily cost budget is spent), or
        None: the worker checks again when it starts the rebuild, as before an update."""
        return self._spent_budget(agent_id, self._clock()) if self._spent_budget is not None else None

    def prune(self, keep: int, agent_id: str | None = None) -> int:
        """Delete all but the newest `keep` kept versions (of one agent, or of every agent)."""
        if keep < 1:
            raise ValueError("keep at least one version")
        return self.store.prune_versions(agent_id, keep)


__all__ = ["AgedOut", "Provenance", "StaleSummary", "UnknownVersion", "VersionDiff", "diff_items"]
