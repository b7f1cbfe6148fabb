"""The daily aging pass: every summary not yet aged today moves its items to older tiers (or drops them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import structlog

from summarizer.domain.clock import Clock
from summarizer.engine.engine import SummaryEngine
from summarizer.service.results import AgingReport
from summarizer.storage.port import UpdateStore, VersionWrite

log = structlog.get_logger("summarizer.worker")
AGING_PAGE = 500


@dataclass(frozen=True, slots=True)
class AgingPage:
    agents: int
    """Summaries that aged on this page."""
    next_after: str | None
    """The agent id the next page starts after; None when this page was the last."""


class Aging:
    def __init__(self, store: UpdateStore, engine: SummaryEngine, clock: Clock) -> None:
        self.store = store
        self.engine = engine
        self._clock = clock

    def age_all(self) -> int:
        """The daily aging pass over every summary not yet aged today; idempotent per agent and day.

        Runs every AGING_INTERVAL, so after downtime the first sweep catches up. A summary that an update
        changed meanwhile fails the version check and is simply picked up by the next sweep.
        """
        return self.age().agents

    def age(self, now: datetime | None = None, agent_id: str | None = None) -> AgingReport:
        """Age every summary (or one agent's) as of `now` (default: the clock); returns what moved."""
        now = now or self._clock()
        report = AgingReport()
        if agent_id is not None:
            self.age_page([agent_id], now, report)
            return report
        after = ""
        while True:
            page = self.store.agents_due_for_aging(now.date(), AGING_PAGE, after)
            self.age_page(page, now, report)
            if len(page) < AGING_PAGE:
                return report
            after = page[-1]

    def age_page(self, page: list[str], now: datetime, report: AgingReport) -> None:
        """One read for the page's summaries, one transaction for the aged ones: a page costs a few round
        trips, not six per agent (which made a million agents' daily pass take hours)."""
        aged = {}
        for summary in self.store.load_summaries(page):
            result = self.engine.age(summary, now)
            if not result.skipped:
                aged[summary.agent_id] = (result, summary.version)
        stored = self.store.swap_summaries(
            [
                (result.summary, version, VersionWrite("aging", drops=result.forgotten))
                for result, version in aged.values()
            ]
        )
        for agent_id in stored:
            result = aged[agent_id][0]
            report.agents += 1
            report.moved += result.moved
            report.dropped += result.dropped
            if result.moved or result.dropped:
                log.info("summary.aged", agent_id=agent_id, moved=result.moved, dropped=result.dropped)

    def page(self, after: str = "", now: datetime | None = None) -> AgingPage:
        """Age one page (at most AGING_PAGE agents due for aging, after agent id `after`): the unit of
        work of the paged aging sweep, so no single task walks every agent."""
        now = now or self._clock()
        report = AgingReport()
        names = self.store.agents_due_for_aging(now.date(), AGING_PAGE, after)
        self.age_page(names, now, report)
        return AgingPage(report.agents, names[-1] if len(names) == AGING_PAGE else None)
