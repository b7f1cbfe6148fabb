"""Error answers: a JSON body with `detail`, the same shape FastAPI gives its own."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi.responses import JSONResponse


def problem_response(status: int, detail: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=dict(headers or {}))
