"""`resummarize`: rebuild an agent's summary from its stored history with the current model.

The request sets a flag on the agent and arms its queue row; the worker that claims the row sees the
flag with the agent's state (no extra read) and, instead of folding the next batch, folds every
exchange the summary has covered, batch by batch from an empty summary, through the same engine and
poison handling as an update. The result is swapped in with a compare-and-swap on the version it
started from, kept as a version made by `resummarize`, with a drop row for every covered exchange the
rebuilt summary does not cite, and the flag cleared, in one transaction. If an update or an aging pass
committed meanwhile the rebuild is discarded and the flag stays, so the next claim tries again.
"""

from __future__ import annotations

from dataclasses import replace

import structlog

from summarizer.domain.clock import Clock
from summarizer.engine.engine import SummaryEngine
from summarizer.engine.model import Summary
from summarizer.engine.provenance import ForgetReason, Forgotten, cited_exchanges
from summarizer.service.poison import fold
from summarizer.service.results import WorkerConfig
from summarizer.storage.port import AgentState, Claim, UpdateStore, VersionWrite

log = structlog.get_logger("summarizer.worker")


def rebuild(
    store: UpdateStore,
    engine: SummaryEngine,
    config: WorkerConfig,
    claim: Claim,
    state: AgentState,
    clock: Clock,
) -> Summary:
    """Rebuild and swap in; returns the new summary. Raises what the engine or the commit raises."""
    current = state.summary
    covered = (current.covered_through_exchange_id if current else None) or 0
    # The rebuild starts from the pins alone, so its items are capped against them as an update's are.
    built: Summary | None = replace(Summary.empty(claim.agent_id), pins=current.pins) if current else None
    last_reason: dict[int, Forgotten] = {}
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
        folded = fold(
            engine,
            built,
            claim.agent_id,
            batch,
            clock(),
            split_rejections=True,
            instructions=state.instructions,
        )
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
        tuple(Forgotten(tuple(ids), reason, item, detail) for (reason, item, detail), ids in drops.items()),
        None,
        config.worker_name,
    )
    store.commit_rebuild(claim, new, from_version, made)
    log.info("summary.rebuilt", version=new.version, items=len(items), covered=covered)
    return new
