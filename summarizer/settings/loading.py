"""`load_settings()`: the environment read into `Settings`, each bad variable named in one `SettingsError`.

In the package only the composition root calls it (`summarizer.composition.load()`, which also registers
the secret values for masking); the import-linter contracts and tests/unit/house keep it that way."""

from __future__ import annotations

from pydantic import ValidationError

from summarizer.settings.model import Settings, SettingsError


def load_settings(**overrides: object) -> Settings:
    """Read the environment; overrides win. Raises SettingsError naming each bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "?"
            problems.append(f"SUMMARIZER_{field.upper()}: {err['msg']} (got {err.get('input')!r})")
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
