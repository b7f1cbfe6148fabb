"""What the routes are given: the wired services, set on the app by `create_app` and taken by each route
through the `services` dependency (the routers import this module, never the app)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from prometheus_client.core import CollectorRegistry

from summarizer.api import Summarizer
from summarizer.fleet_view import FleetView
from summarizer.service.operations import Operations
from summarizer.service.provenance import Provenance
from summarizer.settings import Settings


@dataclass(frozen=True)
class ApiServices:
    """What the routes use, wired by the composition root."""

    settings: Settings
    summarizer: Summarizer
    """The host facade (record, context, summary, history)."""
    operations: Operations
    """The operators' facade (queue, requeue with its wake-up, stats, alerts)."""
    fleet: FleetView
    """The agent list and the runs over time, for the operator's page."""
    metrics: CollectorRegistry | None = None
    """The fleet's Prometheus metrics for `GET /metrics` (None: the endpoint answers 404)."""
    provenance: Provenance | None = None
    """The ledger and kept versions (provenance and `?version=N`); None: those answer 503."""


def services(request: Request) -> ApiServices:
    wired: ApiServices = request.app.state.services
    return wired
