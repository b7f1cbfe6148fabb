"""Bearer tokens: parsed once from SUMMARIZER_API_TOKENS, checked on every request.

`SUMMARIZER_API_TOKENS` is a comma-separated list. A plain token may do everything. `token@scope` limits
a token to some agents, by whole segments of the id: a scope ending in `/` (`team-a/`) covers the agent ids
that start with it (`team-a/coder`, not `team-ab`); any other scope (`team-a`) covers the agent with
exactly that id. Every other agent answers 403 whether it exists or not, and the operator endpoints (which
list the whole fleet) answer 403 too.

`SUMMARIZER_API_READ_TOKENS` holds read-only tokens in the same form: they read what their scope covers
and change nothing. Recording messages, pins, instructions, budgets, re-queues and alert acknowledgements
answer 403 to them.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from summarizer.domain.agent_ids import agent_id_problem
from summarizer.settings import SettingsError

MIN_TOKEN_LENGTH = 16
SETTING = "SUMMARIZER_API_TOKENS"
READ_SETTING = "SUMMARIZER_API_READ_TOKENS"
READ_ONLY = "this token may only read"


@dataclass(frozen=True, slots=True)
class ApiToken:
    secret: str
    prefix: str | None = None
    """None: the token sees every agent and may use the operator endpoints."""
    writes: bool = True
    """False for a token of SUMMARIZER_API_READ_TOKENS: it reads and changes nothing."""

    def __repr__(self) -> str:
        return f"ApiToken(prefix={self.prefix!r}, writes={self.writes!r})"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the token's scope and whether it may write, never the secret."""

    prefix: str | None
    writes: bool = True

    @property
    def is_operator(self) -> bool:
        return self.prefix is None

    def may_see(self, agent_id: str) -> bool:
        return scope_covers(self.prefix, agent_id)


def scope_covers(scope: str | None, agent_id: str) -> bool:
    """Whether a token of `scope` may see `agent_id`: every agent without a scope; with one ending in `/`
    the ids that start with it; with any other, only the agent of exactly that id (never `team-ab` for a
    scope `team-a`)."""
    if scope is None:
        return True
    if scope.endswith("/"):
        return agent_id.startswith(scope)
    return agent_id == scope


def _entry_name(token: ApiToken, tokens: tuple[ApiToken, ...]) -> str:
    """`SETTING: entry N` of a parsed token: its setting and its position there."""
    same = [t for t in tokens if t.writes == token.writes]
    return f"{SETTING if token.writes else READ_SETTING}: entry {same.index(token) + 1}"


def scope_notes(tokens: tuple[ApiToken, ...]) -> tuple[str, ...]:
    """What start-up says about scopes read as exact agent ids (those not ending in `/`), by entry position."""
    return tuple(
        f"{_entry_name(token, tokens)} is scoped to {token.prefix!r}, which does not end with '/': it sees "
        f"only the agent of exactly that id (scope {token.prefix + '/'!r} covers the ids under it)"
        for token in tokens
        if token.prefix is not None and not token.prefix.endswith("/")
    )


def _parse_entries(text: str, setting: str, writes: bool, seen: set[str]) -> list[ApiToken]:
    tokens: list[ApiToken] = []
    entries = [entry.strip() for entry in text.split(",")]
    for position, entry in enumerate(entries, start=1):
        if not entry:
            if len(entries) > 1:
                raise SettingsError(f"{setting}: entry {position} is empty")
            continue
        secret, at, prefix = entry.partition("@")
        if at and not prefix:
            raise SettingsError(f"{setting}: entry {position} ends with '@' but names no agent-id prefix")
        if len(secret) < MIN_TOKEN_LENGTH:
            raise SettingsError(
                f"{setting}: entry {position} is a token of {len(secret)} characters; "
                f"use at least {MIN_TOKEN_LENGTH} (e.g. `openssl rand -hex 24`)"
            )
        if any(c.isspace() for c in secret):
            raise SettingsError(f"{setting}: entry {position} holds whitespace inside the token")
        if secret in seen:
            raise SettingsError(f"{setting}: entry {position} repeats an earlier token")
        seen.add(secret)
        tokens.append(ApiToken(secret, prefix if at else None, writes))
    return tokens


def parse_api_tokens(text: str, read_only: str = "") -> tuple[ApiToken, ...]:
    """The tokens of SUMMARIZER_API_TOKENS, then the read-only ones of SUMMARIZER_API_READ_TOKENS;
    SettingsError names the setting and entry that is wrong (not its secret)."""
    seen: set[str] = set()
    tokens = _parse_entries(text, SETTING, True, seen) + _parse_entries(read_only, READ_SETTING, False, seen)
    if not tokens:
        raise SettingsError(
            f"{SETTING} is empty: the HTTP API needs at least one bearer token "
            f"(comma-separated; `token@team-a/` limits one to agent ids starting with `team-a/`; "
            f"{READ_SETTING} adds tokens that may only read)"
        )
    return tuple(tokens)


def find_token(tokens: tuple[ApiToken, ...], presented: str) -> ApiToken | None:
    """The token matching `presented`, compared in constant time against every configured token."""
    found: ApiToken | None = None
    candidate = presented.encode()
    for token in tokens:
        if hmac.compare_digest(token.secret.encode(), candidate):
            found = token
    return found


_bearer = HTTPBearer(auto_error=False, description="A token from SUMMARIZER_API_TOKENS")


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})


def current_principal(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Principal:
    if credentials is None:
        raise _unauthorized("missing bearer token (Authorization: Bearer TOKEN)")
    tokens: tuple[ApiToken, ...] = request.app.state.api_tokens
    token = find_token(tokens, credentials.credentials)
    if token is None:
        raise _unauthorized("invalid bearer token")
    return Principal(token.prefix, token.writes)


def operator(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    """The operator endpoints see the whole fleet: only an unscoped token may call them."""
    if not principal.is_operator:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this token is limited to some agents")
    return principal


def writer(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    """A caller that may change something: any token but a read-only one."""
    if not principal.writes:
        raise HTTPException(status.HTTP_403_FORBIDDEN, READ_ONLY)
    return principal


def operator_writer(principal: Annotated[Principal, Depends(operator)]) -> Principal:
    """An operator action that changes something: an unscoped token that is not read-only."""
    return writer(principal)


def agent_access(agent_id: str, principal: Annotated[Principal, Depends(current_principal)]) -> str:
    """The path's agent id, after checking it is one (the rule every front end applies: 400 otherwise) and
    that the token may see it (before anything is looked up)."""
    problem = agent_id_problem(agent_id)
    if problem is not None:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, problem)
    if not principal.may_see(agent_id):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this token is limited to some agents")
    return agent_id


def agent_write_access(
    agent_id: Annotated[str, Depends(agent_access)], _: Annotated[Principal, Depends(writer)]
) -> str:
    """`agent_access`, for a request that changes the agent: 403 to a read-only token."""
    return agent_id


Operator = Annotated[Principal, Depends(operator)]
OperatorWriter = Annotated[Principal, Depends(operator_writer)]
Writer = Annotated[Principal, Depends(writer)]
AgentId = Annotated[str, Depends(agent_access)]
WritableAgentId = Annotated[str, Depends(agent_write_access)]
