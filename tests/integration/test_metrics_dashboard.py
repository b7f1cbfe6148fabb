"""The Grafana dashboard under docs/ queries only metrics that `summarizer metrics` exports."""

from __future__ import annotations

import json
import re

from prometheus_client.parser import text_string_to_metric_families

from summarizer.metrics import build_registry, render
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.metric_figures import SqlMetricsReader
from tests.support.services import ROOT


def test_every_dashboard_query_names_an_exported_metric(db: Database) -> None:
    exported: set[str] = set()
    for family in text_string_to_metric_families(render(build_registry(SqlMetricsReader(db))).decode()):
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count")}.get(
            family.type, ("",)
        )
        exported.update(family.name + suffix for suffix in suffixes)
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    used = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\bsummarizer_[a-z_]+", target["expr"])
    }
    assert used, "the dashboard queries nothing"
    assert used <= exported, used - exported
