"""The HTTP API fuzzed against its own OpenAPI document (schemathesis): no answer is a server error, and
every answer has a documented status, content type and schema. Valid and invalid requests, both databases.

The operations are driven with Hypothesis directly (`APIOperation.as_strategy`) rather than through
schemathesis' pytest plugin, which does not run under this pytest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from summarizer.composition import build_http_app
from summarizer.storage.sql.database import Database
from tests.support.http_api import (
    OPERATOR_TOKEN,
    SCOPED_TOKEN,
    api_client,
    bearer,
    exchange,
    hermetic_settings,
)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
OPERATIONS = [
    ("POST", "/v1/agents/{agent_id}/messages"),
    ("GET", "/v1/agents/{agent_id}/context"),
    ("GET", "/v1/agents/{agent_id}/summary"),
    ("GET", "/v1/agents/{agent_id}/history"),
    ("GET", "/v1/agents/{agent_id}/provenance"),
    ("GET", "/v1/agents/{agent_id}/exchanges/{exchange_id}"),
    ("GET", "/v1/queue"),
    ("POST", "/v1/agents/{agent_id}/requeue"),
    ("GET", "/v1/stats"),
    ("GET", "/v1/alerts"),
    ("POST", "/v1/alerts/{alert_id}/ack"),
    ("GET", "/v1/agents"),
    ("GET", "/v1/stats/series"),
    ("GET", "/healthz"),
    ("GET", "/metrics"),
]

# Valid and invalid requests of each operation; /healthz and /metrics take no input, so they have no
# invalid request.
RUNS = [
    pytest.param(method, path, mode, id=f"{method} {path} {mode.value}")
    for method, path in OPERATIONS
    for mode in GenerationMode
    if not (path in ("/healthz", "/metrics") and mode is GenerationMode.NEGATIVE)
]


@pytest.fixture
def api_schema(db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> schemathesis.BaseSchema:
    config = hermetic_settings(monkeypatch, tmp_path, window_tokens=100, batch_size=1)
    app = build_http_app(config, db)
    # Something to find: agents with evicted exchanges, so reads and requeue reach their success paths.
    client = api_client(db, config)
    for agent in ("a", "team-a/b"):
        seeded = client.post(f"/v1/agents/{agent}/messages", json={"messages": exchange(1) + exchange(2)})
        assert seeded.status_code == 200
    return schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.mark.parametrize(("method", "path", "mode"), RUNS)
def test_no_answer_is_a_server_error(
    api_schema: schemathesis.BaseSchema, method: str, path: str, mode: GenerationMode
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def fuzz(case: schemathesis.Case[Any]) -> None:
        case.call_and_validate(headers=bearer(OPERATOR_TOKEN), checks=CHECKS)
        case.call_and_validate(headers=bearer(SCOPED_TOKEN), checks=CHECKS)

    fuzz()
