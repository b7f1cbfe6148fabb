"""`Settings`: every setting of a process in one frozen object, read from the environment (prefix
``SUMMARIZER_``). The fields are declared by job in the modules beside this one (memory, llm,
background, servers); this class joins them (in that order, the order docs/configuration.md lists them),
checks the values that need more than a type, and answers the questions asked of the whole."""

from __future__ import annotations

import re

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from summarizer.domain.alert_rules import parse_duration
from summarizer.domain.errors import SummarizerError
from summarizer.domain.secrets import url_password
from summarizer.settings.background import BackgroundSettings
from summarizer.settings.llm import LLMSettings
from summarizer.settings.memory import MemorySettings
from summarizer.settings.servers import ServerSettings


class SettingsError(SummarizerError):
    """The environment holds a value that cannot be used; the message names the variable."""


class Settings(ServerSettings, BackgroundSettings, LLMSettings, MemorySettings, BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SUMMARIZER_", extra="ignore", frozen=True, populate_by_name=True
    )

    @field_validator("alert_window")
    @classmethod
    def _check_alert_window(cls, value: str) -> str:
        parse_duration(value)
        return value.strip()

    @field_validator(
        "database_prepare_threshold", "cost_budget_agent_usd", "cost_budget_fleet_usd", mode="before"
    )
    @classmethod
    def _none_means_never(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in ("none", "never", "off", ""):
            return None
        return value

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, value: str) -> str:
        value = value.strip()
        for prefix in ("postgresql://", "postgres://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        return value

    def secret_values(self) -> list[str]:
        """Every configured secret: the fields kept out of `repr` (API keys, tokens, passwords, the webhook
        URL), whole and each listed token, and the password inside any URL setting."""
        found: list[str] = []
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                continue
            if not info.repr:
                found.append(value)
                for part in re.split(r"[,\s]+", value):
                    # `token@prefix`: the token is secret, the agent-id prefix is not.
                    found.append(part if "://" in part else part.split("@", 1)[0])
            password = url_password(value)
            if password:
                found.append(password)
        return found

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'summarizer.db').as_posix()}"

    @property
    def embedded_database(self) -> bool:
        return not self.database_url
