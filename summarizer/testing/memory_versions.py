"""The fake store's kept versions and ledger rows (a fake: tests only)."""

from __future__ import annotations

import copy
import threading
from datetime import datetime

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import StoredMessage
from summarizer.engine.model import Summary
from summarizer.engine.now_item import TODO_TOOLS
from summarizer.storage.port import (
    AgentSteering,
    Claim,
    DropRecord,
    KeptVersion,
    LatestTask,
    LostClaim,
    ProvenanceFacts,
    RebuildCommit,
    RunRecord,
    StaleSummary,
    VersionWrite,
)
from summarizer.testing.memory_rows import MemoryAlert, MemoryState


class MemoryVersions:
    """What `InMemoryUpdateStore` keeps besides the summary: every version and every drop row."""

    _s: MemoryState
    _lock: threading.RLock

    def _keep(self, summary: Summary, made: VersionWrite) -> None:
        assert summary.updated_at is not None
        kept = self._s.versions.setdefault(summary.agent_id, {})
        kept[summary.version] = KeptVersion(summary, made.made_by, made.run_path, summary.updated_at)
        drops = self._s.drops.setdefault(summary.agent_id, [])
        for d in made.drops:
            for x in d.exchange_ids:
                drops.append(
                    DropRecord(x, summary.version, d.reason, d.item_id, d.detail, summary.updated_at)
                )

    # ----- provenance and kept versions ------------------------------------------------------------
    def provenance(self, agent_id: str, between: tuple[int, int] | None = None) -> ProvenanceFacts | None:
        low, high = between or (0, 2**63)
        with self._lock:
            if agent_id not in self._s.agents:
                return None
            exchanges = tuple(
                (x.exchange.id, True, x.summarized_in_version, x.exchange.ended_at)
                for x in sorted(self._s.exchanges.get(agent_id, []), key=lambda x: x.exchange.id)
                if low <= x.exchange.id <= high
            )
            drops = tuple(d for d in self._s.drops.get(agent_id, []) if low <= d.exchange_id <= high)
            return ProvenanceFacts(self._s.summaries.get(agent_id), exchanges, drops)

    def agent_exists(self, agent_id: str) -> bool:
        with self._lock:
            return agent_id in self._s.agents

    def summary_version(self, agent_id: str, version: int) -> KeptVersion | None:
        with self._lock:
            return self._s.versions.get(agent_id, {}).get(version)

    def summary_versions(self, agent_id: str) -> list[KeptVersion]:
        with self._lock:
            return [v for _, v in sorted(self._s.versions.get(agent_id, {}).items())]

    def request_resummarize(self, agent_id: str, now: datetime) -> str | None:
        with self._lock:
            agent = self._s.agents.get(agent_id)
            if agent is None:
                return None
            agent.rebuild_requested_at = now
        return self.requeue(agent_id, now)

    # ----- steering (the fake holds evicted exchanges only: the "Now" pin reads their messages) -------
    def steering(self, agent_id: str) -> AgentSteering | None:
        with self._lock:
            agent = self._s.agents.get(agent_id)
            return None if agent is None else AgentSteering(agent.instructions, agent.now_item)

    def set_instructions(self, agent_id: str, instructions: str | None) -> bool:
        return self._set_steering(agent_id, "instructions", instructions)

    def set_now_item(self, agent_id: str, now_item: bool | None) -> bool:
        return self._set_steering(agent_id, "now_item", now_item)

    def _set_steering(self, agent_id: str, name: str, value: str | bool | None) -> bool:
        with self._lock:
            agent = self._s.agents.get(agent_id)
            if agent is None:
                return False
            setattr(agent, name, value)
            return True

    def latest_task(self, agent_id: str) -> LatestTask:
        with self._lock:
            held = sorted(self._s.exchanges.get(agent_id, []), key=lambda x: x.exchange.id)
            newest_first: list[StoredMessage] = [
                m for x in reversed(held) for m in sorted(x.exchange.messages, key=lambda m: -m.seq)
            ]
        request = next((m for m in newest_first if m.kind is Kind.USER), None)
        todos = next((m for m in newest_first if m.kind is Kind.TOOL_CALL and m.name in TODO_TOOLS), None)
        return LatestTask(request, todos)

    # The store itself provides these (declared here for the type checker).
    def requeue(self, agent_id: str, now: datetime) -> str | None:
        raise NotImplementedError

    def _complete(self, claim: Claim, now: datetime, more_work: bool) -> str | None:
        raise NotImplementedError

    def _swap(self, new: Summary, from_version: int) -> bool:
        raise NotImplementedError

    def commit_rebuild(self, rebuild: RebuildCommit) -> str:
        claim, new, from_version, alert = rebuild.claim, rebuild.new, rebuild.from_version, rebuild.alert
        with self._lock:
            saved = copy.deepcopy(self._s)
            try:
                assert new.updated_at is not None
                state = self._complete(claim, new.updated_at, more_work=True)
                if state is None:
                    raise LostClaim(f"claim on {claim.agent_id!r} was taken over")
                if not self._swap(new, from_version):
                    raise StaleSummary(f"summary of {new.agent_id!r} is no longer at version {from_version}")
                self._keep(new, rebuild.made)
                self._s.agents[claim.agent_id].rebuild_requested_at = None
                self._s.runs.extend(rebuild.runs)
                if alert is not None:
                    raised = MemoryAlert(
                        alert.kind, alert.agent_id, alert.message, alert.details, new.updated_at
                    )
                    self._s.alerts.append(raised)
                return state
            except BaseException:
                self._s = saved
                raise

    def record_spent(self, run: RunRecord) -> None:
        with self._lock:
            self._s.runs.append(run)

    def prune_versions(self, agent_id: str | None, keep: int) -> int:
        with self._lock:
            gone = 0
            for name, kept in self._s.versions.items():
                if agent_id is not None and name != agent_id:
                    continue
                for version in sorted(kept)[: max(len(kept) - keep, 0)]:
                    del kept[version]
                    gone += 1
            return gone
