"""The read-only fleet listing for `summarizer agents` (the HTTP API builds the same view in
`build_http_app`)."""

from __future__ import annotations

from summarizer.storage.port import FleetReader
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.fleet_view import SqlFleetView


def build_fleet_view(db: Database) -> FleetReader:
    return SqlFleetView(db)
