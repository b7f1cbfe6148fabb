"""A planted set of credentials for measuring masking recall: every shape the masking claims, each written
in the contexts agents write them (prose, code, JSON, shell, Markdown, tool input, tool output).

Deterministic: the same seed gives the same set. Every value is generated here (random characters in the
published prefix, length and alphabet of each provider's keys); none is a real credential.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from summarizer.domain.kinds import Kind
from summarizer.domain.messages import NewMessage

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits
PASSWORD_CHARS = ALNUM + "!#%&*+,-.:;=?^_~"


@dataclass(frozen=True)
class Planted:
    shape: str
    context: str
    secret: str
    """What must not survive masking (a window of 8 of its characters is enough to count as a leak)."""
    message: NewMessage


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    """`n` characters of `alphabet`; mixing upper case, lower case and digits when the alphabet has them."""
    mixed = alphabet in (ALNUM, URLSAFE)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if not mixed or (
            any(c.isdigit() for c in value)
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value)
        ):
            return value


def _password(rng: random.Random) -> str:
    core = _draw(rng, ALNUM, rng.randint(10, 16))
    mixed = list(core)
    for _ in range(3):  # the characters that used to end a value early: & ; ,
        mixed.insert(rng.randint(1, len(mixed) - 1), rng.choice("&;,!#%+.:"))
    return "".join(mixed)


Token = Callable[[random.Random], str]
TOKENS: dict[str, Token] = {
    "anthropic-api03": lambda r: f"sk-ant-api03-{_draw(r, URLSAFE, 93)}AA",
    "anthropic-admin01": lambda r: f"sk-ant-admin01-{_draw(r, URLSAFE, 93)}AA",
    "openai-project": lambda r: f"sk-proj-{_draw(r, URLSAFE, 58)}T3BlbkFJ{_draw(r, URLSAFE, 58)}",
    "openai-legacy": lambda r: f"sk-{_draw(r, ALNUM, 20)}T3BlbkFJ{_draw(r, ALNUM, 20)}",
    "openai-svcacct": lambda r: f"sk-svcacct-{_draw(r, URLSAFE, 74)}",
    "aws-akia": lambda r: "AKIA" + _draw(r, UPPER_DIGITS, 16),
    "aws-asia": lambda r: "ASIA" + _draw(r, UPPER_DIGITS, 16),
    "github-ghp": lambda r: "ghp_" + _draw(r, ALNUM, 36),
    "github-gho": lambda r: "gho_" + _draw(r, ALNUM, 36),
    "github-ghs": lambda r: "ghs_" + _draw(r, ALNUM, 36),
    "github-fine-grained": lambda r: "github_pat_" + _draw(r, ALNUM + "_", 82),
    "gitlab-pat": lambda r: "glpat-" + _draw(r, ALNUM, 20),
    "slack-bot": lambda r: (
        f"xoxb-{_draw(r, '0123456789', 12)}-{_draw(r, '0123456789', 12)}-{_draw(r, ALNUM, 24)}"
    ),
    "slack-user": lambda r: (
        f"xoxp-{_draw(r, '0123456789', 12)}-{_draw(r, '0123456789', 12)}-{_draw(r, ALNUM, 32)}"
    ),
    "slack-app": lambda r: (
        f"xapp-1-A{_draw(r, UPPER_DIGITS, 10)}-{_draw(r, '0123456789', 13)}-{_draw(r, HEX, 64)}"
    ),
    "slack-webhook": lambda r: (
        f"hooks.slack.com/services/T{_draw(r, UPPER_DIGITS, 8)}/B{_draw(r, UPPER_DIGITS, 8)}/{_draw(r, ALNUM, 24)}"
    ),
    "google-api-key": lambda r: "AIza" + _draw(r, URLSAFE, 35),
    "google-oauth": lambda r: "ya29." + _draw(r, URLSAFE, 120),
    "google-client-secret": lambda r: "GOCSPX-" + _draw(r, URLSAFE, 28),
    "stripe-live": lambda r: "sk_live_" + _draw(r, ALNUM, 99),
    "stripe-restricted": lambda r: "rk_test_" + _draw(r, ALNUM, 24),
    "huggingface": lambda r: "hf_" + _draw(r, string.ascii_letters, 34),
    "npm": lambda r: "npm_" + _draw(r, ALNUM, 36),
    "pypi": lambda r: "pypi-AgEIcHlwaS5vcmc" + _draw(r, URLSAFE, 70),
    "sendgrid": lambda r: f"SG.{_draw(r, URLSAFE, 22)}.{_draw(r, URLSAFE, 43)}",
    "digitalocean": lambda r: "dop_v1_" + _draw(r, HEX, 64),
    "shopify": lambda r: "shpat_" + _draw(r, HEX, 32),
    "groq": lambda r: "gsk_" + _draw(r, ALNUM, 52),
    "xai": lambda r: "xai-" + _draw(r, ALNUM, 80),
    "databricks": lambda r: "dapi" + _draw(r, HEX, 32),
    "twilio": lambda r: "SK" + _draw(r, HEX, 32),
    "age": lambda r: "AGE-SECRET-KEY-1" + _draw(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    "linear": lambda r: "lin_api_" + _draw(r, ALNUM, 40),
    "jwt": lambda r: f"eyJhbGciOiJIUzI1NiJ9.eyJ{_draw(r, ALNUM, 40)}.{_draw(r, URLSAFE, 43)}",
}
"""Keys recognised by their own shape: any context may hold them."""

# Token contexts: where a bare key stands in each kind of text.
TOKEN_CONTEXTS: dict[str, Callable[[str], str]] = {
    "prose": lambda k: f"I found the key {k} in the old notes, please rotate it.",
    "markdown-bold": lambda k: f"The key is __{k}__ (do not share).",
    "markdown-code": lambda k: f"- set `{k}` in the vault\n",
    "underscored": lambda k: f"see _{k}_ and MY_KEY_{k} in the dump",
    "python": lambda k: f'client = Client(api_key="{k}")\n',
    "typescript": lambda k: f"const client = new Client({{ apiKey: '{k}' }});",
    "json": lambda k: json.dumps({"service": "x", "credentials": {"value": k}}),
    "shell": lambda k: f"curl -s https://api.example.com -H 'x-api-key: {k}' | jq .",
    "yaml": lambda k: f"service:\n  auth:\n    value: {k}\n",
    "env-line": lambda k: f"SERVICE_CREDENTIAL={k}\n",
}

Context = Callable[[random.Random], tuple[str, str]]


def _assignment(name: str, quote: str = "") -> Context:
    def make(r: random.Random) -> tuple[str, str]:
        secret = _password(r)
        return secret, f"{name}={quote}{secret}{quote}"

    return make


def _pem(label: str) -> Context:
    def make(r: random.Random) -> tuple[str, str]:
        lines = [_draw(r, ALNUM + "+/", 64) for _ in range(4)]
        head = "Version: GnuPG v2\n\n" if "PGP" in label else ""
        block = f"-----BEGIN {label}-----\n{head}" + "\n".join(lines) + f"\n-----END {label}-----"
        return "".join(lines), block

    return make


def _random_secret(r: random.Random) -> str:
    return _draw(r, ALNUM, 24)


CONTEXTUAL: dict[str, Context] = {
    "password-assignment": _assignment("password"),
    "env-password": _assignment("export DB_PASSWORD"),
    "plural-tokens": lambda r: (
        s := f"{_random_secret(r)},{_random_secret(r)}@team-a/",
        f"SUMMARIZER_API_TOKENS={s}",
    ),
    "plural-passwords": _assignment("REPLICA_PASSWORDS", '"'),
    "plural-keys": lambda r: (s := _draw(r, ALNUM, 32), f"SIGNING_KEYS={s}"),
    "json-password": lambda r: (s := _password(r), json.dumps({"user": "ada", "password": s})),
    "yaml-client-secret": lambda r: (s := _random_secret(r), f"oauth:\n  client_secret: '{s}'\n"),
    "python-api-key": lambda r: (s := _random_secret(r), f'API_KEY = "{s}"\n'),
    "url-password": lambda r: (
        s := _password(r).replace("/", "x"),
        f"postgresql://app:{s.replace('@', 'a')}@db.internal:5432/main",
    ),
    "query-token": lambda r: (s := _random_secret(r), f"https://example.com/cb?token={s}&page=2"),
    "bearer-header": lambda r: (s := _draw(r, URLSAFE, 40), f"Authorization: Bearer {s}"),
    "basic-header": lambda r: ("YWRtaW46" + (s := _draw(r, ALNUM, 24)), f"Authorization: Basic YWRtaW46{s}"),
    "curl-user": lambda r: (s := _draw(r, ALNUM, 14), f"curl -u deploy:{s} https://ci.example.com/api"),
    "mysql-p": lambda r: (s := _draw(r, ALNUM, 14), f"mysql -h db -u root -p{s} shop"),
    "mysql-quoted-p": lambda r: (
        s := _password(r).replace("'", ""),
        f"mysqldump -u root -p'{s}' shop > dump.sql",
    ),
    "password-flag": lambda r: (s := _draw(r, ALNUM, 14), f"app-cli login --password={s}"),
    "password-flag-space": lambda r: (s := _draw(r, ALNUM, 14), f"vault login --password {s}"),
    "sshpass": lambda r: (s := _draw(r, ALNUM, 14), f"sshpass -p {s} ssh ops@10.0.0.5"),
    "pgpassword": lambda r: (s := _draw(r, ALNUM, 14), f"PGPASSWORD={s} psql -h db -U app"),
    "redis-cli": lambda r: (s := _draw(r, ALNUM, 20), f"redis-cli -h cache -a {s} ping"),
    "aws-secret-pair": lambda r: (
        s := _draw(r, ALNUM + "/+", 40),
        f"aws_access_key_id = AKIA{_draw(r, UPPER_DIGITS, 16)}\naws_secret_access_key = {s}",
    ),
    "rsa-key": _pem("RSA PRIVATE KEY"),
    "ec-key": _pem("EC PRIVATE KEY"),
    "openssh-key": _pem("OPENSSH PRIVATE KEY"),
    "encrypted-key": _pem("ENCRYPTED PRIVATE KEY"),
    "pgp-key": _pem("PGP PRIVATE KEY BLOCK"),
}
"""Credentials recognised by their surroundings: each carries its own syntax."""


def _wrap(rng: random.Random, context: str, snippet: str) -> NewMessage:
    """The snippet as one message of the given context."""
    if context == "tool-input":
        return NewMessage(Kind.TOOL_CALL, "", tool_call_id="t1", name="bash", input={"command": snippet})
    if context == "tool-output":
        return NewMessage(
            Kind.TOOL_RESULT, f"$ cat .env\nHOME=/home/ada\n{snippet}\nLANG=C.UTF-8\n", tool_call_id="t1"
        )
    if context == "markdown":
        return NewMessage(Kind.ASSISTANT, f"## Setup\n\n```sh\n{snippet}\n```\n\nThen run the tests.")
    if context == "json":
        return NewMessage(Kind.TOOL_RESULT, json.dumps({"stdout": snippet, "exit": 0}), tool_call_id="t2")
    return NewMessage(Kind.USER, f"Here is what I used: {snippet}\nwhy does it fail?")


WRAPS = ("prose", "markdown", "json", "tool-input", "tool-output")


def planted_set(seed: int = 20261128, per_shape: int = 5) -> list[Planted]:
    """`per_shape` credentials of every shape, each in a context drawn with the seeded generator."""
    rng = random.Random(seed)
    found: list[Planted] = []
    for shape, make in TOKENS.items():
        for _ in range(per_shape):
            key = make(rng)
            context = rng.choice(sorted(TOKEN_CONTEXTS))
            wrap = rng.choice(WRAPS)
            message = _wrap(rng, wrap, TOKEN_CONTEXTS[context](key))
            found.append(Planted(shape, f"{context}/{wrap}", key, message))
    for shape, contextual in CONTEXTUAL.items():
        for _ in range(per_shape):
            secret, snippet = contextual(rng)
            wrap = rng.choice(WRAPS)
            found.append(Planted(shape, wrap, secret, _wrap(rng, wrap, snippet)))
    return found
