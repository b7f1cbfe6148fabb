"""The provenance endpoint: where each of an agent's exchanges went (the document of
`summarizer provenance --json`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from summarizer.http.auth import AgentId
from summarizer.http.schemas import READ_ERRORS, Document
from summarizer.http.wiring import ApiServices, Services
from summarizer.service.provenance import Provenance

router = APIRouter(prefix="/v1/agents/{agent_id:path}", tags=["host"])


class LedgerEntryOut(Document):
    id: int
    state: str
    item_id: str | None
    version: int | None
    reason: str | None
    detail: str | None


class ProvenanceOut(Document):
    agent_id: str
    exchanges: list[LedgerEntryOut]


def provenance_of(wired: ApiServices) -> Provenance:
    if wired.provenance is None:
        raise HTTPException(503, "provenance is not wired into this server")
    return wired.provenance


@router.get("/provenance", response_model=ProvenanceOut, responses=READ_ERRORS)
def provenance(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """Every exchange: `in_window`, `waiting`, `summarized` (by which item of which version) or `dropped`
    (in which version, with its reason: model, cap, aging, unsummarizable, rollback)."""
    entries = provenance_of(wired).ledger(agent_id)
    return {"agent_id": agent_id, "exchanges": [e.to_json() for e in entries]}
