"""The provider descriptors: every listed provider builds its adapter from its own config, classifies
every exception class its SDK exports through the one shared ladder, and has list prices."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator

import httpx2
import pytest

from summarizer.composition.llm import build_provider, provider_config
from summarizer.domain.prices import DEFAULT_PRICES, default_table
from summarizer.engine.ports import LLMPermanentError, LLMTransientError
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.provider_errors import (
    MissingCredentials,
    ProviderUnreachable,
    SdkErrors,
    classify,
    is_retryable_status,
)
from summarizer.llm.providers.base import Provider
from summarizer.llm.providers.registry import PROVIDERS, UnknownProvider, provider_named
from summarizer.settings import LLMChoice, Settings, load_settings

REMOTE = [provider for provider in PROVIDERS if provider.errors is not None]
URL = "http://127.0.0.1:9/v1/messages"
STATUSES = (400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529)


def test_every_choice_has_exactly_one_descriptor() -> None:
    names = [provider.name for provider in PROVIDERS]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(str(choice) for choice in LLMChoice)
    with pytest.raises(UnknownProvider, match="unknown LLM provider 'nope' \\(known: anthropic, openai"):
        provider_named("nope")


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_every_descriptor_names_real_settings(provider: Provider) -> None:
    names = provider.settings
    for name in (names.model, names.api_key, names.base_url, *names.options):
        assert not name or name in Settings.model_fields, f"{provider.name}: no setting {name!r}"


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_every_descriptor_builds_its_adapter_from_its_own_config(provider: Provider) -> None:
    settings = load_settings(anthropic_api_key="sk-ant-test", openai_api_key="sk-openai-test")
    config = provider_config(settings, provider)
    assert isinstance(config, ProviderConfig)
    llm = provider.build(config)
    assert callable(getattr(llm, "complete", None))
    assert type(build_provider(settings, LLMChoice(provider.name))) is type(llm)
    if provider.settings.model:
        assert getattr(llm, "model", None) == config.model


def test_the_fake_takes_its_options_from_its_config() -> None:
    settings = load_settings(llm="fake", fake_llm_latency=0.25, fake_llm_faults="2:auth")
    llm = build_provider(settings, LLMChoice.FAKE)
    assert llm._latency == 0.25  # type: ignore[attr-defined]
    assert set(llm._faults) == {2}  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_every_descriptor_has_prices_the_shipped_table_holds(provider: Provider) -> None:
    assert provider.prices, f"{provider.name} lists no prices"
    table = default_table()
    for model, price in provider.prices.items():
        assert table.price(model) == price


def test_the_shipped_table_is_the_descriptors_prices() -> None:
    listed = {model for provider in PROVIDERS for model in provider.prices}
    assert listed == set(DEFAULT_PRICES)


def _sdk_classes(sdk: SdkErrors) -> list[type[Exception]]:
    module = inspect.getmodule(sdk.base)
    assert module is not None
    package = __import__(module.__name__.split(".")[0])
    assert isinstance(package, types.ModuleType)
    found = {
        cls
        for cls in list(vars(package).values())
        if inspect.isclass(cls) and issubclass(cls, sdk.base) and not cls.__name__.startswith("_")
    }
    return sorted(found, key=lambda cls: cls.__name__)


def _construct(cls: type[Exception], *attempts: tuple[tuple[object, ...], dict[str, object]]) -> Exception:
    """`cls` built with the first argument list its constructor takes; a bare instance when none fits."""
    for args, kwargs in attempts:
        try:
            return cls(*args, **kwargs)
        except (TypeError, AttributeError):
            continue
    error = cls.__new__(cls)
    Exception.__init__(error, "boom")
    return error


def _instances(sdk: SdkErrors, cls: type[Exception]) -> Iterator[tuple[Exception, int | None]]:
    """Instances of `cls` as the SDK raises them, each with the HTTP status it carries."""
    request = httpx2.Request("POST", URL)
    if issubclass(cls, sdk.status):
        own = getattr(cls, "status_code", None)
        for status in (own,) if isinstance(own, int) else STATUSES:
            response = httpx2.Response(status, headers={"retry-after": "7"}, request=request)
            body = {"error": {"type": "x", "message": f"the API says {status}"}}
            attempts = (((f"status {status}",), {"response": response, "body": body}),)
            yield _construct(cls, *attempts, ((), {"response": response, "body": body})), status
    elif issubclass(cls, sdk.timeout):
        yield _construct(cls, ((request,), {})), None
    elif issubclass(cls, sdk.connection):
        yield _construct(cls, ((), {"request": request})), None
    else:
        response = httpx2.Response(200, request=request)
        yield (
            _construct(
                cls,
                (("boom",), {}),
                (("boom",), {"request": request, "body": None}),
                ((), {"response": response, "body": None, "message": "boom"}),
                (("boom",), {"unsent_messages": []}),
            ),
            None,
        )


@pytest.mark.parametrize("provider", REMOTE, ids=lambda p: p.name)
def test_every_sdk_error_class_is_classified(provider: Provider) -> None:
    assert provider.errors is not None
    sdk = provider.errors()
    classes = _sdk_classes(sdk)
    assert {sdk.status, sdk.connection, sdk.timeout} <= set(classes)
    for cls in classes:
        for error, status in _instances(sdk, cls):
            got = classify(error, sdk)
            where = f"{provider.name} {cls.__name__} {status}"
            if isinstance(error, sdk.credentials):
                assert isinstance(got, MissingCredentials), where
            elif isinstance(error, sdk.timeout):
                assert type(got) is LLMTransientError, where
                assert str(got).startswith("request timed out: "), where
            elif isinstance(error, sdk.connection):
                assert isinstance(got, ProviderUnreachable), where
            elif status is not None:
                assert got.status == status, where
                assert f"HTTP {status}: the API says {status}" == str(got), where
                if is_retryable_status(status):
                    assert isinstance(got, LLMTransientError), where
                    assert got.retry_after == 7.0, where
                else:
                    assert type(got) is LLMPermanentError, where
            else:
                assert type(got) is LLMPermanentError, where
                assert str(got).startswith(f"{cls.__name__}: "), where


def test_retryable_statuses() -> None:
    assert [s for s in STATUSES if is_retryable_status(s)] == [408, 409, 429, 500, 502, 503, 504, 529]
