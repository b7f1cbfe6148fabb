"""The scripted fake (llm/fake.py), for tests and benchmarks: its latency, faults and outage file come
from SUMMARIZER_FAKE_LLM_LATENCY, SUMMARIZER_FAKE_LLM_FAULTS and SUMMARIZER_FAKE_LLM_OUTAGE_FILE."""

from __future__ import annotations

from pathlib import Path

from summarizer.domain.prices import FAKE_PRICES
from summarizer.engine.ports import LLM
from summarizer.llm.fake import FakeLLM, parse_faults
from summarizer.llm.provider_config import ProviderConfig
from summarizer.llm.providers.base import Provider, SettingNames

LATENCY = "fake_llm_latency"
FAULTS = "fake_llm_faults"
OUTAGE_FILE = "fake_llm_outage_file"


def build(config: ProviderConfig) -> LLM:
    options = config.options
    outage_file = options.get(OUTAGE_FILE, "")
    return FakeLLM(
        latency=float(options.get(LATENCY) or 0),
        faults=parse_faults(options.get(FAULTS, "")),
        outage_file=Path(outage_file) if outage_file else None,
    )


FAKE = Provider(
    name="fake",
    build=build,
    prices=FAKE_PRICES,
    settings=SettingNames(options=(LATENCY, FAULTS, OUTAGE_FILE)),
)
