"""`summarizer doctor`'s checks: the LLM provider, the database, its schema and the broker.

Each check answers one line and never raises: what was checked, and either what works or what is wrong.
Network checks use short timeouts, and nothing is written anywhere (an embedded database that does not
exist yet is reported, not created).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import make_url

from summarizer.domain.secrets import mask_url
from summarizer.logs import redact_text
from summarizer.settings import LLMChoice, Settings

if TYPE_CHECKING:
    from summarizer.storage.sql.database import Database

CONNECT_TIMEOUT_S = 5


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return redact_text(f"{'ok' if self.ok else 'FAIL':<5} {self.name:<12} {self.detail}")


def _one_line(error: BaseException) -> str:
    error = getattr(error, "orig", None) or error  # a driver's own message, without SQLAlchemy's wrapping
    text = " ".join(str(error).split()) or type(error).__name__
    return redact_text(text[:300])


def _attempt(name: str, run: Callable[[], str]) -> Check:
    try:
        return Check(name, True, run())
    except Exception as exc:
        return Check(name, False, _one_line(exc))


# ----- LLM ---------------------------------------------------------------------------------------------


def _provider_label(settings: Settings, choice: LLMChoice) -> str:
    if choice is LLMChoice.OPENAI:
        return f"openai {settings.openai_model} at {mask_url(settings.openai_base_url) or 'api.openai.com'}"
    if choice is LLMChoice.ANTHROPIC:
        return f"anthropic {settings.model} at {mask_url(settings.anthropic_base_url) or 'api.anthropic.com'}"
    return str(choice)


def check_provider(settings: Settings, choice: LLMChoice, name: str = "llm") -> Check:
    if choice is LLMChoice.OFFLINE:
        return Check(name, True, "offline summarizer: no provider to check (SUMMARIZER_LLM=anthropic|openai)")
    if choice is LLMChoice.FAKE:
        return Check(name, True, "fake LLM (for tests): no provider to check")
    from summarizer.composition.llm import build_provider

    label = _provider_label(settings, choice)

    def probe() -> str:
        provider_probe: Callable[[], str] | None = getattr(build_provider(settings, choice), "probe", None)
        if provider_probe is None:
            return f"{label}: no check available"
        return f"{label}: {provider_probe()}"

    checked = _attempt(name, probe)
    return checked if checked.ok else Check(name, False, f"{label}: {checked.detail}")


# ----- database and schema -----------------------------------------------------------------------------


def check_database(settings: Settings) -> list[Check]:
    """The database check and, when it connects, the schema check."""
    from summarizer.composition import build_database

    shown = make_url(settings.resolved_database_url()).render_as_string(hide_password=True)
    if settings.embedded_database:
        path = Path(make_url(settings.resolved_database_url()).database or "")
        if not path.exists():
            note = f"embedded SQLite {path} does not exist yet: it is created on first use"
            return [Check("database", True, note), Check("migrations", True, "applied on first use")]
    db = build_database(settings)  # PostgreSQL must answer within SUMMARIZER_DATABASE_CONNECT_TIMEOUT
    try:
        try:
            with db.engine.connect() as conn:
                version = conn.exec_driver_sql("SELECT 1").scalar()
            assert version == 1
        except Exception as exc:
            return [
                Check("database", False, f"{shown}: cannot connect: {_one_line(exc)}"),
                Check("migrations", False, "not checked: no database"),
            ]
        return [Check("database", True, f"{shown}: connected"), _check_schema(settings, db)]
    finally:
        db.dispose()


def _check_schema(settings: Settings, db: Database) -> Check:
    from summarizer.storage.sql import migrations as m

    try:
        current, head = m.current_revision(db), m.head_revision(db)
    except Exception as exc:
        return Check("migrations", False, _one_line(exc))
    if current == head:
        return Check("migrations", True, f"at head ({head})")
    if settings.embedded_database:
        return Check("migrations", True, f"at {current or 'nothing'}, upgraded to {head} on first use")
    return Check(
        "migrations",
        False,
        f"at {current or 'nothing'}, this version needs {head}: run `summarizer db upgrade`",
    )


# ----- broker ------------------------------------------------------------------------------------------


def check_broker(settings: Settings) -> Check:
    url = settings.broker_url
    if not url:
        from summarizer.broker.celery_config import embedded_broker_folder

        return Check("broker", True, f"embedded file broker under {embedded_broker_folder(settings)}")
    shown = redact_text(url)

    def ping() -> str:
        if url.startswith(("redis://", "rediss://", "unix://")):
            import redis

            client = redis.Redis.from_url(
                url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=CONNECT_TIMEOUT_S
            )
            try:
                client.ping()
            finally:
                client.close()
        else:
            from kombu import Connection

            with Connection(url, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                conn.ensure_connection(max_retries=1)
        return f"{shown}: connected"

    checked = _attempt("broker", ping)
    return checked if checked.ok else Check("broker", False, f"{shown}: cannot connect: {checked.detail}")


def run_checks(settings: Settings) -> list[Check]:
    from summarizer.composition.llm import chosen_llm

    checks = [check_provider(settings, chosen_llm(settings))]
    if settings.llm_fallback is not None:
        checks.append(check_provider(settings, settings.llm_fallback, "fallback"))
    try:
        checks.extend(check_database(settings))
    except Exception as exc:  # a URL SQLAlchemy cannot parse, an unknown driver
        checks.append(Check("database", False, f"unusable SUMMARIZER_DATABASE_URL: {_one_line(exc)}"))
    checks.append(check_broker(settings))
    return checks
