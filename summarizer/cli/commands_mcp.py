"""`summarizer mcp`: an agent's memory (summary, recall, exchanges, history) as an MCP server."""

from __future__ import annotations

import click

from summarizer import composition
from summarizer.cli.commands_serve import _listen
from summarizer.cli.params import AGENT_ID
from summarizer.cli.runtime import current_settings


@click.command()
@click.option("--agent", "agent_id", type=AGENT_ID, help="Serve this agent only: its tools take no agent_id.")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: for an MCP client that starts the server; http: streamable HTTP at /mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (http).")
@click.option("--port", type=click.IntRange(0, 65_535), default=8765, show_default=True, help="Port (http).")
def mcp(agent_id: str | None, transport: str, host: str, port: int) -> None:
    """Serve an agent's memory over the Model Context Protocol: the tools `summary`, `recall`, `exchange`
    and `history`, and the summary as a resource.

    Over http every request needs `Authorization: Bearer TOKEN` with a token of SUMMARIZER_API_TOKENS,
    scoped as for the HTTP API (`token@team-a/` sees the agents under `team-a/`, `token@team-a` only the
    agent `team-a`); sessions per token and their idle time are bounded (SUMMARIZER_MCP_*).
    """
    from summarizer.http.auth import parse_api_tokens, scope_notes
    from summarizer.mcp_server import Memory, SessionLimits, build_mcp_server, streamable_http_app

    settings = current_settings()
    tokens = parse_api_tokens(settings.api_tokens, settings.api_read_tokens) if transport == "http" else ()
    for note in scope_notes(tokens):
        click.echo(f"warning: {note}", err=True)
    db = composition.open_database(settings)
    memory = Memory(
        summarizer=composition.build_summarizer(settings, db),
        ledger=composition.build_provenance(settings, db).ledger,
    )
    if agent_id is not None and not memory.summarizer.store.agent_exists(agent_id):
        click.echo(f"warning: agent {agent_id!r} has no stored messages yet", err=True)
    if transport == "stdio":
        build_mcp_server(memory, agent=agent_id).run("stdio")
        return
    import uvicorn

    sock = _listen(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    url = f"http://{bound_host}:{bound_port}/mcp"
    server = build_mcp_server(memory, agent=agent_id, tokens=tokens, http_url=url)
    limits = SessionLimits(
        max_sessions=settings.mcp_max_sessions,
        per_token=settings.mcp_sessions_per_token,
        idle_seconds=settings.mcp_session_idle_seconds,
    )
    app = streamable_http_app(server, tokens, limits, host=host)
    click.echo(f"summarizer MCP server on {url} (streamable HTTP, bearer token required)", err=True)
    config = uvicorn.Config(app, log_level="warning", proxy_headers=False, server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
