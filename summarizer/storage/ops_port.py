"""The operators' side of the storage port: the alerts table, the fleet list and the metrics figures (see
`port.py`, which re-exports them with the rest of the port)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.update_stats import UpdateStats
from summarizer.storage.agent_listing import AgentListing, AgentOrder
from summarizer.storage.values import AgentRow, AlertDraft, Bucket, MetricFigures

# ----- alerts -------------------------------------------------------------------------------------------


class AlertStore(Protocol):
    """The alerts table as the alert service uses it, and the figures its fleet-wide rules judge."""

    def stats(self, since: datetime, until: datetime) -> UpdateStats: ...

    def open_fleet_kinds(self) -> set[str]:
        """Kinds of the open alerts that belong to no agent (the fleet-wide rules' incidents)."""
        ...

    def change_fleet_incidents(
        self, raise_: Sequence[AlertDraft], resolve: Sequence[str], now: datetime
    ) -> tuple[list[str], list[str]]:
        """In one transaction, raise each draft once and resolve each kind's open fleet-wide incident.
        Returns the kinds newly raised and the kinds actually resolved."""
        ...

    def delivery_candidates(self, resolved_since: datetime) -> list[AlertRecord]: ...

    def save_delivery(self, alert_id: int, delivery: dict[str, Any]) -> None: ...

    def list_alerts(self, *, open_only: bool, limit: int | None) -> list[AlertRecord]:
        """Newest first."""
        ...

    def acknowledge(self, alert_id: int, now: datetime) -> AlertRecord | None:
        """Stamp `acknowledged_at` (the first acknowledgement wins) and close an event alert (a kind in
        `EVENT_KINDS`: nothing is left to watch); None for an unknown id."""
        ...


# ----- the operator's page: the fleet --------------------------------------------------------------------


class FleetReader(Protocol):
    """The agent list and the update runs per time bucket (read-only, one statement per call)."""

    def agents(
        self, *, prefix: str | None, contains: str | None, after: str | None, limit: int
    ) -> list[AgentRow]: ...

    def series(self, *, since: datetime, until: datetime, buckets: int) -> list[Bucket]: ...

    def agent_page(self, *, order: AgentOrder, after: str | None, limit: int) -> list[AgentListing]:
        """`summarizer agents`: at most `limit` agents in `order` after the agent `after`, each with its
        source, counts, summary size, last activity, queue state and open alerts (one statement)."""
        ...


class MetricsReader(Protocol):
    def figures(self) -> MetricFigures:
        """Everything the Prometheus metrics show, read in one read transaction."""
        ...
