"""What the routes are given: the wired services, set on the app by `create_app` and taken by each route
through the `services` dependency (the routers import this module, never the app)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from prometheus_client.core import CollectorRegistry

from summarizer.api import Summarizer
from summarizer.service.costs import Costs
from summarizer.service.operations import Operations
from summarizer.service.provenance import Provenance
from summarizer.storage.port import FleetReader


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """The sizes the HTTP API accepts (SUMMARIZER_API_MAX_REQUEST_BYTES, SUMMARIZER_MAX_MESSAGE_BYTES)."""

    max_request_bytes: int
    max_message_bytes: int


@dataclass(frozen=True)
class ApiServices:
    """What the routes use, wired by the composition root."""

    limits: BodyLimits
    summarizer: Summarizer
    """The host facade (record, context, summary, history)."""
    operations: Operations
    """The operators' facade (queue, requeue with its wake-up, stats, alerts)."""
    fleet: FleetReader
    """The agent list and the runs over time, for the operator's page."""
    metrics: CollectorRegistry | None = None
    """The fleet's Prometheus metrics for `GET /metrics` (None: the endpoint answers 404)."""
    provenance: Provenance | None = None
    """The ledger and kept versions (provenance and `?version=N`); None: those answer 503."""
    outages: tuple[type[Exception], ...] = ()
    """Errors that mean the database cannot be reached now: answered 503 with Retry-After."""
    costs: Costs | None = None
    """Cost reports and daily budgets (`/v1/cost`, the page's cost column); None: those answer 503."""


def services(request: Request) -> ApiServices:
    wired: ApiServices = request.app.state.services
    return wired


Services = Annotated[ApiServices, Depends(services)]
"""A route's parameter for the services the app was built with."""
