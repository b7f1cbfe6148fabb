"""What a model's tokens cost: a price table (USD per million tokens) and exact arithmetic over it.

Every figure is a `Decimal`: tokens are integers and prices are decimal list prices, so a cost is exactly
`tokens x price / 1,000,000`, summed without float drift however many runs it covers.

A run's recorded `llm_input_tokens` counts every input token of its calls, cached or not; of those,
`llm_cache_read_tokens` were read from the provider's prompt cache and `llm_cache_write_tokens` written to
it. The uncached input is therefore input - cache read - cache write, billed at the input price; the two
cache counts are billed at their own prices.

The shipped table holds the list prices of the models the project uses by default (and a few common
alternatives), as the providers published them on `PRICES_TAKEN_ON`; `SUMMARIZER_PRICES` adds or replaces
models (composition/costs.py reads it). The offline summarizer and the fake are free, and so is a model on a
local server (the composition root marks it). A model missing from the table is reported as unpriced,
never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from summarizer.domain.errors import SummarizerError

MILLION = Decimal(1_000_000)
PRICES_TAKEN_ON = "2026-11-26"
"""When the shipped list prices were read from the providers' pricing pages."""
FIELDS = ("input", "output", "cache_read", "cache_write")


class PriceError(SummarizerError):
    """A price table that cannot be used; the message says which model and field, and where."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal

    def to_json(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in FIELDS}


FREE = ModelPrice(Decimal(0), Decimal(0), Decimal(0), Decimal(0))


def _price(input_: str, output: str, cache_read: str, cache_write: str) -> ModelPrice:
    return ModelPrice(Decimal(input_), Decimal(output), Decimal(cache_read), Decimal(cache_write))


# List prices on PRICES_TAKEN_ON, one table per provider (each provider's descriptor in summarizer/llm/providers
# names its table). Anthropic: platform.claude.com/docs/en/about-claude/pricing (base input, 5-minute cache
# writes, cache hits, output). OpenAI: its API pricing page (input, cached input, output; OpenAI bills no
# cache write beyond the input price).
ANTHROPIC_PRICES: Mapping[str, ModelPrice] = {
    "claude-haiku-4-5": _price("1", "5", "0.10", "1.25"),
}
OPENAI_PRICES: Mapping[str, ModelPrice] = {
    "gpt-4o-mini": _price("0.15", "0.60", "0.075", "0.15"),
    "gpt-4o": _price("2.50", "10", "1.25", "2.50"),
}
OFFLINE_PRICES: Mapping[str, ModelPrice] = {"offline-extractive": FREE}
FAKE_PRICES: Mapping[str, ModelPrice] = {"fake-llm": FREE}
DEFAULT_PRICES: Mapping[str, ModelPrice] = {
    **ANTHROPIC_PRICES,
    **OPENAI_PRICES,
    **OFFLINE_PRICES,
    **FAKE_PRICES,
}


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one or more model calls, as the run records hold them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def uncached_input_tokens(self) -> int:
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def cost_usd(usage: Usage, price: ModelPrice) -> Decimal:
    """The exact cost of `usage` at `price`, in USD."""
    micro = (
        usage.uncached_input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    )
    return micro / MILLION


class PriceTable:
    """Prices by model name. A dated name (`claude-haiku-4-5-20251001`, `gpt-4o-mini-2024-07-18`) takes
    the price of the longest listed name it extends; an exact entry always wins."""

    def __init__(self, prices: Mapping[str, ModelPrice]) -> None:
        self._prices = {name.strip().lower(): price for name, price in prices.items()}

    def price(self, model: str | None) -> ModelPrice | None:
        if not model:
            return None
        name = model.strip().lower()
        found = self._prices.get(name)
        if found is not None:
            return found
        extended = [key for key in self._prices if name.startswith(key) and name[len(key)] in "-@:."]
        return self._prices[max(extended, key=len)] if extended else None

    def with_prices(self, more: Mapping[str, ModelPrice]) -> PriceTable:
        return PriceTable({**self._prices, **{k.strip().lower(): v for k, v in more.items()}})

    def to_json(self) -> dict[str, dict[str, str]]:
        return {name: price.to_json() for name, price in sorted(self._prices.items())}


def default_table() -> PriceTable:
    return PriceTable(DEFAULT_PRICES)


def _amount(value: object, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, str, Decimal)):
        raise PriceError(f"{where}: a price is a number of USD per million tokens, got {value!r}")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise PriceError(f"{where}: not a number: {value!r}") from None
    if not amount.is_finite() or amount < 0:
        raise PriceError(f"{where}: a price must be a finite number >= 0, got {value!r}")
    return amount


def parse_prices(text: str, source: str) -> dict[str, ModelPrice]:
    """A JSON object {model: {input, output[, cache_read][, cache_write]}} in USD per million tokens;
    the cache prices default to the input price. `source` names where the text came from."""
    try:
        data = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as exc:
        raise PriceError(f"{source}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict):
        raise PriceError(f"{source}: expected a JSON object of model names, got {type(data).__name__}")
    prices: dict[str, ModelPrice] = {}
    for model, entry in data.items():
        where = f"{source}: model {model!r}"
        if not model.strip():
            raise PriceError(f"{source}: a model name is empty")
        if not isinstance(entry, dict):
            raise PriceError(f"{where}: expected an object with input and output prices")
        unknown = sorted(set(entry) - set(FIELDS))
        if unknown:
            raise PriceError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(FIELDS)})")
        for needed in ("input", "output"):
            if needed not in entry:
                raise PriceError(f"{where}: missing {needed!r}")
        amounts = {name: _amount(entry[name], f"{where} field {name!r}") for name in entry}
        prices[model] = ModelPrice(
            input=amounts["input"],
            output=amounts["output"],
            cache_read=amounts.get("cache_read", amounts["input"]),
            cache_write=amounts.get("cache_write", amounts["input"]),
        )
    return prices


def read_prices(value: str) -> dict[str, ModelPrice]:
    """SUMMARIZER_PRICES: JSON text (starting with `{`) or the path of a JSON file."""
    text = value.strip()
    if not text:
        return {}
    if text.startswith(("{", "[")):
        return parse_prices(text, "SUMMARIZER_PRICES")
    path = Path(text).expanduser()
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PriceError(f"SUMMARIZER_PRICES: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PriceError(f"SUMMARIZER_PRICES: {path} is not UTF-8 text") from None
    return parse_prices(content, str(path))
