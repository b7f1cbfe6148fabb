"""What every command needs: settings, and the services wired over one database at the right schema."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import click

from summarizer import composition
from summarizer.api import Summarizer
from summarizer.settings import Settings

if TYPE_CHECKING:
    from summarizer.service.operations import Operations
    from summarizer.service.provenance import Provenance
    from summarizer.service.update import UpdateService


@dataclass
class Runtime:
    settings: Settings
    summarizer: Summarizer
    update_service: Callable[[], UpdateService]
    """Builds the update service (loads the LLM adapter) over the same database, when a command needs it."""
    operations: Callable[[], Operations]
    """Builds the operators' facade over the same database."""
    provenance: Callable[..., Provenance]
    """Builds the provenance facade (ledger, kept versions) over the same database (`wake=True`: with wake-ups)."""


SETTINGS_KEY = "summarizer.settings"


def current_settings() -> Settings:
    """The settings of this command's invocation, read from the environment once and shared by every
    part of the command (click's context meta is one dict for the whole invocation)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return composition.load()
    meta = ctx.find_root().meta
    if SETTINGS_KEY not in meta:
        meta[SETTINGS_KEY] = composition.load()
    settings: Settings = meta[SETTINGS_KEY]
    return settings


def open_runtime(*, migrate: bool | None = None) -> Runtime:
    """Settings, the database at the current schema, the facades. `migrate` (default: only for the embedded
    database) upgrades a schema that is behind instead of refusing to run."""
    settings = current_settings()
    db = composition.open_database(settings, migrate=migrate)
    return Runtime(
        settings,
        composition.build_summarizer(settings, db),
        update_service=partial(composition.build_update_service, settings, db),
        operations=partial(composition.build_operations, settings, db),
        provenance=partial(composition.build_provenance, settings, db),
    )
