"""An admin alert as operators and the alert service see it (the row of the alerts table, as a value)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class AlertRecord:
    id: int
    kind: str
    agent_id: str | None
    severity: str
    message: str
    details: dict[str, Any]
    created_at: datetime
    resolved_at: datetime | None
    acknowledged_at: datetime | None
    delivery: dict[str, Any]

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "agent_id": self.agent_id,
            "severity": self.severity,
            "message": self.message,
            "details": self.details,
            "created_at": self.created_at.isoformat(),
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
            "acknowledged_at": self.acknowledged_at.isoformat() if self.acknowledged_at else None,
            "open": self.is_open,
            "delivery": self.delivery,
        }
