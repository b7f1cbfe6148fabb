"""What the summaries cost over HTTP: the documents of `summarizer cost --json` and of
`summarizer agent budget-cost --json`.

`GET /v1/cost` (the fleet; an unscoped token) and `GET /v1/agents/{id}/cost` (one agent; a token scoped
to it may read it) price the recorded tokens with the server's table; amounts are exact decimal strings
in USD. `GET|PUT /v1/agents/{id}/budget-cost` read and set an agent's daily cap: setting it is an
operator's act (an unscoped token), so an agent cannot lift its own cap.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field, field_validator

from summarizer.domain.usd_text import parse_usd
from summarizer.http.auth import AgentId, Operator, OperatorWriter
from summarizer.http.operator_routes import window_seconds
from summarizer.http.schemas import AUTH_ERRORS, Document, Responses, problem
from summarizer.http.wiring import ApiServices, Services
from summarizer.service.costs import MAX_BUDGET_USD, By, Costs

ERRORS: Responses = {
    **AUTH_ERRORS,
    422: problem("Bad query parameter or budget"),
    503: problem("Costs are not wired in this server"),
}
AGENT_ERRORS = {**ERRORS, 404: problem("Unknown agent")}

router = APIRouter(prefix="/v1", tags=["cost"])


class CostLineOut(Document):
    key: str = Field(description="The day (YYYY-MM-DD, UTC), the agent id or the model")
    runs: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    usd: str = Field(description="Exact amount in USD, as a decimal string")


class CostOut(Document):
    since: str
    until: str
    agent: str | None
    by: By
    currency: str
    total_usd: str = Field(description="Exactly the sum of the lines, as a decimal string")
    runs: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    lines: list[CostLineOut]
    unpriced_models: list[str] = Field(description="Models with recorded tokens but no price (counted as $0)")


class BudgetOut(Document):
    agent: str
    own_budget_usd: str | None
    default_budget_usd: str | None
    budget_usd: str | None = Field(description="The cap that applies (null: none)")
    spent_today_usd: str


class BudgetIn(BaseModel):
    usd: Decimal | None = Field(
        description="Daily cap in USD (a number or a decimal string); null clears it (the default applies)",
        ge=0,
        le=MAX_BUDGET_USD,
    )

    @field_validator("usd", mode="before")
    @classmethod
    def _decimal_string(cls, value: object) -> object:
        """A string is read as typed amounts are (domain/usd_text.py): `5,00` or `1_000` is refused."""
        return parse_usd(value) if isinstance(value, str) else value


def _costs(wired: ApiServices) -> Costs:
    if wired.costs is None:
        raise HTTPException(503, "costs are not available in this server")
    return wired.costs


def _report(wired: ApiServices, agent_id: str | None, since: str, by: By) -> dict[str, Any]:
    seconds = window_seconds(since)
    return _costs(wired).recent(seconds, now=datetime.now(UTC), agent_id=agent_id, by=by).to_json()


Since = Annotated[str, Query(description="Window of runs: e.g. 24h, 7d, 2w", max_length=32)]
ByQuery = Annotated[By, Query(description="Group the figures by day, agent or model")]


@router.get("/cost", response_model=CostOut, responses=ERRORS)
def fleet_cost(_: Operator, wired: Services, since: Since = "7d", by: ByQuery = "day") -> dict[str, Any]:
    """The whole fleet's model spend over a window: recorded tokens times the price table."""
    return _report(wired, None, since, by)


@router.get("/agents/{agent_id:path}/cost", response_model=CostOut, responses=AGENT_ERRORS)
def agent_cost(
    agent_id: AgentId, wired: Services, since: Since = "7d", by: ByQuery = "day"
) -> dict[str, Any]:
    """One agent's model spend over a window (an unknown agent has spent nothing)."""
    return _report(wired, agent_id, since, by)


@router.get("/agents/{agent_id:path}/budget-cost", response_model=BudgetOut, responses=AGENT_ERRORS)
def get_budget(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """The agent's daily cap (its own, or the default) and what it has spent today."""
    return _costs(wired).budget(agent_id, datetime.now(UTC)).to_json()


@router.put("/agents/{agent_id:path}/budget-cost", response_model=BudgetOut, responses=AGENT_ERRORS)
def put_budget(agent_id: str, body: BudgetIn, _: OperatorWriter, wired: Services) -> dict[str, Any]:
    """Set (or with null clear) the agent's daily cap; once spent, its updates go offline until midnight UTC."""
    return _costs(wired).set_budget(agent_id, body.usd, datetime.now(UTC)).to_json()
