"""A fake: the storage port's `UpdateStore` held in memory, for unit tests of the update service.

It keeps the contract the SQL backend keeps (claim and lease rules, the commit's guards, all-or-nothing
writes, one alert per incident) so the service's logic can be tested with no database. It is not a
store for production: nothing is persisted and there is no concurrency control beyond one lock.
"""

from __future__ import annotations

import copy
import secrets
import threading
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from summarizer.domain.messages import EvictedExchange
from summarizer.domain.queue_states import FAILED, IDLE, PENDING, RUNNING
from summarizer.engine.model import Summary
from summarizer.storage.port import (
    AgentState,
    AlertDraft,
    Claim,
    Committed,
    EvictedBatch,
    ParkedRun,
    Rescued,
    RunRecord,
    StaleSummary,
    UpdateCommit,
    VersionWrite,
)
from summarizer.storage.sql.statements import queue_moves
from summarizer.storage.sql.statements.commit_guards import FOLDED, LOST, STALE, guard_error
from summarizer.storage.values import LEASE_EXPIRED_ERROR, SUMMARY_UPDATES_FAILING, RecentRun, Retry
from summarizer.testing.memory_rows import MemoryAgent, MemoryAlert, MemoryExchange, MemoryRow, MemoryState
from summarizer.testing.memory_versions import MemoryVersions


class InMemoryUpdateStore(MemoryVersions):
    """`UpdateStore` (and the provenance half of `OperatorStore`) in a dict. Tests feed it with `evict()` and read `rows`, `runs`, `alerts`, `summaries`."""

    def __init__(self) -> None:
        self._s = MemoryState()
        self._lock = threading.RLock()

    # ----- what tests set up and inspect -------------------------------------------------------------
    @property
    def rows(self) -> dict[str, MemoryRow]:
        return self._s.rows

    @property
    def runs(self) -> list[RunRecord]:
        return self._s.runs

    @property
    def alerts(self) -> list[MemoryAlert]:
        return self._s.alerts

    @property
    def agents(self) -> dict[str, MemoryAgent]:
        return self._s.agents

    def folded(self, agent_id: str) -> dict[int, int | None]:
        """Exchange id -> the summary version it was folded into (None: not yet)."""
        return {x.exchange.id: x.summarized_in_version for x in self._s.exchanges.get(agent_id, [])}

    def evict(self, agent_id: str, exchanges: Iterable[EvictedExchange], now: datetime) -> None:
        """Exchanges leaving `agent_id`'s window: counted unsummarized, and the agent's queue row armed."""
        with self._lock:
            agent = self._s.agents.setdefault(agent_id, MemoryAgent())
            stored = self._s.exchanges.setdefault(agent_id, [])
            for x in exchanges:
                stored.append(MemoryExchange(x))
                agent.unsummarized += 1
                agent.window_start = max(agent.window_start, x.id + 1)
            if agent.unsummarized and agent.unsummarized_since is None:
                agent.unsummarized_since = now
            self._arm(agent_id, now)

    def _arm(self, agent_id: str, now: datetime) -> None:
        row = self._s.rows.get(agent_id)
        if row is None:
            self._s.rows[agent_id] = MemoryRow(PENDING, queued_at=now, available_at=now, dirty=False)
        elif row.state == IDLE:
            row.state, row.queued_at, row.available_at = PENDING, now, now
        elif row.state == RUNNING:
            row.dirty = True

    # ----- one update ------------------------------------------------------------------------------
    def _claimable(self, row: MemoryRow, now: datetime) -> bool:
        if row.state == PENDING:
            return row.available_at <= now
        return row.state == RUNNING and row.lease_expires_at is not None and row.lease_expires_at < now

    def _due(self, now: datetime, agent_id: str | None) -> list[str]:
        rows = [
            (r.priority, r.available_at, name)
            for name, r in self._s.rows.items()
            if (agent_id is None or name == agent_id) and self._claimable(r, now)
        ]
        return [name for _, _, name in sorted(rows)]

    def _alert_open(self, agent_id: str) -> MemoryAlert | None:
        for a in self._s.alerts:
            if a.kind == SUMMARY_UPDATES_FAILING and a.agent_id == agent_id and a.resolved_at is None:
                return a
        return None

    def claim(
        self, now: datetime, lease_seconds: float, agent_id: str | None
    ) -> tuple[Claim, AgentState | None] | None:
        with self._lock:
            due = self._due(now, agent_id)
            if not due:
                return None
            name = due[0]
            row = self._s.rows[name]
            if row.state == RUNNING:
                row.consecutive_failures += 1
                row.last_error = LEASE_EXPIRED_ERROR
            row.state, row.dirty, row.attempts = RUNNING, False, row.attempts + 1
            row.claim_token = secrets.token_hex(16)
            row.lease_expires_at = now + timedelta(seconds=lease_seconds)
            claim = Claim(
                agent_id=name,
                token=row.claim_token,
                attempts=row.attempts,
                consecutive_failures=row.consecutive_failures,
                lease_expires_at=row.lease_expires_at,
                rescued=row.last_error == LEASE_EXPIRED_ERROR and row.consecutive_failures > 0,
                alert_open=self._alert_open(name) is not None,
            )
            agent = self._s.agents.get(name)
            if agent is None:
                return claim, None
            state = AgentState(
                agent.window_start,
                agent.unsummarized_since,
                self._s.summaries.get(name),
                agent.rebuild_requested_at,
                agent.instructions,
                agent.now_item,
            )
            return claim, state

    def read_batch(
        self, agent_id: str, *, after: int, before: int, max_exchanges: int, max_tokens: int
    ) -> EvictedBatch:
        with self._lock:
            candidates = sorted(
                (x.exchange for x in self._s.exchanges.get(agent_id, []) if after < x.exchange.id < before),
                key=lambda x: x.id,
            )[:max_exchanges]
            batch: list[EvictedExchange] = []
            running = 0
            for x in candidates:
                running += x.tokens
                if batch and running > max_tokens:
                    break
                batch.append(x)
            return EvictedBatch(tuple(batch), len(candidates))

    def _held(self, claim: Claim) -> MemoryRow | None:
        row = self._s.rows.get(claim.agent_id)
        if row is None or row.state != RUNNING or row.claim_token != claim.token:
            return None
        return row

    def _let_go(self, row: MemoryRow, now: datetime, **values: Any) -> None:
        row.lease_expires_at, row.claim_token, row.dirty = None, None, False
        for name, value in values.items():
            setattr(row, name, value)

    def _complete(self, claim: Claim, now: datetime, more_work: bool) -> str | None:
        row = self._held(claim)
        if row is None:
            return None
        again = row.dirty or more_work
        self._let_go(
            row,
            now,
            state=PENDING if again else IDLE,
            queued_at=now if again else row.queued_at,
            available_at=now,
            priority=0,
            attempts=0,
            consecutive_failures=0,
            last_error=None,
        )
        return row.state

    def finish_idle(self, claim: Claim, now: datetime) -> str | None:
        with self._lock:
            return self._complete(claim, now, more_work=False)

    def release(self, claim: Claim, now: datetime, reason: str) -> bool:
        with self._lock:
            row = self._held(claim)
            if row is None:
                return False
            self._let_go(row, now, **queue_moves.released(now, reason))
            return True

    def commit(self, commit: UpdateCommit) -> Committed:
        with self._lock:
            saved = copy.deepcopy(self._s)
            try:
                return self._commit(commit)
            except BaseException:
                self._s = saved
                raise

    def _commit(self, commit: UpdateCommit) -> Committed:
        claim, now = commit.claim, commit.now
        agent = self._s.agents[claim.agent_id]
        left = agent.unsummarized - commit.exchange_count
        agent.unsummarized = max(left, 0)
        agent.unsummarized_since = now if left > 0 else None
        state = self._complete(claim, now, more_work=agent.unsummarized >= commit.batch_size)
        if state is None:
            raise guard_error(LOST, commit)
        if not self._swap(commit.summary, commit.from_version):
            raise guard_error(STALE, commit)
        batch = [
            x
            for x in self._s.exchanges.get(claim.agent_id, [])
            if commit.first_exchange_id <= x.exchange.id <= commit.last_exchange_id
            and x.summarized_in_version is None
        ]
        if len(batch) != commit.exchange_count:
            raise guard_error(FOLDED, commit)
        for x in batch:
            x.summarized_in_version = commit.summary.version
        self._keep(commit.summary, commit.version)
        self._s.runs.append(commit.run)
        if commit.alert is not None:
            a = commit.alert
            self._s.alerts.append(MemoryAlert(a.kind, a.agent_id, a.message, a.details, now))
        resolved = False
        if claim.alert_open:
            open_alert = self._alert_open(claim.agent_id)
            if open_alert is not None:
                open_alert.resolved_at, resolved = now, True
        for al in self._s.alerts:
            if (al.kind, al.agent_id, al.resolved_at) == (commit.resolve_kind, claim.agent_id, None):
                al.resolved_at = now
        return Committed(state, resolved)

    def recent_runs(self, agent_id: str, limit: int) -> list[RecentRun]:
        runs = [r for r in reversed(self._s.runs) if r.agent_id == agent_id][:limit]
        return [RecentRun(r.outcome, r.path, r.finished_at) for r in runs]

    def _swap(self, new: Summary, from_version: int) -> bool:
        current = self._s.summaries.get(new.agent_id)
        if (current.version if current else 0) != from_version:
            return False
        self._s.summaries[new.agent_id] = new
        return True

    # ----- failures --------------------------------------------------------------------------------
    def schedule_retry(self, claim: Claim, now: datetime, retry: Retry) -> bool:
        with self._lock:
            row = self._held(claim)
            if row is None:
                return False
            moves = queue_moves.retried(retry.available_at, retry.priority, retry.failures, retry.error)
            self._let_go(row, now, **moves)
            self._s.runs.append(retry.run)
            return True

    def park(
        self, claim: Claim, now: datetime, *, failures: int, error: str, run: RunRecord, alert: AlertDraft
    ) -> bool | None:
        with self._lock:
            row = self._held(claim)
            if row is None:
                return None
            self._let_go(row, now, **queue_moves.parked(failures, error))
            self._s.runs.append(run)
            return self._raise_once(alert, now)

    def _raise_once(self, alert: AlertDraft, now: datetime) -> bool:
        for a in self._s.alerts:
            if a.kind == alert.kind and a.agent_id == alert.agent_id and a.resolved_at is None:
                return False
        self._s.alerts.append(MemoryAlert(alert.kind, alert.agent_id, alert.message, alert.details, now))
        return True

    # ----- sweeps ----------------------------------------------------------------------------------
    def arm_waiting(self, now: datetime, max_wait_seconds: float, limit: int) -> list[str]:
        cutoff = now - timedelta(seconds=max_wait_seconds)
        with self._lock:
            waiting = sorted(
                (a.unsummarized_since, name)
                for name, a in self._s.agents.items()
                if a.unsummarized > 0
                and a.unsummarized_since is not None
                and a.unsummarized_since <= cutoff
                and (name not in self._s.rows or self._s.rows[name].state == IDLE)
            )[:limit]
            for _, name in waiting:
                self._arm(name, now)
            return [name for _, name in waiting]

    def due_agents(self, now: datetime, limit: int, agent_id: str | None = None) -> list[str]:
        with self._lock:
            return self._due(now, agent_id)[:limit]

    def rescue_expired(
        self, now: datetime, max_retries: int, parked_run: ParkedRun
    ) -> tuple[list[Rescued], list[str]]:
        rescued: list[Rescued] = []
        raised: list[str] = []
        with self._lock:
            for name, row in sorted(self._s.rows.items()):
                if row.state != RUNNING or row.lease_expires_at is None or row.lease_expires_at >= now:
                    continue
                failures = row.consecutive_failures + 1
                over = failures > max_retries
                self._let_go(
                    row,
                    now,
                    state=FAILED if over else PENDING,
                    available_at=now,
                    consecutive_failures=failures,
                    last_error=LEASE_EXPIRED_ERROR,
                )
                r = Rescued(name, failures, over)
                rescued.append(r)
                if over:
                    run, alert = parked_run(r)
                    self._s.runs.append(run)
                    if self._raise_once(alert, now):
                        raised.append(name)
        return rescued, raised

    def requeue(self, agent_id: str, now: datetime) -> str | None:
        with self._lock:
            if agent_id not in self._s.agents:
                return None
            row = self._s.rows.get(agent_id)
            if row is None:
                self._arm(agent_id, now)
                return "none"
            if row.state == RUNNING:
                return RUNNING
            previous = row.state
            self._s.rows[agent_id] = MemoryRow(PENDING, queued_at=now, available_at=now)
            return previous

    # ----- aging -----------------------------------------------------------------------------------
    def agents_due_for_aging(self, today: date, limit: int, after: str = "") -> list[str]:
        with self._lock:
            due = sorted(
                name
                for name, s in self._s.summaries.items()
                if name > after and (s.last_aged_on is None or s.last_aged_on < today)
            )
            return due[:limit]

    def load_summary(self, agent_id: str) -> Summary | None:
        with self._lock:
            return self._s.summaries.get(agent_id)

    def swap_summary(self, new: Summary, from_version: int, made: VersionWrite) -> None:
        with self._lock:
            if not self._swap(new, from_version):
                raise StaleSummary(f"summary of {new.agent_id!r} is no longer at version {from_version}")
            self._keep(new, made)

    def load_summaries(self, agent_ids: Sequence[str]) -> list[Summary]:
        with self._lock:
            return [self._s.summaries[a] for a in sorted(agent_ids) if a in self._s.summaries]

    def swap_summaries(self, swaps: Sequence[tuple[Summary, int, VersionWrite]]) -> list[str]:
        with self._lock:
            stored = []
            for new, from_version, made in swaps:
                if self._swap(new, from_version):
                    self._keep(new, made)
                    stored.append(new.agent_id)
            return stored
