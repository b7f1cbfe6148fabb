"""Plausible source text for the files the sample agent writes: Python, tests, YAML, Markdown.

The code is not meant to run; it is meant to look and weigh like a real repository's, so that summaries
of the sample have real-looking material to compress.
"""

from __future__ import annotations

import random
from collections.abc import Callable

_PY_HEADER = '''"""{doc}"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from uuid import UUID, uuid4

import jwt
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from authsvc.config import Settings
from authsvc.errors import AuthError, ConfigError, RateLimited, TokenError

log = logging.getLogger(__name__)


class Clock(Protocol):
    def now(self) -> datetime: ...


@dataclass(frozen=True, slots=True)
class {name}Result:
    """What callers of this module get back; frozen so it can be cached and logged safely."""

    subject: UUID
    issued_at: datetime
    expires_at: datetime
    claims: Mapping[str, Any] = field(default_factory=dict)
    errors: tuple[str, ...] = ()

    @property
    def expired(self) -> bool:
        return self.expires_at <= datetime.now(UTC)
'''

_ERRORS = ("AuthError", "TokenError", "ConfigError", "RateLimited", "NotFound")

_Body = Callable[[random.Random, str, str], list[str]]


_TEST_HEADER = '''"""{doc}"""

from __future__ import annotations

from datetime import timedelta

import pytest

from authsvc.errors import AuthError
from tests.factories import UserFactory
from tests.fixtures import Fixture, FrozenClock
'''


def module_source(path: str, doc: str) -> str:
    """The first version of a file, before any function is added to it."""
    if path.startswith("tests/") and path.endswith(".py"):
        return _TEST_HEADER.format(doc=doc)
    if path.endswith(".py"):
        stem = path.rsplit("/", 1)[-1].removesuffix(".py").removeprefix("test_").strip("_") or "module"
        name = "".join(part.capitalize() for part in stem.split("_"))
        return _PY_HEADER.format(doc=doc, name=name)
    if path.endswith((".yml", ".yaml")):
        return "name: ci\n\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n"
    if path.endswith(".md"):
        return f"# {doc}\n"
    if path.endswith("Dockerfile"):
        return (
            "# syntax=docker/dockerfile:1.7\nFROM python:3.11-slim AS base\nENV PYTHONDONTWRITEBYTECODE=1\n"
        )
    return f"{doc}\n"


def addition(rng: random.Random, path: str, symbol: str, reasons: tuple[str, ...]) -> str:
    """The block the agent adds to `path` for `symbol`, in the file's own language."""
    if path.endswith(".py"):
        if symbol.startswith("test_") or "/tests/" in f"/{path}":
            return test_source(rng, symbol if symbol.startswith("test_") else f"test_{symbol}")
        return function_source(rng, symbol)
    if path.endswith((".yml", ".yaml")):
        return _ci_job(rng, symbol)
    if path.endswith(".md"):
        return _doc_section(rng, symbol, reasons)
    if path.endswith("Dockerfile"):
        return _docker_stage(symbol)
    return f"\n## {symbol}\n\n" + "\n".join(f"- {r}" for r in rng.sample(reasons, 3)) + "\n"


def function_source(rng: random.Random, symbol: str) -> str:
    """The function for `symbol` and, usually, the private helpers a real implementation grows."""
    suffixes = rng.sample(_HELPER_SUFFIXES, rng.randint(0, 3))
    noun = symbol.split("_")[-1]
    helpers = [_one_function(rng, f"_{suffix}_for_{noun}", helper=True) for suffix in suffixes]
    return _one_function(rng, symbol) + "".join(helpers)


_HELPER_SUFFIXES = ("key", "claims", "row", "deadline", "cache_key", "metrics", "payload", "lookup")


def _one_function(rng: random.Random, symbol: str, *, helper: bool = False) -> str:
    words = symbol.strip("_").split("_")
    noun = words[-1] if len(words) > 1 else "value"
    verb = "" if helper else words[0]
    body = _BODIES.get(verb, _generic_body)(rng, symbol, noun)
    params = _params(rng, verb, noun)
    doc = f"{' '.join(words).capitalize()}; callers pass everything in, so this stays testable."
    return "\n\n" + "\n".join(
        [f"def {symbol}({params}) -> {_returns(verb, noun)}:", f'    """{doc}"""', *body]
    )


def test_source(rng: random.Random, name: str) -> str:
    subject = name.removeprefix("test_")
    fixture = rng.choice(["clock", "keyring", "session", "settings", "client"])
    expected = rng.choice(["200", "401", "429", "True", "timedelta(minutes=15)", '"authsvc"'])
    lines = [
        f"def {name}({fixture}: Fixture, make_user: UserFactory) -> None:",
        '    user = make_user(username="ada")',
        f"    result = {subject}({fixture}, user.id)",
    ]
    checks = [
        f"    assert result.status == {expected}",
        '    assert result.claims["sub"] == str(user.id)',
        "    assert result.expires_at - clock.now() <= timedelta(minutes=15)",
        "    assert not result.errors",
        "    assert caplog.records[-1].family_id == result.family_id",
        "    with pytest.raises(AuthError):",
        f'        {subject}({fixture}, user.id, presented="stale")',
    ]
    count = rng.randint(2, len(checks))
    return "\n\n" + "\n".join(lines + checks[:count])


def _params(rng: random.Random, verb: str, noun: str) -> str:
    common = {
        "issue": "subject: UUID, settings: Settings, clock: Clock",
        "verify": "token: str, keyring: Keyring, settings: Settings, clock: Clock",
        "rotate": "session: Session, presented: str, clock: Clock",
        "revoke": "session: Session, family_id: UUID, reason: str",
        "find": "session: Session, username: str",
        "load": "settings: Settings",
        "record": "session: Session, event: AuditEvent",
    }
    return common.get(
        verb, rng.choice([f"{noun}: str", f"settings: Settings, {noun}: str", "request: Request"])
    )


def _returns(verb: str, noun: str) -> str:
    return {
        "issue": "str",
        "verify": "Claims",
        "rotate": "TokenPair",
        "revoke": "int",
        "find": "User | None",
        "load": noun.capitalize(),
        "record": "None",
    }.get(verb, _default_return(noun))


def _default_return(noun: str) -> str:
    return {"token": "str", "key": "SigningKey", "response": "JSONResponse"}.get(noun, "None")


def _issue_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    ttl = rng.choice([15, 10, 30])
    return [
        "    now = clock.now()",
        "    claims = {",
        '        "iss": settings.issuer,',
        '        "aud": settings.audience,',
        '        "sub": str(subject),',
        '        "iat": int(now.timestamp()),',
        f'        "exp": int((now + timedelta(minutes={ttl})).timestamp()),',
        '        "jti": secrets.token_hex(16),',
        "    }",
        "    key = settings.keyring.active",
        f'    log.debug("{symbol}", extra={{"jti": claims["jti"], "kid": key.kid}})',
        '    return jwt.encode(claims, key.private_pem, algorithm="RS256", headers={"kid": key.kid})',
    ]


def _verify_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    leeway = rng.choice([30, 30, 60])
    return [
        "    try:",
        "        header = jwt.get_unverified_header(token)",
        '        key = keyring.by_kid(header["kid"])',
        "        return jwt.decode(",
        "            token,",
        "            key.public_pem,",
        '            algorithms=["RS256"],',
        "            audience=settings.audience,",
        "            issuer=settings.issuer,",
        f"            leeway={leeway},",
        '            options={"require": ["exp", "iat", "sub", "jti"]},',
        "        )",
        "    except (jwt.InvalidTokenError, KeyError) as exc:",
        f'        log.info("{symbol} rejected", extra={{"reason": type(exc).__name__}})',
        '        raise TokenError("invalid token") from exc',
    ]


def _rotate_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    return [
        "    row = session.execute(",
        "        select(RefreshTokenRow).where(RefreshTokenRow.token_hash == hash_token(presented)).with_for_update()",
        "    ).scalar_one_or_none()",
        "    if row is None:",
        '        raise AuthError("unknown refresh token")',
        "    if row.rotated_at is not None:",
        '        revoke_family(session, row.family_id, reason="reuse")',
        '        raise AuthError("refresh token reuse detected")',
        "    now = clock.now()",
        "    row.rotated_at = now",
        "    fresh, fresh_row = new_refresh_token(row.user_id, family_id=row.family_id, now=now)",
        "    session.add(fresh_row)",
        f'    log.info("{symbol}", extra={{"family_id": str(row.family_id), "generation": fresh_row.generation}})',
        "    return TokenPair(access=issue_access_token(row.user_id, settings, clock), refresh=fresh)",
    ]


def _revoke_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    return [
        "    result = session.execute(",
        "        update(RefreshTokenRow)",
        "        .where(RefreshTokenRow.family_id == family_id, RefreshTokenRow.revoked_at.is_(None))",
        "        .values(revoked_at=func.now(), revoked_reason=reason)",
        "    )",
        f'    log.warning("{symbol}", extra={{"family_id": str(family_id), "reason": reason}})',
        "    return result.rowcount",
    ]


def _find_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    return [
        "    normalized = username.strip().casefold()",
        "    if not normalized:",
        "        return None",
        "    return session.execute(",
        "        select(User).where(func.lower(User.username) == normalized, User.disabled_at.is_(None))",
        "    ).scalar_one_or_none()",
    ]


def _generic_body(rng: random.Random, symbol: str, noun: str) -> list[str]:
    error = rng.choice(_ERRORS)
    guard = [f"    if not {noun}:", f'        raise {error}("{noun} is required")']
    shapes = [
        [
            "    started = datetime.now(UTC)",
            f"    result = _{noun}_cache.get({noun})",
            "    if result is None:",
            f"        result = _compute_{noun}({noun})",
            f"        _{noun}_cache[{noun}] = result",
            f'    log.debug("{symbol}", extra={{"elapsed_ms": (datetime.now(UTC) - started).total_seconds() * 1000}})',
            "    return result",
        ],
        [
            f"    digest = hashlib.sha256({noun}.encode()).digest()",
            "    for candidate in _candidates(digest):",
            "        if hmac.compare_digest(candidate.digest, digest):",
            "            return candidate",
            f'    log.info("{symbol}: no match", extra={{"prefix": digest[:4].hex()}})',
            "    return None",
        ],
        [
            f'    parts = [part for part in str({noun}).split(".") if part]',
            "    if len(parts) != 3:",
            f'        raise {error}("malformed {noun}")',
            "    header, payload, _signature = parts",
            '    return {"header": header, "payload": payload}',
        ],
        [
            "    deadline = datetime.now(UTC) + timedelta(seconds=settings.grace_seconds)",
            "    attempts = 0",
            "    while datetime.now(UTC) < deadline:",
            "        attempts += 1",
            f"        if _try_{noun}({noun}):",
            f'            log.debug("{symbol} succeeded", extra={{"attempts": attempts}})',
            "            return True",
            "    return False",
        ],
    ]
    return guard + rng.choice(shapes)


_BODIES: dict[str, _Body] = {
    "issue": _issue_body,
    "verify": _verify_body,
    "rotate": _rotate_body,
    "revoke": _revoke_body,
    "find": _find_body,
}


def _ci_job(rng: random.Random, job: str) -> str:
    steps = [
        "      - uses: actions/checkout@v4",
        "      - uses: astral-sh/setup-uv@v3",
        "        with:",
        '          version: "0.4.x"',
        "      - run: uv sync --frozen",
    ]
    commands = {
        "lint-and-test": ["uv run ruff check .", "uv run mypy", "uv run pytest -m 'not integration'"],
        "integration": ["uv run pytest -m integration"],
        "migrations": [
            "uv run alembic upgrade head",
            "uv run alembic downgrade base",
            "uv run alembic upgrade head",
        ],
        "audit": ["uvx pip-audit --strict"],
    }.get(job, [f"uv run {job}"])
    lines = [f"  {job}:", "    runs-on: ubuntu-latest", f"    timeout-minutes: {rng.choice([10, 15, 20])}"]
    if job in ("integration", "migrations"):
        lines += [
            "    services:",
            "      postgres:",
            "        image: postgres:16",
            "        env:",
            "          POSTGRES_PASSWORD: postgres",
            "        ports: ['5432:5432']",
            "        options: --health-cmd pg_isready --health-interval 5s --health-retries 10",
            "    env:",
            "      AUTHSVC_DATABASE_URL: postgresql+psycopg://postgres:postgres@localhost:5432/postgres",
        ]
    lines += ["    steps:", *steps, *(f"      - run: {c}" for c in commands)]
    return "\n" + "\n".join(lines) + "\n"


def _doc_section(rng: random.Random, title: str, reasons: tuple[str, ...]) -> str:
    picked = rng.sample(reasons, min(len(reasons), rng.randint(3, 5)))
    paragraphs = [f"\n## {title}\n"]
    paragraphs += [f"{reason}\n" for reason in picked[:2]]
    paragraphs += [f"- {reason}" for reason in picked[2:]]
    if rng.random() < 0.5:
        paragraphs += [
            "",
            "```mermaid",
            "sequenceDiagram",
            "    Client->>authsvc: POST /token (username, password)",
            "    authsvc->>Postgres: find user, verify hash",
            "    authsvc-->>Client: access token (15 min) + refresh token (30 days)",
            "    Client->>Service: request + Bearer access token",
            "    Service->>authsvc: GET /.well-known/jwks.json (cached)",
            "```",
        ]
    return "\n".join(paragraphs) + "\n"


def _docker_stage(stage: str) -> str:
    return "\n".join(
        [
            "",
            f"FROM base AS {stage}",
            "COPY --from=ghcr.io/astral-sh/uv:0.4 /uv /usr/local/bin/uv",
            "WORKDIR /app",
            "COPY pyproject.toml uv.lock ./",
            "RUN uv sync --frozen --no-dev --no-install-project",
            "COPY src ./src",
            "RUN uv sync --frozen --no-dev",
            "RUN useradd --uid 10001 --no-create-home authsvc",
            "USER 10001",
            'CMD ["uv", "run", "--no-sync", "uvicorn", "authsvc.app:create_app", "--factory", "--host", "0.0.0.0"]',
            "",
        ]
    )
