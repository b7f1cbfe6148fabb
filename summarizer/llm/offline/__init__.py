"""A deterministic extractive summarizer: no network, no model, same input -> same answer.

It keeps the system useful without an API key (and in CI). Each new exchange becomes one item that says
what was asked, what was done, what was decided and which artifacts were named (paths, endpoints,
versions, numbers with units), marked with OFFLINE_PREFIX so a reader can tell it from a model's summary.
While the summary has room, an item keeps everything both sides said; nearer the cap it keeps their most
informative sentences. On the merge and full rungs it merges shown items by topic, then by day and week,
keeping every decision whole and each source's most informative sentences, so the summary stays
readable at any length.

Modules: `facts` (what an exchange or an item says), `informative` (which sentences carry the facts, and
which fit a room), `wording` (one item text within the length limit), `clustering` (which items to
merge), `answer` (the operations for one request, and the LLM port).
"""

from summarizer.llm.offline.answer import OFFLINE_MODEL, OfflineLLM, importance_of, offline_operations
from summarizer.llm.offline.facts import OFFLINE_PREFIX

__all__ = ["OFFLINE_MODEL", "OFFLINE_PREFIX", "OfflineLLM", "importance_of", "offline_operations"]
