"""Credentials pasted into a conversation, masked before the message is stored.

`secrets.py` masks the values this process knows in its own logs and errors; this module masks what agents
and users say. Four families of rules, each in its own module:

- the values this process is configured with (`secrets.register`: its API tokens, read tokens, provider
  keys, passwords), masked wherever they appear whatever they look like, even where raw content is kept;
- provider keys and tokens by their own shape (`credential_shapes`);
- credentials by what surrounds them: Authorization values, URL passwords, `curl -u`, `mysql -p`,
  `sshpass -p`, `--password VALUE`, private key blocks, AWS secret keys (`credential_context`);
- values assigned to a name that says it is secret, singular or plural (`credential_assignments`).

A credential becomes `[secret:KIND …LAST]`: the kind and its last four characters (none for a value under
12 characters, where four would give away a third of it; none for a configured value), so the model and
the reader still know one was there. Code and placeholders are left alone (`sk-...`, `${VAR}`,
`process.env.X`, `apiKey!`, `<your-key>`, hashes, UUIDs). A text without a credential is returned
unchanged (the same object), and masking twice changes nothing. Linear time whatever the input: every
pass opens with a literal, consumes possessively and runs only when the text holds its trigger.
"""

from __future__ import annotations

import re
from dataclasses import replace

from summarizer.domain import secrets
from summarizer.domain.credential_assignments import mask_assignments, value_kind
from summarizer.domain.credential_context import mask_aws_secrets, mask_commands, mask_private_keys
from summarizer.domain.credential_shapes import mask_shapes
from summarizer.domain.credential_values import MASK_PREFIX, mask
from summarizer.domain.errors import InvalidMessage
from summarizer.domain.messages import NewMessage

__all__ = ["MASK_PREFIX", "mask", "mask_configured", "mask_credentials", "mask_json", "mask_message"]

CONFIGURED_MASK = f"{MASK_PREFIX}configured]"
MIN_CONFIGURED_CHARS = 8
"""Shorter configured values are not looked for in conversations (they would blot out ordinary words)."""
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASSIGNMENT_TRIGGER = re.compile(
    r"(?:passw(?:or)?d|passphrase|pass|pwd|secret|token|key|credential|auth)s?\\?[\"'\]]?[ \t]*+[:=]"
)
"""A secret-looking name followed by `:` or `=`: the only texts the assignment pass can change."""
_configured: list[tuple[frozenset[str], re.Pattern[str] | None]] = [(frozenset(), None)]


def _distinctive(value: str) -> bool:
    """A configured value looked for in conversations: long, or mixing letters with digits or symbols (a
    database password `postgres` would otherwise mask every mention of the database)."""
    if len(value) < MIN_CONFIGURED_CHARS or "://" in value:
        return False
    return len(value) >= 16 or (any(c.isalpha() for c in value) and any(not c.isalpha() for c in value))


def _configured_pattern() -> re.Pattern[str] | None:
    """One expression for every registered value, rebuilt when the registered set changes."""
    known = secrets.known_values()
    cached_for, pattern = _configured[0]
    if known is cached_for:
        return pattern
    values = sorted((v for v in known if _distinctive(v)), key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None
    _configured[0] = (known, pattern)
    return pattern


def mask_configured(text: str) -> str:
    """`text` with every value this process is configured with masked; the same object when there is
    none. Applied even where raw content is kept: the server's own tokens are never stored or served."""
    pattern = _configured_pattern()
    if pattern is None:
        return text
    masked = pattern.sub(CONFIGURED_MASK, text)
    return text if masked == text else masked


def mask_credentials(text: str) -> str:
    """`text` with every configured value and every credential masked; the same object when there is none."""
    masked = mask_configured(text)
    if len(masked) < 8:  # shorter than any credential
        return text if masked == text else masked
    masked = mask_shapes(mask_aws_secrets(mask_private_keys(masked)))
    lowered = masked.lower()
    if len(lowered) != len(masked):  # a character whose lower case is longer: keep positions aligned
        lowered = masked.translate(_ASCII_LOWER)
    commands = mask_commands(masked, lowered)
    if _ASSIGNMENT_TRIGGER.search(lowered):
        if commands is not masked:
            lowered = commands.lower()
            if len(lowered) != len(commands):
                lowered = commands.translate(_ASCII_LOWER)
        commands = mask_assignments(commands, lowered)
    masked = commands
    return text if masked == text else masked


def _json_string(value: str, key: str | None) -> str:
    """A string of a JSON value; under a secret-looking key (`"password": "..."`) it is masked whole."""
    if key is not None and not value.startswith(MASK_PREFIX):
        configured = mask_configured(value)
        kind = value_kind(key, configured, quoted=True)
        if kind is not None:
            return mask(kind, configured)
    return mask_credentials(value)


def mask_json(value: object, key: str | None = None) -> object:
    """A JSON-like value with every string masked and its structure kept; a string under a secret-looking
    key (`"password": "..."`, `"API_TOKENS": "a,b"`) is masked whole. Returns `value` itself when
    nothing changed."""
    if isinstance(value, str):
        masked = _json_string(value, key)
        return value if masked == value else masked
    if isinstance(value, dict):
        items = {k: mask_json(v, k if isinstance(k, str) else None) for k, v in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    if isinstance(value, list | tuple):
        masked_items = [mask_json(v) for v in value]
        return value if all(m is v for m, v in zip(masked_items, value, strict=True)) else masked_items
    return value


def _configured_json(value: object) -> object:
    if isinstance(value, str):
        return mask_configured(value)
    if isinstance(value, dict):
        items = {k: _configured_json(v) for k, v in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    if isinstance(value, list | tuple):
        masked_items = [_configured_json(v) for v in value]
        return value if all(m is v for m, v in zip(masked_items, value, strict=True)) else masked_items
    return value


def mask_message(message: NewMessage, *, configured_only: bool = False) -> NewMessage:
    """`message` with the credentials in its text and tool input masked (with `configured_only`, only the
    values this process is configured with); itself when it holds none. InvalidMessage for a tool input
    nested too deeply to walk (the readers refuse such JSON earlier)."""
    text_pass, json_pass = (
        (mask_configured, _configured_json) if configured_only else (mask_credentials, mask_json)
    )
    content = text_pass(message.content)
    try:
        tool_input = json_pass(message.input)
    except RecursionError:
        raise InvalidMessage("the tool input is nested too deeply", message.where) from None
    if content is message.content and tool_input is message.input:
        return message
    return replace(message, content=content, input=tool_input)


secrets.also_mask(mask_credentials)
