"""A failed update becomes a decision of the pure retry policy: retry later, or park the row and raise one
alert for the incident. The last good summary is never touched by a failure."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

import structlog

from summarizer.domain.clock import Clock
from summarizer.domain.messages import EvictedExchange
from summarizer.domain.retry import RetryAt
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.service.results import Outcome, RunResult, WorkerConfig, error_text
from summarizer.service.runs import Attempt, RunRecorder, with_spent
from summarizer.storage.port import (
    SUMMARY_UPDATES_FAILING,
    AlertDraft,
    Claim,
    Retry,
    RunRecord,
    UpdateStore,
)

log = structlog.get_logger("summarizer.worker")


def parked_alert(agent_id: str, failures: int, error: str) -> AlertDraft:
    message = f"summary updates for agent {agent_id!r} are parked after {failures} failure(s): {error}"
    return AlertDraft(SUMMARY_UPDATES_FAILING, agent_id, message, {"failures": failures, "error": error})


def log_alert_raised(alert: AlertDraft) -> None:
    """The log line (critical, or warning for a lesser alert) is the first alert sink; the table row is
    the record."""
    emit = log.critical if alert.severity == "critical" else log.warning
    emit("alert.raised", kind=alert.kind, alert_agent=alert.agent_id, message=alert.message)


class Failures:
    """Retry or park a claimed row whose update failed (or whose attempts died unfinished)."""

    def __init__(self, store: UpdateStore, config: WorkerConfig, clock: Clock, rng: random.Random) -> None:
        self.store = store
        self.config = config
        self._clock = clock
        self._rng = rng
        self.runs = RunRecorder(config.worker_name)

    def fail(
        self,
        claim: Claim,
        attempt: Attempt,
        exc: Exception,
        batch: Sequence[EvictedExchange],
        *,
        spent: Sequence[RunRecord] = (),
        path: str | None = None,
    ) -> RunResult:
        """Retry or park. `spent`: the runs of calls made before the failure that no commit will record (a
        rebuild's batches), whose usage joins this failure's record; `path`: that record's path."""
        permanent = isinstance(exc, LLMPermanentError)
        retry_after = exc.retry_after if isinstance(exc, LLMTransientError) else None
        if not isinstance(exc, LLMTransientError | LLMPermanentError | AnswerRejected):
            log.exception("update.unexpected_error")
        failures = claim.consecutive_failures + 1
        now = self._clock()
        decision = self.config.retry.decide(
            failures=failures, permanent=permanent, now=now, retry_after=retry_after, rng=self._rng
        )
        error = error_text(exc)
        outcome = Outcome.RETRY if isinstance(decision, RetryAt) else Outcome.PARKED
        run = self.runs.failed(attempt, outcome, now, error, batch)
        # A rejected or unusable answer was billed like an accepted one: its usage stays on record, with
        # the model that wrote it (what prices it).
        run = replace(
            run,
            llm_input_tokens=getattr(exc, "input_tokens", 0) or 0,
            llm_output_tokens=getattr(exc, "output_tokens", 0) or 0,
            model=getattr(exc, "model", "") or None,
            path=path,
        )
        run = with_spent(run, spent)
        if isinstance(decision, RetryAt):
            retry = Retry(decision.at, decision.priority, failures, error, run)
            held = self.store.schedule_retry(claim, now, retry)
            if not held:
                return RunResult(claim.agent_id, Outcome.LOST, error=error)
            log.warning(
                "update.retry", error=error, failures=failures, delay_s=round(decision.delay_seconds, 2)
            )
            return RunResult(claim.agent_id, Outcome.RETRY, error=error)
        if not self.park(claim, now, failures, f"{decision.reason}: {error}", run):
            return RunResult(claim.agent_id, Outcome.LOST, error=error)
        return RunResult(claim.agent_id, Outcome.PARKED, error=error)

    def pause(
        self,
        claim: Claim,
        attempt: Attempt,
        exc: Exception,
        batch: Sequence[EvictedExchange],
        retry_at: datetime,
    ) -> RunResult:
        """The provider failed, not the batch: the row waits for the breaker's next probe with its
        failure count untouched (no retry spent, never parked); the run is recorded as `paused`."""
        now = self._clock()
        error = error_text(exc)
        run = self.runs.paused(attempt, now, error, batch)
        failures = claim.consecutive_failures
        held = self.store.schedule_retry(
            claim, now, Retry(max(retry_at, now), failures, failures, error, run)
        )
        if not held:
            return RunResult(claim.agent_id, Outcome.LOST, error=error)
        log.warning("update.paused", error=error, until=retry_at.isoformat())
        return RunResult(claim.agent_id, Outcome.PAUSED, error=error)

    def park(
        self, claim: Claim, now: datetime, failures: int, error: str, run: RunRecord | None = None
    ) -> bool:
        """Park the row with its run record and alert; False if the claim was lost meanwhile."""
        record = run if run is not None else self.runs.parked(claim.agent_id, now, error)
        alert = parked_alert(claim.agent_id, failures, error)
        raised = self.store.park(claim, now, failures=failures, error=error, run=record, alert=alert)
        if raised is None:
            return False
        if raised:
            log_alert_raised(alert)
        return True
