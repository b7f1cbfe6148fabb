"""The one rule for agent ids, applied alike by the CLI, the HTTP API, the Python API and the importers.

An agent id is 1 to 200 characters of printable Unicode: letters, digits, punctuation, symbols and inner
spaces (`team-a/bot`, `claude-code:5f0c...`, `Kundenservice Bot 2` are all fine). It may not hold control
characters (NUL and the other C0/C1 codes, line and paragraph separators), bidirectional or invisible
formatting characters (which make two ids look alike), lone surrogates (not valid UTF-8), nor begin or end
with whitespace.
"""

from __future__ import annotations

import unicodedata

from summarizer.domain.errors import InvalidMessage

MAX_AGENT_ID_CHARS = 200
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class InvalidAgentId(InvalidMessage):
    """An agent id that breaks the rule; the message says which character and where."""


def agent_id_problem(agent_id: object) -> str | None:
    """Why `agent_id` is not a valid agent id, or None when it is."""
    if not isinstance(agent_id, str) or not agent_id.strip():
        return "agent id must be a non-empty string"
    if len(agent_id) > MAX_AGENT_ID_CHARS:
        return f"agent id is {len(agent_id)} characters, over the {MAX_AGENT_ID_CHARS} allowed"
    if agent_id != agent_id.strip():
        return "agent id may not begin or end with whitespace"
    for position, char in enumerate(agent_id):
        category = unicodedata.category(char)
        if category in _FORBIDDEN_CATEGORIES or (category == "Zs" and char != " "):
            name = unicodedata.name(char, "")
            shown = f"U+{ord(char):04X}" + (f" {name}" if name else "")
            return f"agent id holds {shown} at position {position + 1}: control, formatting and invisible characters are not allowed"
    return None


def check_agent_id(agent_id: object, where: str | None = None) -> str:
    """`agent_id` when valid; raises `InvalidAgentId` saying why otherwise."""
    problem = agent_id_problem(agent_id)
    if problem is not None:
        raise InvalidAgentId(problem, where)
    assert isinstance(agent_id, str)
    return agent_id
