"""The process's settings, read from the environment once by `load()`: the one call of `load_settings()` in
the package. The CLI loads them per invocation, a worker at boot, and `build_summarizer()` given none."""

from __future__ import annotations

from summarizer.domain import secrets
from summarizer.settings import Settings
from summarizer.settings.loading import load_settings

_loaded: list[Settings] = []


def load() -> Settings:
    """The process's settings, read from the environment (the one call of `load_settings`). Their secret
    values are registered for masking: from here on no stored, logged, alerted or served text holds them."""
    settings = load_settings()
    secrets.register(settings.secret_values())
    _loaded[:] = [settings]
    return settings


def loaded() -> Settings | None:
    """The settings `load()` read last in this process; None before it ran."""
    return _loaded[0] if _loaded else None
