"""The update service: claim -> load -> engine -> ONE commit, plus the sweeps the beat schedule runs.

Everything a Celery task does lives here, so the same code runs in a worker, in `summarizer drain`, and in
tests without a broker. Nothing is held open during the LLM call; an update is three short steps:

1. claim the agent's queue row (lease + fresh claim token), committed at once; on PostgreSQL the same
   statement returns the agent's state and summary (storage/batch_reads.py);
2. read the batch of evicted, unsummarized exchanges with their messages (one statement, no transaction);
   a batch still filling hands the row back;
3. after the engine answered, commit (storage/update_commit.py): take the batch off the agent's count
   (locking the agent row first), complete the queue row if our claim token still holds it,
   compare-and-swap the summary version, mark the exchanges folded, write the run record. Any guard
   failing rolls the whole write back, so a duplicate, late or rescued run never folds an exchange twice.

Failures become decisions of the pure retry policy: retry later through `available_at`, or park the row
and raise one alert for the incident. The last good summary is never touched by a failure.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

import structlog
from sqlalchemy import Connection

from summarizer.domain.messages import EvictedExchange
from summarizer.domain.retry import Park, RetryAt, RetryPolicy
from summarizer.engine.engine import SummaryEngine, UpdateOutcome
from summarizer.engine.errors import AnswerRejected
from summarizer.engine.model import Summary, items_from_json
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.storage import alerts, queue
from summarizer.storage.batch_reads import AgentState, claim_and_read, read_evicted_batch
from summarizer.storage.database import Database
from summarizer.storage.queue_upsert import PENDING
from summarizer.storage.reading import SummaryRecord, load_summary
from summarizer.storage.summaries import (
    RunRecord,
    StaleSummary,
    SummaryVersion,
    agents_due_for_aging,
    record_run,
    swap_summary,
)
from summarizer.storage.update_commit import UpdateCommit, commit_update

log = structlog.get_logger("summarizer.worker")

Clock = Callable[[], datetime]
MAX_ERROR_CHARS = 2_000
AGING_PAGE = 500


class Outcome(StrEnum):
    NOTHING = "nothing"  # nothing claimable: a duplicate or late wake-up
    OK = "ok"
    IDLE = "idle"  # claimed, but no batch was ready
    STALE = "stale"  # the summary moved meanwhile: result discarded, row re-queued
    LOST = "lost"  # our claim was taken over (lease expired): result discarded
    RETRY = "retry"
    PARKED = "parked"


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    batch_size: int = 3
    batch_max_wait: float = 900.0
    max_batch_input_tokens: int = 60_000
    max_batch_exchanges: int = 64
    lease_seconds: float = 360.0
    dispatch_limit: int = 2_000
    follow_on_seconds: float = 1.0
    """How long one task may go on with the same agent's next full batch before handing it to the broker."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    worker_name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")


@dataclass(frozen=True, slots=True)
class RunResult:
    agent_id: str | None
    outcome: Outcome
    version: int | None = None
    exchanges: int = 0
    error: str | None = None
    requeued: bool = False
    """The row is pending again and due now (more work, or a stale result): worth an immediate wake-up."""


@dataclass(frozen=True, slots=True)
class Batch:
    summary: SummaryRecord | None
    exchanges: tuple[EvictedExchange, ...]
    ready: bool


@dataclass(slots=True)
class DrainReport:
    runs: int = 0
    by_outcome: dict[str, int] = field(default_factory=dict)

    def add(self, result: RunResult) -> None:
        self.runs += 1
        self.by_outcome[result.outcome.value] = self.by_outcome.get(result.outcome.value, 0) + 1


@dataclass(slots=True)
class AgingReport:
    """What one aging pass did: summaries rewritten, items moved to an older tier, items dropped."""

    agents: int = 0
    moved: int = 0
    dropped: int = 0


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]


def to_engine_summary(record: SummaryRecord | None) -> Summary | None:
    if record is None:
        return None
    return Summary(
        agent_id=record.agent_id,
        version=record.version,
        items=items_from_json(record.items),
        covered_through_exchange_id=record.covered_through_exchange_id,
        token_count=record.token_count,
        updated_at=record.updated_at,
        last_aged_on=record.last_aged_on,
    )


def _version_row(summary: Summary) -> SummaryVersion:
    assert summary.updated_at is not None
    return SummaryVersion(
        agent_id=summary.agent_id,
        version=summary.version,
        items=summary.items_to_json(),
        token_count=summary.token_count,
        covered_through_exchange_id=summary.covered_through_exchange_id,
        last_aged_on=summary.last_aged_on,
        updated_at=summary.updated_at,
    )


class UpdateService:
    def __init__(
        self,
        db: Database,
        engine: SummaryEngine,
        config: WorkerConfig | None = None,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        from summarizer.storage.conversations import utcnow

        self.db = db
        self.engine = engine
        self.config = config or WorkerConfig()
        self._clock = clock or utcnow
        self._rng = rng or random.Random()

    # ----- one update -------------------------------------------------------------------------------

    def run(self, agent_id: str | None = None) -> RunResult:
        """Claim `agent_id`'s row (or the most urgent due row) and process it; NOTHING if none is due."""
        started = self._clock()
        claimed = claim_and_read(self.db, started, self.config.lease_seconds, agent_id)
        if claimed is None:
            return RunResult(agent_id, Outcome.NOTHING)
        claim, state = claimed
        structlog.contextvars.bind_contextvars(agent_id=claim.agent_id)
        try:
            return self._run_claimed(claim, state, started)
        finally:
            structlog.contextvars.unbind_contextvars("agent_id")

    def _run_claimed(self, claim: queue.Claim, state: AgentState | None, started: datetime) -> RunResult:
        if claim.consecutive_failures > self.config.retry.max_retries:
            error = f"{claim.consecutive_failures} attempts died unfinished ({queue.LEASE_EXPIRED_ERROR})"
            with self.db.write() as conn:
                held = self._park(conn, claim, started, started, claim.consecutive_failures, error)
            return RunResult(claim.agent_id, Outcome.PARKED if held else Outcome.LOST, error=error)
        try:
            batch = self._read_batch(claim.agent_id, state, started)
        except Exception as exc:  # a row the code cannot take, or a failing read: a failure like any other
            return self._fail(claim, started, exc, None, ())
        if not batch.ready:
            with self.db.autocommit(write=True) as conn:
                row_state = queue.finish_idle(conn, claim.agent_id, claim.token, self._clock())
            return RunResult(claim.agent_id, Outcome.IDLE, requeued=row_state == PENDING)
        return self._process(claim, started, batch)

    def run_backlog(
        self, agent_id: str | None, budget_seconds: float | None = None, *, or_any: bool = False
    ) -> RunResult:
        """`run(agent_id)`, then the agent's next full batches while they are due and the budget lasts.

        With `or_any`, a wake-up whose agent has nothing due (a duplicate, a late message, a batch still
        filling) claims the most urgent due row instead, so no wake-up is wasted while work waits; that
        is what lets the dispatcher send only as many wake-ups as there are due rows.

        A fast update (no model latency: the offline summarizer, a quick provider) would otherwise pay a
        broker round trip and a task's overhead for each batch of a backlog. A slow one exhausts the budget
        in its first update, so with a real model this is one update per task, as before. The last result
        says whether the row is still due (`requeued`) and needs a wake-up.
        """
        budget = self.config.follow_on_seconds if budget_seconds is None else budget_seconds
        deadline = time.monotonic() + budget
        result = self.run(agent_id)
        if or_any and agent_id is not None and result.outcome in (Outcome.NOTHING, Outcome.IDLE):
            result = self.run(None)
        while result.outcome is Outcome.OK and result.requeued and time.monotonic() < deadline:
            result = self.run(result.agent_id)
        return result

    def _process(self, claim: queue.Claim, started: datetime, batch: Batch) -> RunResult:
        try:
            outcome = self.engine.update(
                to_engine_summary(batch.summary), claim.agent_id, batch.exchanges, self._clock()
            )
        except Exception as exc:
            return self._fail(claim, started, exc, batch.summary, batch.exchanges)
        try:
            return self._commit(claim, started, batch, outcome)
        except (StaleSummary, queue.LostClaim) as exc:
            lost = isinstance(exc, queue.LostClaim)
            if not lost:
                with self.db.write() as conn:
                    queue.release(conn, claim.agent_id, claim.token, self._clock(), reason=_error_text(exc))
            log.info("update.discarded", reason=str(exc), lost_claim=lost)
            verdict = Outcome.LOST if lost else Outcome.STALE
            return RunResult(claim.agent_id, verdict, error=str(exc), requeued=not lost)

    def _read_batch(self, agent_id: str, state: AgentState | None, now: datetime) -> Batch:
        """The summary and the oldest evicted, unsummarized exchanges, bounded by count and input tokens.

        Ready when a full batch waits, when the oldest has waited past BATCH_MAX_WAIT, or when the batch is
        bounded by size (there is more behind it).
        """
        cfg = self.config
        if state is None:
            return Batch(None, (), ready=False)
        covered = (state.summary.covered_through_exchange_id if state.summary else None) or 0
        found = read_evicted_batch(
            self.db,
            agent_id,
            after=covered,
            before=state.window_start,
            max_exchanges=cfg.max_batch_exchanges,
            max_tokens=cfg.max_batch_input_tokens,
        )
        batch = found.exchanges
        if not batch:
            return Batch(state.summary, (), ready=False)
        since = state.unsummarized_since
        waited = since is not None and (now - since).total_seconds() >= cfg.batch_max_wait
        bounded = len(batch) < found.candidates or found.candidates == cfg.max_batch_exchanges
        ready = len(batch) >= cfg.batch_size or waited or bounded
        return Batch(state.summary, batch, ready=ready)

    def _commit(
        self, claim: queue.Claim, started: datetime, batch: Batch, outcome: UpdateOutcome
    ) -> RunResult:
        from_version = batch.summary.version if batch.summary else 0
        first, last = batch.exchanges[0].id, batch.exchanges[-1].id
        new = outcome.summary
        finished = self._clock()
        count = len(batch.exchanges)
        run = RunRecord(
            agent_id=claim.agent_id,
            started_at=started,
            finished_at=finished,
            outcome=Outcome.OK.value,
            worker=self.config.worker_name,
            from_version=from_version,
            to_version=new.version,
            exchange_count=count,
            first_exchange_id=first,
            last_exchange_id=last,
            path=outcome.path.value,
            llm_input_tokens=outcome.llm_input_tokens,
            llm_output_tokens=outcome.llm_output_tokens,
            summary_tokens=outcome.summary_tokens,
            truncated=outcome.truncated,
            tokens_before_cap=outcome.tokens_before_cap,
        )
        commit = UpdateCommit(
            claim=claim,
            summary=_version_row(new),
            from_version=from_version,
            first_exchange_id=first,
            last_exchange_id=last,
            exchange_count=count,
            run=run,
            batch_size=self.config.batch_size,
            now=finished,
        )
        committed = commit_update(self.db, commit)
        if committed.alert_resolved:
            log.warning("alert.resolved", kind=alerts.SUMMARY_UPDATES_FAILING, version=new.version)
        log.info(
            "update.done",
            version=new.version,
            exchanges=len(batch.exchanges),
            path=outcome.path.value,
            llm_in=outcome.llm_input_tokens,
            llm_out=outcome.llm_output_tokens,
            truncated=outcome.truncated,
            ms=round((finished - started).total_seconds() * 1000),
        )
        return RunResult(
            claim.agent_id,
            Outcome.OK,
            version=new.version,
            exchanges=count,
            requeued=committed.state == PENDING,
        )

    # ----- failures ---------------------------------------------------------------------------------

    def _fail(
        self,
        claim: queue.Claim,
        started: datetime,
        exc: Exception,
        summary: SummaryRecord | None,
        batch: tuple[EvictedExchange, ...],
    ) -> RunResult:
        permanent = isinstance(exc, LLMPermanentError)
        retry_after = exc.retry_after if isinstance(exc, LLMTransientError) else None
        if not isinstance(exc, LLMTransientError | LLMPermanentError | AnswerRejected):
            log.exception("update.unexpected_error")
        failures = claim.consecutive_failures + 1
        now = self._clock()
        decision = self.config.retry.decide(
            failures=failures, permanent=permanent, now=now, retry_after=retry_after, rng=self._rng
        )
        error = _error_text(exc)
        run = RunRecord(
            agent_id=claim.agent_id,
            started_at=started,
            finished_at=now,
            outcome=Outcome.PARKED.value if isinstance(decision, Park) else Outcome.RETRY.value,
            worker=self.config.worker_name,
            from_version=summary.version if summary else 0,
            exchange_count=len(batch),
            first_exchange_id=batch[0].id if batch else None,
            last_exchange_id=batch[-1].id if batch else None,
            error=error,
        )
        with self.db.write() as conn:
            if isinstance(decision, RetryAt):
                held = queue.schedule_retry(
                    conn,
                    claim.agent_id,
                    claim.token,
                    now,
                    available_at=decision.at,
                    priority=decision.priority,
                    failures=failures,
                    error=error,
                )
                if held:
                    record_run(conn, run)
            else:
                held = self._park(conn, claim, started, now, failures, f"{decision.reason}: {error}", run)
        if not held:
            return RunResult(claim.agent_id, Outcome.LOST, error=error)
        if isinstance(decision, RetryAt):
            log.warning(
                "update.retry", error=error, failures=failures, delay_s=round(decision.delay_seconds, 2)
            )
            return RunResult(claim.agent_id, Outcome.RETRY, error=error)
        return RunResult(claim.agent_id, Outcome.PARKED, error=error)

    def _park(
        self,
        conn: Connection,
        claim: queue.Claim,
        started: datetime,
        now: datetime,
        failures: int,
        error: str,
        run: RunRecord | None = None,
    ) -> bool:
        if not queue.park(conn, claim.agent_id, claim.token, now, failures=failures, error=error):
            return False
        record_run(
            conn,
            run
            or RunRecord(
                agent_id=claim.agent_id,
                started_at=started,
                finished_at=now,
                outcome=Outcome.PARKED.value,
                worker=self.config.worker_name,
                error=error,
            ),
        )
        self._alert(conn, claim.agent_id, failures, error, now)
        return True

    def _alert(self, conn: Connection, agent_id: str, failures: int, error: str, now: datetime) -> None:
        message = f"summary updates for agent {agent_id!r} are parked after {failures} failure(s): {error}"
        raised = alerts.raise_once(
            conn,
            kind=alerts.SUMMARY_UPDATES_FAILING,
            agent_id=agent_id,
            message=message,
            details={"failures": failures, "error": error},
            now=now,
        )
        if raised:
            # The critical log line is the first alert sink; the table row is the record.
            log.critical(
                "alert.raised", kind=alerts.SUMMARY_UPDATES_FAILING, alert_agent=agent_id, message=message
            )

    # ----- sweeps (beat) ----------------------------------------------------------------------------

    def due(self, agent_id: str | None = None) -> list[str]:
        """Flush agents whose small batch waited past BATCH_MAX_WAIT, then list every claimable row."""
        now = self._clock()
        with self.db.write() as conn:
            armed = queue.arm_waiting(conn, now, self.config.batch_max_wait, self.config.dispatch_limit)
        if armed:
            log.info("dispatch.flushed_waiting", agents=len(armed))
        with self.db.read() as conn:
            return queue.due_agents(conn, now, self.config.dispatch_limit, agent_id)

    def rescue(self) -> list[queue.Rescued]:
        """Take back expired leases (a crashed or stuck worker); park, with an alert, past MAX_RETRIES."""
        now = self._clock()
        with self.db.write() as conn:
            rescued = queue.rescue_expired(conn, now, self.config.retry.max_retries)
            for r in rescued:
                if r.parked:
                    record_run(
                        conn,
                        RunRecord(
                            agent_id=r.agent_id,
                            started_at=now,
                            finished_at=now,
                            outcome=Outcome.PARKED.value,
                            worker=self.config.worker_name,
                            error=queue.LEASE_EXPIRED_ERROR,
                        ),
                    )
                    self._alert(conn, r.agent_id, r.consecutive_failures, queue.LEASE_EXPIRED_ERROR, now)
        if rescued:
            log.warning("lease.rescued", agents=[r.agent_id for r in rescued])
        return rescued

    def requeue(self, agent_id: str) -> str | None:
        with self.db.write() as conn:
            return queue.requeue(conn, agent_id, self._clock())

    def drain(self, agent_id: str | None = None, max_runs: int | None = None) -> DrainReport:
        """Process due rows in this process until none is due (rows backing off into the future wait)."""
        report = DrainReport()
        self.rescue()
        self.due()
        while max_runs is None or report.runs < max_runs:
            result = self.run(agent_id)
            if result.outcome is Outcome.NOTHING:
                break
            report.add(result)
        return report

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
            self._age_one(agent_id, now, report)
            return report
        after = ""
        while True:
            with self.db.read() as conn:
                page = agents_due_for_aging(conn, now.date(), AGING_PAGE, after)
            for name in page:
                self._age_one(name, now, report)
            if len(page) < AGING_PAGE:
                return report
            after = page[-1]

    def _age_one(self, agent_id: str, now: datetime, report: AgingReport) -> None:
        with self.db.read() as conn:
            summary = to_engine_summary(load_summary(conn, agent_id))
        if summary is None:
            return
        result = self.engine.age(summary, now)
        if result.skipped:
            return
        try:
            with self.db.write() as conn:
                swap_summary(conn, _version_row(result.summary), summary.version)
        except StaleSummary:
            return
        report.agents += 1
        report.moved += result.moved
        report.dropped += result.dropped
        if result.moved or result.dropped:
            log.info("summary.aged", agent_id=agent_id, moved=result.moved, dropped=result.dropped)
