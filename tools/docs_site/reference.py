"""The reference page of the documentation site, read from the code itself: the HTTP routes from the
FastAPI app's OpenAPI document, the MCP tools and resources from the server's registry, and the commands
from the click group. Nothing here is kept in the repository: the mkdocs hook renders it at build time.

The app and the server are built on a throw-away embedded database in a temporary directory, with a
throw-away token, so building the site needs no settings and touches no real database.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any

import click

from summarizer import composition
from summarizer.cli.main import cli
from summarizer.mcp_server import Memory, build_mcp_server
from summarizer.settings import Settings

METHOD_ORDER = ("get", "post", "put", "patch", "delete")
TAG_TITLES = {
    "host": "Host endpoints",
    "operator": "Operator endpoints",
    "cost": "Cost",
    "health": "Health",
}


def _cell(text: str) -> str:
    """One table cell: the first paragraph of `text`, on one line, with `|` escaped."""
    first = text.strip().split("\n\n", 1)[0]
    return " ".join(first.split()).replace("|", "\\|")


def http_section(spec: Mapping[str, Any]) -> str:
    """The route table of an OpenAPI document, one table per tag."""
    by_tag: dict[str, list[str]] = {}
    for path, operations in spec.get("paths", {}).items():
        for method in METHOD_ORDER:
            operation = operations.get(method)
            if operation is None:
                continue
            tag = (operation.get("tags") or ["other"])[0]
            what = _cell(operation.get("description") or operation.get("summary") or "")
            by_tag.setdefault(tag, []).append(f"| `{method.upper()}` | `{path}` | {what} |")
    lines = [
        "## HTTP API",
        "",
        f"{spec.get('info', {}).get('title', '')} {spec.get('info', {}).get('version', '')}: the routes of "
        "`summarizer serve`, read from its OpenAPI document (served at `/openapi.json`, browsable at "
        "`/docs`). Every route but `GET /healthz` needs a bearer token ([HTTP API](http-api.md)).",
    ]
    for tag in sorted(
        by_tag, key=lambda t: list(TAG_TITLES).index(t) if t in TAG_TITLES else len(TAG_TITLES)
    ):
        lines += ["", f"### {TAG_TITLES.get(tag, tag.title())}", ""]
        lines += ["| Method | Path | What it does |", "| --- | --- | --- |", *by_tag[tag]]
    return "\n".join(lines) + "\n"


def _arguments(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required") or ())
    names = [f"`{name}`" + ("" if name in required else "?") for name in schema.get("properties", {})]
    return ", ".join(names) or "(none)"


def mcp_section(any_agent: Iterable[Any], one_agent: Iterable[Any], resources: Iterable[str]) -> str:
    """The MCP tools of both modes (`summarizer mcp` and `summarizer mcp --agent ID`) and the resources."""
    one = {tool.name: tool for tool in one_agent}
    lines = [
        "## MCP server",
        "",
        "The tools of `summarizer mcp`, read from the server's tool registry. Without `--agent` each tool "
        "takes an `agent_id`; with `--agent ID` it acts on that agent and takes the arguments in the last "
        "column. `?` marks an optional argument ([Recall and MCP](recall.md)).",
        "",
        "| Tool | What it does | Arguments | With `--agent` |",
        "| --- | --- | --- | --- |",
    ]
    for tool in any_agent:
        single = one.get(tool.name)
        scoped = _arguments(single.input_schema) if single is not None else "(not offered)"
        lines.append(
            f"| `{tool.name}` | {_cell(tool.description or '')} | {_arguments(tool.input_schema)} | {scoped} |"
        )
    lines += ["", "Resources: " + ", ".join(f"`{uri}`" for uri in resources) + "."]
    return "\n".join(lines) + "\n"


def cli_section(group: click.Group) -> str:
    """Each command of the `summarizer` group with its one-line help; groups list their subcommands."""
    ctx = click.Context(group, info_name="summarizer")
    lines = [
        "## Commands",
        "",
        "`summarizer --help` and `summarizer COMMAND --help` say the rest.",
        "",
        "| Command | What it does |",
        "| --- | --- |",
    ]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None:
            continue
        lines.append(f"| `summarizer {name}` | {_cell(command.get_short_help_str(200))} |")
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            for sub in command.list_commands(sub_ctx):
                found = command.get_command(sub_ctx, sub)
                if found is not None:
                    lines.append(f"| `summarizer {name} {sub}` | {_cell(found.get_short_help_str(200))} |")
    return "\n".join(lines) + "\n"


async def _mcp_registry(memory: Memory) -> tuple[list[Any], list[Any], list[str]]:
    any_server = build_mcp_server(memory, agent=None)
    one_server = build_mcp_server(memory, agent="AGENT")
    templates = [t.uri_template for t in await any_server.list_resource_templates()]
    fixed = [str(r.uri) for r in await one_server.list_resources()]
    return list(await any_server.list_tools()), list(await one_server.list_tools()), templates + fixed


def reference_page() -> str:
    """The whole page, built against a throw-away embedded database."""
    with tempfile.TemporaryDirectory(prefix="summarizer-docs-") as data_dir:
        settings = Settings(
            database_url="",
            broker_url="",
            data_dir=data_dir,
            api_tokens="docs-build-only-token",
            api_read_tokens="",
        )
        db = composition.open_database(settings)
        try:
            spec = composition.build_http_app(settings, db).openapi()
            memory = Memory(
                summarizer=composition.build_summarizer(settings, db),
                ledger=composition.build_provenance(settings, db).ledger,
            )
            any_agent, one_agent, resources = asyncio.run(_mcp_registry(memory))
        finally:
            db.dispose()
    head = [
        "# Reference",
        "",
        "Generated from the code each time the site is built: the HTTP routes, the MCP tools and the commands "
        "as this version has them.",
        "",
    ]
    return "\n".join(
        [
            *head,
            http_section(spec),
            mcp_section(any_agent, one_agent, resources),
            cli_section(cli),
        ]
    )
