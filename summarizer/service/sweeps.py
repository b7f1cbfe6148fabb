"""The beat's sweeps over the queue: flush waiting backlogs and list due rows, take back expired leases,
requeue by hand, and drain in-process."""

from __future__ import annotations

from collections.abc import Callable

import structlog

from summarizer.domain.clock import Clock
from summarizer.service.failures import log_alert_raised, parked_alert
from summarizer.service.results import DrainReport, Outcome, RunResult, WorkerConfig
from summarizer.service.runs import RunRecorder
from summarizer.storage.port import (
    LEASE_EXPIRED_ERROR,
    AlertDraft,
    Rescued,
    RunRecord,
    UpdateStore,
)

log = structlog.get_logger("summarizer.worker")


class Sweeps:
    def __init__(self, store: UpdateStore, config: WorkerConfig, clock: Clock) -> None:
        self.store = store
        self.config = config
        self._clock = clock
        self.runs = RunRecorder(config.worker_name)

    def due(self, agent_id: str | None = None) -> list[str]:
        """Flush agents whose small batch waited past BATCH_MAX_WAIT, then list every claimable row."""
        now = self._clock()
        armed = self.store.arm_waiting(now, self.config.batch_max_wait, self.config.dispatch_limit)
        if armed:
            log.info("dispatch.flushed_waiting", agents=len(armed))
        return self.store.due_agents(now, self.config.dispatch_limit, agent_id)

    def rescue(self) -> list[Rescued]:
        """Take back expired leases (a crashed or stuck worker); park, with an alert, past MAX_RETRIES."""
        now = self._clock()
        drafts: dict[str, AlertDraft] = {}

        def parked_run(r: Rescued) -> tuple[RunRecord, AlertDraft]:
            run = self.runs.parked(r.agent_id, now, LEASE_EXPIRED_ERROR)
            drafts[r.agent_id] = parked_alert(r.agent_id, r.consecutive_failures, LEASE_EXPIRED_ERROR)
            return run, drafts[r.agent_id]

        rescued, raised = self.store.rescue_expired(now, self.config.retry.max_retries, parked_run)
        for agent_id in raised:
            log_alert_raised(drafts[agent_id])
        if rescued:
            log.warning("lease.rescued", agents=[r.agent_id for r in rescued])
        return rescued

    def requeue(self, agent_id: str) -> str | None:
        return self.store.requeue(agent_id, self._clock())

    def drain(
        self, run: Callable[[str | None], RunResult], agent_id: str | None = None, max_runs: int | None = None
    ) -> DrainReport:
        """Process due rows in this process until none is due (rows backing off into the future wait)."""
        report = DrainReport()
        self.rescue()
        self.due()
        while max_runs is None or report.runs < max_runs:
            result = run(agent_id)
            if result.outcome in (Outcome.NOTHING, Outcome.PAUSED):
                break
            report.add(result)
        return report
