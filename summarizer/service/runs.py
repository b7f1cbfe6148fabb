"""The run record (`summary_runs`), built here and nowhere else, for every way an attempt can end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from summarizer.domain.messages import EvictedExchange
from summarizer.engine.engine import UpdateOutcome
from summarizer.engine.model import Summary
from summarizer.service.poison import Folded
from summarizer.service.results import Outcome
from summarizer.storage.port import RunRecord


@dataclass(frozen=True, slots=True)
class Attempt:
    """What every record of one attempt shares: the agent, when the attempt started, and the summary
    version it started from (None until known: a rebuild's batch learns it at the commit)."""

    agent_id: str
    started: datetime
    from_version: int | None = None

    @classmethod
    def on(cls, agent_id: str, started: datetime, summary: Summary | None) -> Attempt:
        """An attempt that started from `summary` (version 0 when the agent had none)."""
        return cls(agent_id, started, summary.version if summary else 0)


@dataclass(frozen=True, slots=True)
class RunRecorder:
    """The run records of one worker, one method for each way an attempt ends."""

    worker: str

    def ok(self, attempt: Attempt, finished: datetime, folded: Folded) -> RunRecord:
        """A batch folded: what the model cost (refused answers included) and, when the exchange was
        given up on, why."""
        cause = folded.given_up.cause if folded.given_up is not None else None
        run = self._record(attempt, Outcome.OK, finished, folded.exchanges, folded.outcome, cause)
        return with_refused(run, folded)

    def failed(
        self,
        attempt: Attempt,
        outcome: Outcome,
        finished: datetime,
        error: str,
        batch: Sequence[EvictedExchange] = (),
    ) -> RunRecord:
        """An attempt that ended in `outcome` (a retry, a park, a discarded result) with `error`."""
        return self._record(attempt, outcome, finished, batch, None, error)

    def paused(
        self, attempt: Attempt, finished: datetime, error: str, batch: Sequence[EvictedExchange]
    ) -> RunRecord:
        """The provider failed, not the batch: the row waits for the breaker."""
        return self._record(attempt, Outcome.PAUSED, finished, batch, None, error)

    def parked(self, agent_id: str, now: datetime, error: str) -> RunRecord:
        """A row parked without an attempt of its own (its attempts died unfinished)."""
        return self._record(Attempt(agent_id, now), Outcome.PARKED, now, (), None, error)

    def _record(
        self,
        attempt: Attempt,
        outcome: Outcome,
        finished: datetime,
        batch: Sequence[EvictedExchange],
        update: UpdateOutcome | None,
        error: str | None,
    ) -> RunRecord:
        """What an attempt did: the batch it read, the version it started from and, when it committed
        (`update`), the version it wrote and what the model cost; otherwise the error it ended with."""
        run = RunRecord(
            agent_id=attempt.agent_id,
            started_at=attempt.started,
            finished_at=finished,
            outcome=outcome.value,
            worker=self.worker,
            from_version=attempt.from_version,
            exchange_count=len(batch),
            first_exchange_id=batch[0].id if batch else None,
            last_exchange_id=batch[-1].id if batch else None,
            error=error,
        )
        if update is None:
            return run
        return replace(
            run,
            to_version=update.summary.version,
            path=update.path.value,
            llm_input_tokens=update.llm_input_tokens,
            llm_output_tokens=update.llm_output_tokens,
            llm_cache_read_tokens=update.llm_cache_read_tokens,
            llm_cache_write_tokens=update.llm_cache_write_tokens,
            summary_tokens=update.summary_tokens,
            truncated=update.truncated,
            tokens_before_cap=update.tokens_before_cap,
            model=update.llm_model or None,
        )


NOT_FOLLOWED = "instructions not followed: the offline summarizer does not read them"
"""The run's note when the offline summarizer folded for an agent that has summary instructions."""
REBUILD_PATH = "resummarize"
"""The run path of a `resummarize` rebuild's model calls (BUDGET_PATH when a spent budget sent it offline)."""


def with_refused(run: RunRecord, folded: Folded) -> RunRecord:
    """`run` with the tokens of the answers refused on the way to it (billed like any other). When no model
    answer was kept (the offline summarizer folded, or the exchange was given up on), the run is priced at
    the model that wrote the refused answers."""
    spent_in, spent_out = folded.unusable_input_tokens, folded.unusable_output_tokens
    run = replace(
        run,
        llm_input_tokens=run.llm_input_tokens + spent_in,
        llm_output_tokens=run.llm_output_tokens + spent_out,
    )
    if (spent_in or spent_out) and (folded.outcome is None or folded.outcome.offline):
        run = replace(run, model=folded.unusable_model)
    return run


def with_spent(run: RunRecord, spent: Sequence[RunRecord]) -> RunRecord:
    """`run` with the usage of `spent` added: the runs of calls already made that no commit will record (the
    batches of a rebuild that failed or was discarded), so what they cost is on record once. Priced at
    `run`'s model, else at the latest model of `spent`."""
    if not spent:
        return run
    firsts = [r.first_exchange_id for r in spent if r.first_exchange_id is not None]
    lasts = [r.last_exchange_id for r in spent if r.last_exchange_id is not None]
    return replace(
        run,
        exchange_count=run.exchange_count + sum(r.exchange_count for r in spent),
        first_exchange_id=min(firsts, default=run.first_exchange_id),
        last_exchange_id=max(lasts, default=run.last_exchange_id),
        llm_input_tokens=run.llm_input_tokens + sum(r.llm_input_tokens for r in spent),
        llm_output_tokens=run.llm_output_tokens + sum(r.llm_output_tokens for r in spent),
        llm_cache_read_tokens=run.llm_cache_read_tokens + sum(r.llm_cache_read_tokens for r in spent),
        llm_cache_write_tokens=run.llm_cache_write_tokens + sum(r.llm_cache_write_tokens for r in spent),
        model=run.model or next((r.model for r in reversed(spent) if r.model), None),
    )


def with_note(run: RunRecord, note: str) -> RunRecord:
    """`run` with `note` after what its `error` column already says."""
    return replace(run, error="; ".join(filter(None, (run.error, note)))[:2000])
