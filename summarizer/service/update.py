"""The update service: claim -> load -> engine -> ONE commit; the sweeps and aging hang off it.

Everything a Celery task does lives here, so the same code runs in a worker, in `summarizer drain`, and in
tests without a broker (or, on the in-memory store, without a database). It speaks only to the storage
port (`storage/port.py`). Nothing is held open during the LLM call; an update is three short steps:

1. claim the agent's queue row (lease + fresh claim token), committed at once, with the agent's state and
   summary (one statement on PostgreSQL);
2. read the batch of evicted, unsummarized exchanges with their messages; a batch still filling hands
   the row back;
3. after the engine answered, commit: take the batch off the agent's count, complete the queue row if our
   claim token still holds it, compare-and-swap the summary version, mark the exchanges folded, write the
   run record. Any guard failing rolls the whole write back, so a duplicate, late or rescued run never
   folds an exchange twice.

Failures (failures.py) become decisions of the pure retry policy; sweeps.py holds the beat's queue
sweeps and aging.py the daily aging pass.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from datetime import datetime

import structlog

from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.messages import EvictedExchange
from summarizer.domain.queue_states import PENDING
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.model import Summary
from summarizer.engine.pins import PinLimits
from summarizer.service.aging import Aging, AgingPage
from summarizer.service.breaker import Gate, ProviderBreaker
from summarizer.service.cost_budgets import BudgetVerdict, CostBudgets
from summarizer.service.failures import Failures, log_alert_raised
from summarizer.service.model_routing import DEGRADED_PATH, ROUTED_PATH, ModelRouting, routing_alert
from summarizer.service.now_pin import now_pin_text, now_wanted, refresh_now, state_choice
from summarizer.service.pin_share import pins_within_share
from summarizer.service.poison import Folded, Folding, fold, skip_alert, skip_drops, skip_version
from summarizer.service.rebuild import Rebuilds
from summarizer.service.results import AgingReport, DrainReport, Outcome, RunResult, WorkerConfig, error_text
from summarizer.service.runs import NOT_FOLLOWED, Attempt, RunRecorder, with_note
from summarizer.service.sweeps import Sweeps
from summarizer.storage.cost_port import BUDGET_PATH
from summarizer.storage.port import (
    LEASE_EXPIRED_ERROR,
    MODEL_DEGRADED,
    SUMMARY_UPDATES_FAILING,
    AgentState,
    AlertDraft,
    Claim,
    LostClaim,
    RecentRun,
    Rescued,
    StaleSummary,
    UpdateCommit,
    UpdateStore,
    VersionWrite,
)

log = structlog.get_logger("summarizer.worker")

# Outcomes after which a probe's lease was settled by the breaker (a call was made); any other outcome
# made no call and gives the probe back.
_PROBE_SPENT = frozenset({Outcome.OK, Outcome.RETRY, Outcome.PARKED, Outcome.PAUSED})


@dataclass(frozen=True, slots=True)
class Batch:
    summary: Summary | None
    exchanges: tuple[EvictedExchange, ...]
    ready: bool
    instructions: str | None = None
    """The operator's summary instructions for the agent (the model reads them; the offline one not)."""
    pins_alert: AlertDraft | None = None
    """Names the pins left out of the summary to keep their share of a lowered cap (pin_share.py)."""


class UpdateService:
    def __init__(
        self,
        store: UpdateStore,
        engine: SummaryEngine,
        config: WorkerConfig | None = None,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        breaker: ProviderBreaker | None = None,
        fallback: SummaryEngine | None = None,
        routing: ModelRouting | None = None,
        budgets: CostBudgets | None = None,
    ) -> None:
        self.store = store
        self.fallback = fallback
        self.budgets = budgets if fallback is not None else None
        """Daily cost budgets (cost_budgets.py): a spent one sends the agent's updates offline."""
        self.routing = routing if fallback is not None else None
        """The per-agent model breaker (model_routing.py); None: every update asks the model first."""
        """Folds what the model cannot, after the poison split (the offline summarizer); None: the
        exchange is given up on as unsummarizable instead."""
        self.breaker = breaker
        """The provider's fleet-wide circuit breaker (None: calls are never paused)."""
        self.engine = engine
        self.config = config or WorkerConfig()
        self._clock = clock or utcnow
        self.failures = Failures(store, self.config, self._clock, rng or random.Random())
        self.sweeps = Sweeps(store, self.config, self._clock)
        self.aging = Aging(store, engine, self._clock)
        self.rebuilds = Rebuilds(store, self.config, self._clock, self.failures)
        self.runs = RunRecorder(self.config.worker_name)

    # ----- one update -------------------------------------------------------------------------------

    def run(self, agent_id: str | None = None) -> RunResult:
        """Claim `agent_id`'s row (or the most urgent due row) and process it; NOTHING if none is due."""
        gate = self.breaker.gate() if self.breaker is not None else Gate.GO
        if gate is Gate.PAUSED:  # the provider is down for everyone: claim nothing, spend nothing
            return RunResult(agent_id, Outcome.PAUSED)
        result: RunResult | None = None
        try:
            started = self._clock()
            claimed = self.store.claim(started, self.config.lease_seconds, agent_id)
            if claimed is None:
                result = RunResult(agent_id, Outcome.NOTHING)
                return result
            claim, state = claimed
            structlog.contextvars.bind_contextvars(agent_id=claim.agent_id)
            try:
                result = self._run_claimed(claim, state, started, gate)
                return result
            finally:
                structlog.contextvars.unbind_contextvars("agent_id")
        finally:
            if self.breaker is not None and (result is None or result.outcome not in _PROBE_SPENT):
                self.breaker.release(gate)  # a probe that made no call goes back at once

    def provider_paused(self) -> bool:
        """The provider's breaker is open (the dispatcher then sends a single wake-up per run)."""
        return self.breaker is not None and self.breaker.is_open()

    def _run_claimed(
        self, claim: Claim, state: AgentState | None, started: datetime, gate: Gate = Gate.GO
    ) -> RunResult:
        if claim.consecutive_failures > self.config.retry.max_retries:
            error = f"{claim.consecutive_failures} attempts died unfinished ({LEASE_EXPIRED_ERROR})"
            held = self.failures.park(claim, started, claim.consecutive_failures, error)
            return RunResult(claim.agent_id, Outcome.PARKED if held else Outcome.LOST, error=error)
        if state is not None and state.rebuild_requested_at is not None:
            return self._rebuild(claim, state, started)
        try:
            batch = self._read_batch(claim.agent_id, state, started)
            if batch.ready:
                batch = self._steered(claim.agent_id, state, batch)
        except Exception as exc:  # a row the code cannot take, or a failing read: a failure like any other
            return self.failures.fail(claim, Attempt.on(claim.agent_id, started, None), exc, ())
        if not batch.ready:
            row_state = self.store.finish_idle(claim, self._clock())
            return RunResult(claim.agent_id, Outcome.IDLE, requeued=row_state == PENDING)
        return self._process(claim, started, batch, gate)

    def _steered(self, agent_id: str, state: AgentState | None, batch: Batch) -> Batch:
        """The batch with the operator's instructions and its summary's "Now" pin refreshed from the log."""
        instructions, choice = state_choice(state)
        mode = self.config.now_item
        text = (
            now_pin_text(mode, choice, self.store.latest_task(agent_id)) if now_wanted(mode, choice) else None
        )
        limits = PinLimits(self.engine.config.max_tokens, self.config.pins_max_share)
        held, pins_alert = pins_within_share(batch.summary, self.engine.count, limits)
        summary = refresh_now(held, agent_id, text, self._clock(), self.engine.count, limits)
        return replace(batch, summary=summary, instructions=instructions, pins_alert=pins_alert)

    def _rebuild(self, claim: Claim, state: AgentState, started: datetime) -> RunResult:
        """`resummarize`, under the daily cost budgets as an update: a spent one rebuilds offline."""
        spent = self.budgets.check(claim.agent_id, started) if self.budgets is not None else None
        if spent is None or self.fallback is None:
            engine, spent = self.engine, None
        else:
            engine = self.fallback
        return self.rebuilds.run(engine, claim, state, started, spent=spent)

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

    def _process(self, claim: Claim, started: datetime, batch: Batch, gate: Gate = Gate.GO) -> RunResult:
        recent = self.store.recent_runs(claim.agent_id, self.routing.lookback) if self.routing else []
        until = self.routing.routed_until(recent) if self.routing is not None and gate is Gate.GO else None
        spent = self.budgets.check(claim.agent_id, self._clock()) if self.budgets is not None else None
        try:
            if (spent or (until is not None and self._clock() < until)) and self.fallback is not None:
                folded = fold(
                    Folding(self.fallback),
                    batch.summary,
                    claim.agent_id,
                    batch.exchanges,
                    self._clock(),
                    split_rejections=True,
                )
                why = (
                    spent.reason
                    if spent
                    else f"the model is routed around until {until and until.isoformat()}"
                )
                folded = replace(folded, degraded=why, routed=True)
            else:
                folded = fold(
                    Folding(self.engine, self.fallback, batch.instructions),
                    batch.summary,
                    claim.agent_id,
                    batch.exchanges,
                    self._clock(),
                    split_rejections=claim.consecutive_failures > 0,
                )
        except Exception as exc:
            retry_at = self.breaker.failed(exc, gate) if self.breaker is not None else None
            attempt = Attempt.on(claim.agent_id, started, batch.summary)
            if retry_at is not None:  # the provider's failure, not this agent's: hand the row back unpaid
                return self.failures.pause(claim, attempt, exc, batch.exchanges, retry_at)
            return self.failures.fail(claim, attempt, exc, batch.exchanges)
        if self.breaker is not None:
            self.breaker.succeeded(gate)
        try:
            return self._commit(claim, started, batch, folded, recent, spent)
        except (StaleSummary, LostClaim) as exc:
            lost = isinstance(exc, LostClaim)
            if not lost:
                self.store.release(claim, self._clock(), error_text(exc))
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
        found = self.store.read_batch(
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
        self,
        claim: Claim,
        started: datetime,
        batch: Batch,
        folded: Folded,
        recent: list[RecentRun] | None = None,
        spent: BudgetVerdict | None = None,
    ) -> RunResult:
        summary, pins_alert = batch.summary, batch.pins_alert
        from_version = summary.version if summary else 0
        finished = self._clock()
        exchanges, outcome = folded.exchanges, folded.outcome
        count = len(exchanges)
        run = self.runs.ok(Attempt(claim.agent_id, started, from_version), finished, folded)
        alert, resolve, recent = None, None, recent or []
        if outcome is not None and folded.degraded is not None:
            new = outcome.summary
            path = BUDGET_PATH if spent else ROUTED_PATH if folded.routed else DEGRADED_PATH
            made = VersionWrite("update", outcome.forgotten, path, self.config.worker_name)
            run = replace(run, path=path, error=f"folded offline: {folded.degraded}"[:2000])
            if spent is not None:
                alert = spent.alert
            elif self.routing is not None and self.routing.opens_now(recent):
                alert = routing_alert(claim.agent_id, self.routing, folded.degraded)
        elif outcome is not None:
            new = outcome.summary
            made = VersionWrite("update", outcome.forgotten, outcome.path.value, self.config.worker_name)
            if self.routing is not None and self.routing.was_open(recent):
                resolve = MODEL_DEGRADED
        else:
            assert folded.given_up is not None
            new = skip_version(summary, claim.agent_id, folded.given_up, finished)
            made = VersionWrite("unsummarizable", skip_drops(folded.given_up), None, self.config.worker_name)
            run = replace(run, to_version=new.version, path="unsummarizable", error=folded.given_up.cause)
            alert = skip_alert(claim.agent_id, folded.given_up)
        if batch.instructions and outcome is not None and outcome.offline:
            log.info("update.instructions_not_followed", reason="the offline summarizer does not read them")
            run = with_note(run, NOT_FOLLOWED)
        if alert is not None and pins_alert is not None:  # one alert per commit: the other one is logged
            log.warning("update.pins_left_out", message=pins_alert.message)
        alert = alert or pins_alert
        commit = UpdateCommit(
            claim=claim,
            summary=new,
            from_version=from_version,
            first_exchange_id=exchanges[0].id,
            last_exchange_id=exchanges[-1].id,
            exchange_count=count,
            run=run,
            batch_size=self.config.batch_size,
            now=finished,
            version=made,
            alert=alert,
            resolve_kind=resolve,
        )
        committed = self.store.commit(commit)
        if committed.alert_resolved:
            log.warning("alert.resolved", kind=SUMMARY_UPDATES_FAILING, version=new.version)
        if alert is not None:
            log_alert_raised(alert)
        log.info(
            "update.done",
            version=new.version,
            exchanges=count,
            path=run.path,
            llm_in=run.llm_input_tokens,
            llm_out=run.llm_output_tokens,
            truncated=run.truncated,
            ms=round((finished - started).total_seconds() * 1000),
        )
        return RunResult(
            claim.agent_id,
            Outcome.OK,
            version=new.version,
            exchanges=count,
            requeued=committed.state == PENDING,
        )

    # ----- the sweeps and aging, as the beat's tasks and the CLI call them ---------------------------

    def due(self, agent_id: str | None = None) -> list[str]:
        return self.sweeps.due(agent_id)

    def rescue(self) -> list[Rescued]:
        return self.sweeps.rescue()

    def requeue(self, agent_id: str) -> str | None:
        return self.sweeps.requeue(agent_id)

    def drain(self, agent_id: str | None = None, max_runs: int | None = None) -> DrainReport:
        return self.sweeps.drain(self.run, agent_id, max_runs)

    def age_all(self) -> int:
        return self.aging.age_all()

    def age_page(self, after: str = "") -> AgingPage:
        if self.budgets is not None and not after:  # each sweep's first page: yesterday's alerts end
            self.budgets.turn_day(self._clock())
        return self.aging.page(after)

    def age(self, now: datetime | None = None, agent_id: str | None = None) -> AgingReport:
        return self.aging.age(now, agent_id)
