"""Settings from the environment (prefix ``SUMMARIZER_``), validated, and never built at import time.

`Settings` (model.py) joins the fields declared by job: memory.py (database, broker, window, limits on
what is recorded), llm.py (providers, engine, prices, budgets), background.py (workers, beat, alerts) and
servers.py (HTTP API, MCP). `load_settings()` (loading.py) reads the environment: where a process starts,
through the composition root's `load()`, and the object is passed down; nothing else in the package reads
the environment on its own. Test fixtures and benchmarks call `load_settings()` with overrides.
"""

from summarizer.settings.llm import DEFAULT_MODEL, DEFAULT_OPENAI_MODEL, LLMChoice
from summarizer.settings.loading import load_settings
from summarizer.settings.memory import DEFAULT_DATA_DIR
from summarizer.settings.model import Settings, SettingsError

__all__ = [
    "DEFAULT_DATA_DIR",
    "DEFAULT_MODEL",
    "DEFAULT_OPENAI_MODEL",
    "LLMChoice",
    "Settings",
    "SettingsError",
    "load_settings",
]
