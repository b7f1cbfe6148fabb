"""The documentation site: the reference page generated from the code lists every HTTP route, MCP tool and
command, and building the site writes the page into the site only, never into docs/."""

from __future__ import annotations

from pathlib import Path

import click
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

from summarizer.cli.main import cli
from tools.docs_site.reference import cli_section, http_section, reference_page

ROOT = Path(__file__).resolve().parents[2]


def test_the_route_table_has_one_row_per_method_and_path_under_its_tag() -> None:
    spec = {
        "info": {"title": "summarizer", "version": "1.2.3"},
        "paths": {
            "/v1/things/{id}": {
                "get": {"tags": ["host"], "summary": "Thing", "description": "One thing.\n\nMore words."},
                "delete": {"tags": ["host"], "summary": "Drop | it"},
            },
            "/healthz": {"get": {"tags": ["health"], "description": "Alive?"}},
        },
    }
    text = http_section(spec)
    assert "summarizer 1.2.3" in text
    assert "| `GET` | `/v1/things/{id}` | One thing. |" in text
    assert "| `DELETE` | `/v1/things/{id}` | Drop \\| it |" in text
    assert text.index("### Host endpoints") < text.index("/v1/things") < text.index("### Health")


def test_the_command_table_lists_subcommands_of_groups() -> None:
    @click.group()
    def top() -> None:
        """Top."""

    @top.group()
    def db() -> None:
        """Database things."""

    @db.command()
    def upgrade() -> None:
        """Upgrade the schema."""

    text = cli_section(top)
    assert "| `summarizer db` | Database things. |" in text
    assert "| `summarizer db upgrade` | Upgrade the schema. |" in text


def test_the_reference_page_lists_every_route_tool_and_command() -> None:
    page = reference_page()
    for route in ("`POST` | `/v1/agents/{agent_id}/messages`", "`GET` | `/healthz`", "`GET` | `/v1/queue`"):
        assert route in page
    for tool in ("summary", "recall", "exchange", "history", "pin"):
        assert f"| `{tool}` |" in page
    assert "`memory://summary`" in page
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        assert f"| `summarizer {name}` |" in page


def test_every_page_under_docs_is_in_the_nav() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def pages(entries: list[object]) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            if isinstance(entry, str):
                found.add(entry)
            elif isinstance(entry, dict):
                for value in entry.values():
                    found |= pages(value) if isinstance(value, list) else {str(value)}
        return found

    in_nav = pages(config["nav"])
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk - in_nav == set(), "add these pages to the nav of mkdocs.yml"
    assert in_nav - on_disk == {"reference.md"}  # generated at build time, never on disk


def test_the_site_builds_strictly_with_the_generated_page_kept_out_of_docs(tmp_path: Path) -> None:
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    build(config)
    page = (tmp_path / "site" / "reference" / "index.html").read_text()
    assert "/v1/agents/{agent_id}/recall" in page
    assert not (ROOT / "docs" / "reference.md").exists()
