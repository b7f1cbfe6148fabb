"""`resummarize`: rebuild an agent's summary from its stored history with the current model.

The request sets a flag on the agent and arms its queue row; the worker that claims the row sees the
flag with the agent's state (no extra read) and, instead of folding the next batch, folds every
exchange the summary has covered, batch by batch from an empty summary, through the same engine and
poison handling as an update. The result is swapped in with a compare-and-swap on the version it
started from, kept as a version made by `resummarize`, with a drop row for every covered exchange the
rebuilt summary does not cite, a run record for each batch's calls (what they cost, priced at the model
that answered) and the flag cleared, in one transaction. If an update or an aging pass committed
meanwhile the rebuild is discarded and the flag stays, so the next claim tries again.

The daily cost budgets apply as to an update: the worker checks them when the rebuild starts, and a spent
one rebuilds with the offline summarizer (its runs' path `offline-budget`, their error column saying why)
and raises the agent's `cost_budget` alert in the rebuild's commit, once a day as an update does.

Money spent is recorded whatever becomes of the rebuild. When it fails partway (the model errors on a
later batch), is discarded (an update committed meanwhile, the claim was lost) or is interrupted (a
signal, a worker shutting down), the summary stays as it was and one run record takes the tokens of
every call made: the failure's own (a retry or a park, with the error) or, when nothing else is written,
one of its own (`stale`, `lost`, or `retry` for an interruption, its lease left to expire).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from datetime import datetime

import structlog

from summarizer.domain.clock import Clock
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.model import Summary
from summarizer.engine.provenance import ForgetReason, Forgotten, cited_exchanges
from summarizer.service.cost_budgets import BudgetVerdict
from summarizer.service.failures import Failures, log_alert_raised
from summarizer.service.poison import Folded, Folding, fold
from summarizer.service.results import Outcome, RunResult, WorkerConfig, error_text
from summarizer.service.runs import (
    NOT_FOLLOWED,
    REBUILD_PATH,
    Attempt,
    RunRecorder,
    with_note,
    with_spent,
)
from summarizer.storage.cost_port import BUDGET_PATH
from summarizer.storage.port import (
    AgentState,
    AlertDraft,
    Claim,
    LostClaim,
    RebuildCommit,
    RunRecord,
    StaleSummary,
    UpdateStore,
    VersionWrite,
)

log = structlog.get_logger("summarizer.worker")


class Rebuilds:
    """Rebuild a claimed agent's summary (`resummarize`), with what every call spent on record."""

    def __init__(self, store: UpdateStore, config: WorkerConfig, clock: Clock, failures: Failures) -> None:
        self.store = store
        self.config = config
        self._clock = clock
        self.failures = failures
        self.runs = RunRecorder(config.worker_name)

    def run(
        self,
        engine: SummaryEngine,
        claim: Claim,
        state: AgentState,
        started: datetime,
        *,
        spent: BudgetVerdict | None = None,
    ) -> RunResult:
        """The worker's rebuild: `engine` is the offline summarizer when `spent` (a spent budget, whose
        alert the commit raises); the result, with what a failure or a discarded rebuild spent on record."""
        runs: list[RunRecord] = []
        path = BUDGET_PATH if spent is not None else REBUILD_PATH
        alert = spent.alert if spent is not None else None
        attempt = Attempt.on(claim.agent_id, started, state.summary)

        def record(outcome: Outcome, error: str) -> None:
            """When no other record will: one run with what the batches done so far spent."""
            if not runs:
                return
            base = self.runs.failed(attempt, outcome, self._clock(), error)
            self.store.record_spent(replace(with_spent(base, runs), path=path))

        try:
            offline = spent.reason if spent is not None else None
            new = self.rebuild(engine, claim, state, offline=offline, alert=alert, runs=runs)
        except (StaleSummary, LostClaim) as exc:
            lost = isinstance(exc, LostClaim)
            record(Outcome.LOST if lost else Outcome.STALE, error_text(exc))
            if not lost:
                self.store.release(claim, self._clock(), error_text(exc))
            return RunResult(claim.agent_id, Outcome.LOST if lost else Outcome.STALE, error=str(exc))
        except Exception as exc:
            failed = self.failures.fail(claim, attempt, exc, (), spent=runs, path=path)
            if failed.outcome is Outcome.LOST:  # the claim was taken over: the failure wrote nothing
                record(Outcome.LOST, error_text(exc))
            return failed
        except BaseException as exc:  # interrupted: the calls made are on record before the process stops
            with contextlib.suppress(Exception):
                record(Outcome.RETRY, f"interrupted ({type(exc).__name__}) after {len(runs)} batch(es)")
            raise
        if alert is not None:
            log_alert_raised(alert)
        return RunResult(claim.agent_id, Outcome.OK, version=new.version, requeued=True)

    def rebuild(
        self,
        engine: SummaryEngine,
        claim: Claim,
        state: AgentState,
        *,
        offline: str | None = None,
        alert: AlertDraft | None = None,
        runs: list[RunRecord] | None = None,
    ) -> Summary:
        """Rebuild and swap in; returns the new summary. Raises what the engine or the commit raises.
        `offline`: why `engine` is the offline summarizer (a spent budget), noted on the runs; `alert`:
        raised in the commit; `runs`: where each batch's run record goes as its calls return (the
        caller's, so a failure still knows what was spent)."""
        store, config, clock = self.store, self.config, self._clock
        current = state.summary
        covered = (current.covered_through_exchange_id if current else None) or 0
        # The rebuild starts from the pins alone, so its items are capped against them as an update's are.
        built: Summary | None = replace(Summary.empty(claim.agent_id), pins=current.pins) if current else None
        last_reason: dict[int, Forgotten] = {}
        runs = [] if runs is None else runs
        after = 0
        while after < covered:
            batch = store.read_batch(
                claim.agent_id,
                after=after,
                before=covered + 1,
                max_exchanges=config.max_batch_exchanges,
                max_tokens=config.max_batch_input_tokens,
            ).exchanges
            if not batch:
                break
            started = clock()
            folded = fold(
                Folding(engine, instructions=state.instructions),
                built,
                claim.agent_id,
                batch,
                clock(),
                split_rejections=True,
            )
            runs.append(self._run(Attempt(claim.agent_id, started), folded, offline, state.instructions))
            if folded.outcome is not None:
                built = folded.outcome.summary
                records: tuple[Forgotten, ...] = folded.outcome.forgotten
            else:
                assert folded.given_up is not None
                x = folded.given_up.exchange.id
                base = built or Summary.empty(claim.agent_id)
                built = replace(base, version=base.version + 1, covered_through_exchange_id=x)
                records = (Forgotten((x,), "unsummarizable", None, folded.given_up.cause[:1000]),)
            for record in records:
                for x in record.exchange_ids:
                    last_reason[x] = record
            after = folded.exchanges[-1].id
        now = clock()
        from_version = current.version if current else 0
        items = built.items if built else ()
        new = Summary(
            agent_id=claim.agent_id,
            version=from_version + 1,
            items=items,
            covered_through_exchange_id=current.covered_through_exchange_id if current else None,
            token_count=built.token_count if built else 0,
            updated_at=now,
            last_aged_on=None,
            pins=current.pins if current else (),
        )
        cited = cited_exchanges(items)
        known = cited_exchanges(current.items) if current else set()
        drops: dict[tuple[ForgetReason, str | None, str], list[int]] = {}
        for x in sorted((set(last_reason) | known) - cited):
            found = last_reason.get(x)
            key = (found.reason, None, found.detail) if found else ("model", None, "left out by the rebuild")
            drops.setdefault(key, []).append(x)
        made = VersionWrite(
            "resummarize",
            tuple(
                Forgotten(tuple(ids), reason, item, detail) for (reason, item, detail), ids in drops.items()
            ),
            None,
            config.worker_name,
        )
        done = tuple(replace(r, from_version=from_version, to_version=new.version) for r in runs)
        store.commit_rebuild(RebuildCommit(claim, new, from_version, made, done, alert))
        log.info("summary.rebuilt", version=new.version, items=len(items), covered=covered)
        return new

    def _run(
        self, attempt: Attempt, folded: Folded, offline: str | None, instructions: str | None
    ) -> RunRecord:
        """The run record of one batch of the rebuild: its calls' tokens and model, its path, and notes."""
        run = self.runs.ok(attempt, self._clock(), folded)
        run = replace(run, path=BUDGET_PATH if offline else REBUILD_PATH)
        if offline:
            run = with_note(run, f"folded offline: {offline}")
        if instructions and folded.outcome is not None and folded.outcome.offline:
            run = with_note(run, NOT_FOLLOWED)
        return run
