"""`GET /metrics`: the project's Prometheus metrics (summarizer/metrics.py), the same registry
`summarizer metrics` serves. Fleet-wide figures, so only an unscoped (operator) token may scrape them:
in Prometheus, `authorization: {credentials: TOKEN}` in the scrape config."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, status
from fastapi.responses import Response
from prometheus_client.core import CollectorRegistry

from summarizer.http.auth import Operator
from summarizer.http.operator_routes import ERRORS
from summarizer.http.wiring import ApiServices, services
from summarizer.metrics import CONTENT_TYPE, render

router = APIRouter(tags=["operator"], responses=ERRORS)


def _registry(wired: Annotated[ApiServices, Depends(services)]) -> CollectorRegistry:
    if wired.metrics is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "metrics are not configured")
    return wired.metrics


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text format"}},
)
def metrics(_: Operator, registry: Annotated[CollectorRegistry, Depends(_registry)]) -> Response:
    """The fleet's Prometheus metrics: queue by state, parked agents, breaker, updates, LLM tokens, aging."""
    return Response(render(registry), media_type=CONTENT_TYPE)
