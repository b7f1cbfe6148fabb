"""What the composition root needs to know about one LLM provider: the `Provider` descriptor.

A descriptor names the provider as SUMMARIZER_LLM spells it, says which settings feed its
`ProviderConfig` (by attribute name: nothing under summarizer/llm reads Settings), builds its adapter from
that config, says how its SDK's failures are classified, and points at its list prices. Building the
adapter and loading the error table import the SDK, so both wait until they are called: `sdk_provider`
makes such a descriptor from one function that imports the adapter module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from summarizer.domain.prices import ModelPrice
from summarizer.engine.ports import LLM
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import SdkErrors


@dataclass(frozen=True, slots=True)
class SettingNames:
    """The Settings attributes the composition root copies into a provider's `ProviderConfig`; an empty
    name leaves that field at its default. `options` go, as text, into `ProviderConfig.options`."""

    model: str = ""
    api_key: str = ""
    base_url: str = ""
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    """The value of SUMMARIZER_LLM (and SUMMARIZER_LLM_FALLBACK) that picks this provider."""
    build: Callable[[ProviderConfig], LLM]
    """The adapter, from its own config."""
    prices: Mapping[str, ModelPrice]
    """List prices of the models this provider is used with (domain/prices.py holds the figures)."""
    settings: SettingNames = SettingNames()
    errors: Callable[[], SdkErrors] | None = None
    """The SDK's error table for provider_errors.classify; None for a provider that calls no SDK."""

    @property
    def takes_merge_model(self) -> bool:
        """A provider with a model setting sends the rewriting rungs to SUMMARIZER_MERGE_MODEL."""
        return bool(self.settings.model)


@dataclass(frozen=True, slots=True)
class SdkAdapter:
    """What an SDK adapter module gives its descriptor once imported: the adapter's constructor and the
    SDK's error table."""

    build: Callable[[ProviderConfig], LLM]
    errors: SdkErrors


def sdk_provider(
    name: str, load: Callable[[], SdkAdapter], *, prices: Mapping[str, ModelPrice], settings: SettingNames
) -> Provider:
    """The descriptor of a provider reached through an SDK: `load` imports its adapter module (and so the
    SDK, which costs seconds) only when the adapter is built or its error table is asked for."""

    def build(config: ProviderConfig) -> LLM:
        return load().build(config)

    def errors() -> SdkErrors:
        return load().errors

    return Provider(name=name, build=build, prices=prices, settings=settings, errors=errors)
