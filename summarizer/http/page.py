"""The operator's page: static HTML, CSS and JavaScript shipped in the package, served under `/ui/`.

The page is plain files (no build step, nothing fetched from elsewhere: it works offline) that call the
same JSON API as any client, with the token the operator types in. Serving the files needs no token; every
figure on the page comes from an authenticated API call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

PAGE_PATH = "/ui"
PAGE_FILES = Path(str(files("summarizer.http") / "page_files"))
# Everything the page loads comes from this origin; no inline script, no framing by other sites.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def mount_page(app: FastAPI) -> None:
    """Serve the page at `/ui/` (and redirect `/ui` there)."""

    @app.get(PAGE_PATH, include_in_schema=False)
    def page_root() -> RedirectResponse:
        return RedirectResponse(f"{PAGE_PATH}/")

    @app.middleware("http")
    async def page_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        if request.url.path.startswith(PAGE_PATH + "/"):
            response.headers.update(SECURITY_HEADERS)
        return response

    app.mount(PAGE_PATH, StaticFiles(directory=PAGE_FILES, html=True), name="page")
