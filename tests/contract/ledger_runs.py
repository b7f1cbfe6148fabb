"""Random runs through the update service, for the ledger's property tests (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from summarizer.engine.model import Summary
from summarizer.engine.ports import AnswerUnusable, LLMRequest
from summarizer.llm.fake import FakeLLM, default_answer
from summarizer.service.ledger import DROP_REASONS, DROPPED, IN_WINDOW, SUMMARIZED, WAITING, ledger_entries
from summarizer.service.provenance import Provenance
from summarizer.service.update import UpdateService
from summarizer.storage.port import ProvenanceFacts, StaleSummary
from tests.contract.support import Clock


def dropping_answer(rng: random.Random) -> Callable[[LLMRequest], Any]:
    """A valid answer that drops one batch exchange (and, on the full rung, one shown item) with a reason."""

    def answer(request: LLMRequest) -> Any:
        base = default_answer(request)
        ops = dict(base.tool_input or {})
        adds = list(ops.get("add", []))
        if len(adds) > 1:
            gone = adds.pop(rng.randrange(len(adds)))
            ops["add"] = adds
            ops["drop"] = [{"exchange_ids": gone["exchange_ids"], "reason": "small talk, nothing to keep"}]
        return type(base)(tool_input=ops, model=base.model)

    return answer


def check_partition(facts: ProvenanceFacts, evicted: set[int] | None = None) -> list[str]:
    """What breaks "every evicted exchange is in exactly one of waiting, summarized, dropped" (`evicted`
    None: the exchanges the store marks evicted)."""
    if evicted is None:
        evicted = {x for x, is_evicted, _, _ in facts.exchanges if is_evicted}
    entries = [e for e in ledger_entries(facts) if e.state != IN_WINDOW]
    problems = []
    seen = [e.id for e in entries]
    if len(seen) != len(set(seen)):
        problems.append("an exchange listed twice")
    by_id = {e.id: e for e in entries}
    if set(by_id) != evicted:
        problems.append(f"ledger ids {sorted(set(by_id) ^ evicted)} differ from the evicted set")
    summary: Summary | None = facts.summary
    cited = {x for item in summary.items for x in item.exchange_ids} if summary else set()
    watermark = (summary.covered_through_exchange_id if summary else None) or 0
    for e in entries:
        if e.state not in (WAITING, SUMMARIZED, DROPPED):
            problems.append(f"#{e.id} is {e.state}")
        if e.state == SUMMARIZED and e.id not in cited:
            problems.append(f"#{e.id} summarized but not cited")
        if e.state != SUMMARIZED and e.id in cited:
            problems.append(f"#{e.id} cited but {e.state}")
        if e.state == DROPPED and e.reason not in DROP_REASONS:
            problems.append(f"#{e.id} dropped for an unknown reason {e.reason!r}")
        if e.state == WAITING and e.id <= watermark:
            problems.append(f"#{e.id} waiting below the watermark {watermark}")
    return problems


def random_run(
    seed: int,
    svc: UpdateService,
    llm: FakeLLM,
    clock: Clock,
    evict: Callable[[list[int], Any], None],
    facts: Callable[[], ProvenanceFacts],
    provenance: Provenance,
    steps: int,
    *,
    backfill: bool = True,
    store_decides_eviction: bool = False,
) -> tuple[set[int], set[str]]:
    """Appends, model drops, poison answers, aging days, backfilled history and rollbacks, in random order;
    the ledger is checked after every step. Returns the evicted ids and the drop reasons seen."""
    rng = random.Random(seed)
    next_id, evicted, reasons = 1, set[int](), set[str]()
    for _ in range(steps):
        move = rng.random()
        if move < 0.45:
            count = rng.randint(1, 6)
            old = backfill and rng.random() < 0.15
            at = clock() - timedelta(days=rng.randint(15, 30)) if old else clock()
            ids = list(range(next_id, next_id + count))
            next_id += count
            evict(ids, at)
            evicted.update(ids)
            if rng.random() < 0.3:
                llm.push(dropping_answer(rng))
            elif rng.random() < 0.15:  # poison: every half of the batch fails too, down to one exchange
                for _ in range(3):
                    llm.push(AnswerUnusable("cut at the output limit", cause="max_tokens"))
            svc.drain("a")
        elif move < 0.65:
            clock.advance(rng.choice([3600, 86400, 3 * 86400, 8 * 86400]))
            svc.age(clock(), "a")
        elif move < 0.75:
            kept = facts().summary
            if kept is not None and kept.version > 1:
                with contextlib.suppress(StaleSummary):
                    provenance.rollback("a", rng.randint(1, kept.version - 1))
        else:
            svc.drain("a")
        current = facts()
        problems = check_partition(current, None if store_decides_eviction else evicted)
        assert not problems, (seed, problems)
        reasons.update(d.reason for d in current.drops)
    return evicted, reasons
