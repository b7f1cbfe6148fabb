"""Error answers: a JSON body with `detail`, the same shape FastAPI gives its own.

A request that fails validation is answered with where and why, never with what was sent: FastAPI's own
422 echoes each rejected value (`input`) and the rule's context (`ctx`), and a rejected value may be a
pasted credential or the server's own token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from summarizer.domain import secrets
from summarizer.domain.credentials import mask_credentials
from summarizer.domain.steering_text import shown

VALIDATION_FIELDS = ("loc", "msg", "type")
"""What a validation error keeps of each problem: where, why, and which rule."""


def problem_response(status: int, detail: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=dict(headers or {}))


def _safe(text: str) -> str:
    """`text` masked (a validator's message may quote the refused value, a body's key may be a pasted
    value) and encodable (a lone surrogate is shown escaped, so the answer is a 422, never a 500)."""
    masked = secrets.redact(mask_credentials(text))
    return shown(masked) if any(0xD800 <= ord(c) <= 0xDFFF for c in masked) else masked


def _problem(error: Mapping[str, Any]) -> dict[str, Any]:
    kept = {field: error[field] for field in VALIDATION_FIELDS if field in error}
    if isinstance(kept.get("msg"), str):
        kept["msg"] = _safe(kept["msg"])
    if "loc" in kept:
        kept["loc"] = [_safe(part) if isinstance(part, str) else part for part in kept["loc"]]
    return kept


def validation_problem(_request: Request, exc: Exception) -> JSONResponse:
    """422 for a request that fails validation: each problem's place, message and type, no input."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": [_problem(error) for error in exc.errors()]}, status_code=422)
