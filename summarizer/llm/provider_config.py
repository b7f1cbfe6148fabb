"""What an LLM adapter needs to reach its provider, and nothing else of the settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    model: str = ""
    api_key: str = field(default="", repr=False)
    base_url: str = ""
    """Empty: the provider's official API."""
    timeout: float = 60.0
    max_retries: int = 2
    options: Mapping[str, str] = field(default_factory=dict, hash=False)
    """A provider's own settings beyond these, by Settings attribute name (providers/base.SettingNames)."""
