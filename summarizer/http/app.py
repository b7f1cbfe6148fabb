"""The FastAPI application: routers, error mapping, the unauthenticated health check.

`create_app` takes everything already wired (the composition root builds it with
`summarizer.composition.build_http_app`), so the app never reads the environment itself.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import structlog
from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from summarizer.alerting.service import UnknownAlert
from summarizer.domain.errors import InvalidMessage, UnknownAgent
from summarizer.http.auth import ApiToken
from summarizer.http.cost_routes import router as cost_router
from summarizer.http.docs_page import mount_docs
from summarizer.http.fleet_routes import router as fleet_router
from summarizer.http.host_routes import router as host_router
from summarizer.http.metrics_route import router as metrics_router
from summarizer.http.operator_routes import router as operator_router
from summarizer.http.page import mount_page
from summarizer.http.problems import problem_response, validation_problem
from summarizer.http.provenance_routes import router as provenance_router
from summarizer.http.recall_routes import router as recall_router
from summarizer.http.request_checks import BAD_REQUEST, RequestChecks
from summarizer.http.schemas import Health
from summarizer.http.steering_routes import router as steering_router
from summarizer.http.wiring import ApiServices, services
from summarizer.service.provenance import UnknownVersion

log = structlog.get_logger("summarizer.http")


def _invalid_message(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, InvalidMessage)
    body = {"detail": str(exc), "where": exc.where, "reason": exc.reason}
    return JSONResponse(body, status_code=422)


def _not_found(_request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=status.HTTP_404_NOT_FOUND)


RETRY_AFTER_S = 5
_outage_logged: list[bool] = [False]


def _database_unavailable(_request: Request, exc: Exception) -> JSONResponse:
    if not _outage_logged[0]:  # once per outage, not once per request
        log.error("http.database_unavailable", error=f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
        _outage_logged[0] = True
    return problem_response(
        status.HTTP_503_SERVICE_UNAVAILABLE,
        "the database is unavailable; retry later",
        {"Retry-After": str(RETRY_AFTER_S)},
    )


def create_app(wired: ApiServices, tokens: tuple[ApiToken, ...]) -> FastAPI:
    """The whole HTTP API; `tokens` must hold at least one (see `auth.parse_api_tokens`)."""
    if not tokens:
        raise ValueError("the HTTP API needs at least one token")
    app = FastAPI(
        title="summarizer",
        version=version("tiered-summarizer"),
        summary="Record an agent's messages, read the context to send its LLM, operate the workers.",
        docs_url=None,  # served by docs_page.mount_docs, from the installed package
        redoc_url=None,
    )
    app.add_middleware(RequestChecks)
    app.state.services = wired
    app.state.api_tokens = tokens
    app.add_exception_handler(InvalidMessage, _invalid_message)
    app.add_exception_handler(RequestValidationError, validation_problem)  # never echoes the input
    app.add_exception_handler(UnknownAgent, _not_found)
    app.add_exception_handler(UnknownAlert, _not_found)
    app.add_exception_handler(UnknownVersion, _not_found)
    for outage in wired.outages:
        app.add_exception_handler(outage, _database_unavailable)
    # Any route may answer 400 before it runs (RequestChecks), and every agent route for a bad agent id.
    refused = BAD_REQUEST
    app.include_router(host_router, responses=refused)
    app.include_router(operator_router, responses=refused)
    app.include_router(fleet_router, responses=refused)
    mount_page(app)
    mount_docs(app)
    app.include_router(metrics_router, responses=refused)
    app.include_router(provenance_router, responses=refused)
    app.include_router(recall_router, responses=refused)
    app.include_router(steering_router, responses=refused)
    app.include_router(cost_router, responses=refused)

    @app.get("/healthz", response_model=Health, tags=["health"], responses={503: {"model": Health}})
    def healthz(request: Request) -> Any:
        """Whether the database answers; needs no token (for load balancers and orchestrators)."""
        try:
            services(request).summarizer.ping()
        except Exception as exc:
            log.warning("healthz.database_unavailable", error=f"{type(exc).__name__}: {exc}")
            return JSONResponse(
                {"status": "unavailable", "database": type(exc).__name__},
                status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        if _outage_logged[0]:
            log.warning("http.database_available_again")
            _outage_logged[0] = False
        return {"status": "ok", "database": "ok"}

    return app
