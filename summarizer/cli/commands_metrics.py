"""`summarizer metrics`: the project's Prometheus metrics over HTTP (`GET /metrics`)."""

from __future__ import annotations

import errno
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import click
from prometheus_client.exposition import ThreadingWSGIServer, make_wsgi_app

from summarizer import composition
from summarizer.cli.runtime import current_settings


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """One line per scrape would drown the logs."""


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=9464, show_default=True, type=click.IntRange(0, 65535), help="Port.")
def metrics(host: str, port: int) -> None:
    """Serve the fleet's Prometheus metrics (queue, breaker, updates, LLM tokens, aging) at /metrics."""
    app = make_wsgi_app(composition.build_metrics_registry(current_settings()))
    try:
        server: WSGIServer = make_server(host, port, app, ThreadingWSGIServer, handler_class=_QuietHandler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise click.ClickException(f"{host}:{port} is already in use (choose another --port)") from None
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    click.echo(f"serving metrics on http://{host}:{server.server_port}/metrics", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
