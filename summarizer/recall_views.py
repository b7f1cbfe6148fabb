"""Text and JSON forms of a recall page: what `summarizer recall`, the HTTP API and the MCP tool answer."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from summarizer.domain.recall import RecallHit, RecallPage
from summarizer.humanize import age


def hit_json(hit: RecallHit) -> dict[str, Any]:
    provenance: dict[str, Any] = {"state": hit.state}
    if hit.state == "summarized":
        provenance.update(item_id=hit.item_id, version=hit.version)
    elif hit.state == "dropped":
        provenance.update(item_id=hit.item_id, version=hit.version, reason=hit.reason, detail=hit.detail)
    return {
        "exchange_id": hit.exchange_id,
        "score": hit.score,
        "started_at": hit.started_at.isoformat(),
        "ended_at": hit.ended_at.isoformat(),
        "title": hit.title,
        "provenance": provenance,
        "matched": list(hit.matched),
        "snippets": [{"seq": s.seq, "kind": s.kind, "text": s.text} for s in hit.snippets],
    }


def recall_json(page: RecallPage) -> dict[str, Any]:
    return {
        "agent_id": page.agent_id,
        "query": page.query,
        "terms": list(page.terms),
        "total": page.total,
        "capped": page.capped,
        "offset": page.offset,
        "limit": page.limit,
        "results": [hit_json(h) for h in page.hits],
    }


def where_text(hit: RecallHit) -> str:
    if hit.state == "summarized":
        return f"summarized in item {hit.item_id} (version {hit.version})"
    if hit.state == "dropped":
        return f"dropped from the summary ({hit.reason}, version {hit.version})"
    if hit.state == "waiting":
        return "evicted, waiting for a summary update"
    if hit.state == "in_window":
        return "in the window"
    return hit.state


def recall_text(page: RecallPage, now: datetime) -> str:
    if not page.hits:
        more = f" past the first {page.offset}" if page.offset else ""
        return f"No exchange of {page.agent_id!r} matches {' '.join(page.terms)!r}{more}."
    total = f"{page.total}+" if page.capped else str(page.total)
    first, last = page.offset + 1, page.offset + len(page.hits)
    lines = [f"{total} exchange(s) match; showing {first}-{last}, best first."]
    for hit in page.hits:
        lines.append("")
        lines.append(f"#{hit.exchange_id}  {age(hit.ended_at, now)}  {hit.title}  [{where_text(hit)}]")
        for s in hit.snippets:
            lines.append(f"    {s.kind}: {s.text}")
    if page.total > last:
        lines.append("")
        lines.append(f"More: --offset {last}")
    return "\n".join(lines)
