"""`summarizer serve`: the HTTP API (and its OpenAPI document at /openapi.json) on uvicorn."""

from __future__ import annotations

import errno
import socket

import click

from summarizer import composition
from summarizer.cli.runtime import current_settings
from summarizer.composition import build_http_app


class CannotListen(click.ClickException):
    exit_code = 2


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a busy port is one clear line instead of a server log."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CannotListen(f"cannot listen on {host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        reason = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise CannotListen(f"cannot listen on {host}:{port}: {reason}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


@click.command()
@click.option("--host", help="Address to listen on (default SUMMARIZER_API_HOST).")
@click.option("--port", type=click.IntRange(0, 65_535), help="Port (default SUMMARIZER_API_PORT).")
def serve(host: str | None, port: int | None) -> None:
    """Serve the HTTP API: hosts record and read conversations, operators watch the queue and alerts.

    Every endpoint but /healthz needs `Authorization: Bearer TOKEN` with a token from
    SUMMARIZER_API_TOKENS; without one configured the server does not start.
    """
    import uvicorn

    from summarizer.http.auth import parse_api_tokens, scope_notes

    settings = current_settings()
    # Refuses to go on without a token before touching the database; then opens it at the current schema.
    # A database that cannot be reached yet does not stop the server: it answers 503 until it is back.
    try:
        app = build_http_app(settings)
    except composition.database_outage_types() as exc:
        click.echo(
            f"warning: {composition.database_outage(exc, settings)}; answering 503 until it is back", err=True
        )
        app = build_http_app(settings, composition.build_database(settings))
    for note in scope_notes(parse_api_tokens(settings.api_tokens, settings.api_read_tokens)):
        click.echo(f"warning: {note}", err=True)
    sock = _listen(host or settings.api_host, settings.api_port if port is None else port)
    bound_host, bound_port = sock.getsockname()[:2]
    click.echo(
        f"summarizer HTTP API on http://{bound_host}:{bound_port} (OpenAPI at /openapi.json)", err=True
    )
    config = uvicorn.Config(
        app,
        log_level=settings.log_level.lower(),
        access_log=settings.log_level == "DEBUG",
        proxy_headers=False,
        server_header=False,
    )
    uvicorn.Server(config).run(sockets=[sock])
