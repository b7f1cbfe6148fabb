"""The price table: exact money from recorded tokens, dated model names, prices an operator sets, and a
clear refusal of a table that cannot be used."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from summarizer.composition.costs import build_price_table, local_server
from summarizer.domain.prices import (
    FREE,
    PriceError,
    PriceTable,
    Usage,
    cost_usd,
    default_table,
    parse_prices,
    read_prices,
)
from summarizer.settings import load_settings


def test_a_cost_is_exactly_the_tokens_times_the_list_prices_with_no_float_drift() -> None:
    haiku = default_table().price("claude-haiku-4-5")
    assert haiku is not None
    usage = Usage(
        input_tokens=1_000_003, output_tokens=70_001, cache_read_tokens=500_000, cache_write_tokens=3
    )
    # 500,000 uncached input at $1, 70,001 output at $5, 500,000 cache reads at $0.10, 3 writes at $1.25.
    expected = Decimal("0.500000") + Decimal("0.350005") + Decimal("0.05") + Decimal("0.00000375")
    assert cost_usd(usage, haiku) == expected
    # A million one-token calls sum to exactly what one call of a million tokens costs.
    one = cost_usd(Usage(input_tokens=1), haiku)
    assert sum((one for _ in range(1_000_000)), Decimal(0)) == cost_usd(Usage(input_tokens=1_000_000), haiku)


def test_dated_model_names_take_the_price_of_the_name_they_extend() -> None:
    table = default_table()
    assert table.price("claude-haiku-4-5-20251001") == table.price("claude-haiku-4-5")
    assert table.price("gpt-4o-mini-2024-07-18") == table.price("gpt-4o-mini")
    assert table.price("gpt-4o-2024-08-06") == table.price("gpt-4o")
    assert table.price("gpt-4o-mini") != table.price("gpt-4o")
    assert table.price("gpt-4") is None
    assert table.price("claude-haiku-4-50") is None
    assert table.price(None) is None
    assert table.price("offline-extractive") == FREE


def test_prices_an_operator_sets_add_to_and_replace_the_shipped_ones(tmp_path: Path) -> None:
    text = '{"my-model": {"input": 2, "output": "8.5"}, "gpt-4o-mini": {"input": 0.2, "output": 0.8, "cache_read": 0.1}}'
    table = default_table().with_prices(parse_prices(text, "test"))
    mine = table.price("my-model")
    assert mine is not None
    assert (mine.input, mine.output, mine.cache_read, mine.cache_write) == (
        Decimal(2),
        Decimal("8.5"),
        Decimal(2),
        Decimal(2),
    )
    replaced = table.price("gpt-4o-mini")
    assert replaced is not None
    assert replaced.input == Decimal("0.2")
    path = tmp_path / "prices.json"
    path.write_text(text, encoding="utf-8")
    assert read_prices(str(path)) == parse_prices(text, "other")
    assert read_prices("  ") == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "SUMMARIZER_PRICES: not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"m": 3}', "model 'm': expected an object"),
        ('{"m": {"input": 1}}', "model 'm': missing 'output'"),
        ('{"m": {"input": 1, "output": -2}}', "field 'output': a price must be a finite number >= 0"),
        ('{"m": {"input": 1, "output": "lots"}}', "field 'output': not a number"),
        ('{"m": {"input": true, "output": 1}}', "field 'input': a price is a number"),
        ('{"m": {"input": 1, "output": 1, "cache": 1}}', "unknown field(s) cache"),
        ('{" ": {"input": 1, "output": 1}}', "a model name is empty"),
    ],
)
def test_a_price_table_that_cannot_be_used_is_refused_saying_what_and_where(text: str, says: str) -> None:
    with pytest.raises(PriceError) as raised:
        read_prices(text)
    assert says in str(raised.value)


def test_a_missing_price_file_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(PriceError) as raised:
        read_prices(str(tmp_path / "nowhere.json"))
    assert "nowhere.json" in str(raised.value)


def test_a_local_servers_unlisted_models_are_free_and_a_listed_name_keeps_its_price(tmp_path: Path) -> None:
    assert local_server("http://localhost:11434/v1")
    assert local_server("http://127.0.0.2:8080/v1")
    assert not local_server("https://api.openai.com/v1")
    assert not local_server("")
    local = load_settings(
        data_dir=tmp_path,
        llm="openai",
        openai_base_url="http://localhost:11434/v1",
        openai_model="llama3.2:3b",
    )
    assert build_price_table(local).price("llama3.2:3b") == FREE
    proxied = load_settings(data_dir=tmp_path, llm="openai", openai_base_url="http://127.0.0.1:4000/v1")
    assert build_price_table(proxied).price("gpt-4o-mini") == default_table().price("gpt-4o-mini")
    remote = load_settings(data_dir=tmp_path, llm="openai", openai_model="llama3.2:3b")
    assert build_price_table(remote).price("llama3.2:3b") is None


def test_an_empty_table_prices_nothing() -> None:
    assert PriceTable({}).price("claude-haiku-4-5") is None
