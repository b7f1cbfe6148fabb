"""Who may read what over MCP: the bearer tokens of SUMMARIZER_API_TOKENS (and the read-only ones of
SUMMARIZER_API_READ_TOKENS) checked by the SDK's verifier, and the agent-id rule and token scope applied to
every agent a tool or resource names; the `pin` tool needs a token that may write.

Over stdio there is no token: the server is the local user's own process and sees what `--agent` lets it.
"""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from summarizer.domain.agent_ids import agent_id_problem
from summarizer.domain.errors import SummarizerError
from summarizer.http.auth import READ_ONLY, ApiToken, find_token, scope_covers

ALL_AGENTS = "*"
"""The scope claim of an unscoped token."""
WRITE = "memory:write"
"""The second scope claim, of a token that may change memory (every token but a read-only one)."""
CLIENT_ID = "summarizer"


class NotVisible(SummarizerError):
    """An agent id that breaks the id rule, or one the caller's token does not cover."""


class ReadOnlyToken(SummarizerError):
    """A change asked for with a token of SUMMARIZER_API_READ_TOKENS."""


def token_label(position: int) -> str:
    """The name a token goes by in sessions and logs: its position in SUMMARIZER_API_TOKENS (the read-only
    tokens of SUMMARIZER_API_READ_TOKENS numbered on after them), never its value."""
    return f"token-{position}"


class ScopedTokens:
    """The MCP SDK's token verifier over SUMMARIZER_API_TOKENS. The token's scope travels as its first
    scope claim ("*" for an unscoped token), followed by `memory:write` unless the token is read-only, and
    its position as the subject, so that a session opened with one token answers no other, and sessions
    can be counted per token."""

    def __init__(self, tokens: tuple[ApiToken, ...]) -> None:
        self._tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        found = find_token(self._tokens, token)
        if found is None:
            return None
        position = self._tokens.index(found) + 1
        scope = found.prefix if found.prefix is not None else ALL_AGENTS
        scopes = [scope, WRITE] if found.writes else [scope]
        return AccessToken(token="", client_id=CLIENT_ID, scopes=scopes, subject=token_label(position))


def visible(agent_id: str) -> str:
    """`agent_id` after the id rule and the caller's token scope; `NotVisible` saying why otherwise."""
    problem = agent_id_problem(agent_id)
    if problem is not None:
        raise NotVisible(problem)
    token = get_access_token()
    if token is not None:
        scope = token.scopes[0] if token.scopes else ""
        if not scope_covers(None if scope == ALL_AGENTS else scope, agent_id):
            raise NotVisible(f"agent {agent_id!r} is not visible to this token")
    return agent_id


def may_write() -> None:
    """Nothing over stdio (the local user's own process); over HTTP, `ReadOnlyToken` unless the caller's
    token may write."""
    token = get_access_token()
    if token is not None and WRITE not in token.scopes[1:]:
        raise ReadOnlyToken(READ_ONLY)
