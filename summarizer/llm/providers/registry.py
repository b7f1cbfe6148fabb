"""Every LLM provider the summarizer can use. Adding one: a descriptor module beside this one, and its
line in `PROVIDERS` (docs/architecture.md, "Adding an LLM provider")."""

from __future__ import annotations

from summarizer.llm.providers.anthropic import ANTHROPIC
from summarizer.llm.providers.base import Provider
from summarizer.llm.providers.fake import FAKE
from summarizer.llm.providers.offline import OFFLINE
from summarizer.llm.providers.openai import OPENAI

PROVIDERS: tuple[Provider, ...] = (
    ANTHROPIC,
    OPENAI,
    OFFLINE,
    FAKE,
)


class UnknownProvider(LookupError):
    """A provider name no descriptor carries."""


def provider_named(name: str) -> Provider:
    for provider in PROVIDERS:
        if provider.name == name:
            return provider
    known = ", ".join(provider.name for provider in PROVIDERS)
    raise UnknownProvider(f"unknown LLM provider {name!r} (known: {known})")
