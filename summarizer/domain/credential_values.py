"""What a candidate credential value is: the mask it becomes, and the judgments that keep code, placeholders
and ordinary identifiers (hashes, UUIDs, names) out of the masks.

Every masking rule (`credential_shapes`, `credential_context`, `credential_assignments`) finds a candidate
by its shape or its surroundings and asks here whether the value itself reads as a secret.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from itertools import pairwise

MASK_PREFIX = "[secret:"
MIN_TAIL_CHARS = 12
"""Shorter credentials are masked without their last four characters."""
MIN_RANDOM_ENTROPY = 3.0
"""Shannon entropy (bits per character) from which a value under a weak name (`*_KEY`, `auth`) is random."""

_PLACEHOLDER_STARTS = ("$", "%", "<", "{", "*", "[", "(", "#", "@", "!", "&", "\\")
_NOT_VALUES = frozenset(
    {"null", "none", "nil", "true", "false", "undefined", "required", "optional", "string", "str", "bool"}
)
_PLACEHOLDER_TEXT = (
    "test testing example sample dummy fake placeholder changeme change me your my here secret password pass "
    "passwd key token api dev local localhost postgres postgresql mysql redis user demo foo bar xxx admin root "
    "default mock value values insert replace enter put goes todo redacted hidden masked omitted"
)
_PLACEHOLDER_WORDS = frozenset(_PLACEHOLDER_TEXT.split())
"""A value made only of these words and digits (`postgres`, `test123`, `test_secret_key`, `changeme`) is the
default of an example or a test suite, not a credential: masking it would hide what the text is about."""
_PLACEHOLDER_RUN = re.compile("(?:" + "|".join(sorted(_PLACEHOLDER_WORDS, key=len, reverse=True)) + ")+")
"""Placeholder words run together: `yourpassword`, `mysecretkey`."""
_WORDS = re.compile(r"[A-Za-z]++")
_TEMPLATE = re.compile(r"\$\{|\{\{|%\(|#\{")
"""Interpolation inside a value (`${x}`, `{{ x }}`, `%(x)s`, `#{x}`): a template, not a literal."""
_CALL = re.compile(r"(?:new\s+|await\s+)?[A-Za-z_$][\w$]*+(?:\??\.[A-Za-z_$][\w$]*+)*+[(\[<]")
"""A call, an index or a generic, possibly cut short: `toNumber(usage.input`, `typing.Optional[Field`."""
_PATH_EXPRESSION = re.compile(r"[A-Za-z_$][\w$]*+(?:\??\.[A-Za-z_$][\w$]*+)++[!?;,)]*+")
"""An attribute path: `self.token`, `credentials.config?.awsSecretAccessKey`."""
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/=_.~:,@!#$%^&*-]++")
"""The characters of generated keys and tokens (and of a list of them): no spaces, quotes or brackets."""
_ELLIPSIS = re.compile(r"\.\.\.|…|xxxx|XXXX|\*\*\*|####|____|----")
_ENV_REFERENCE = re.compile(
    r"(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv|ENV|env|System\.getenv|config|settings"
    r"|secrets|vars|inputs)[.\[(]",
)
_CODE = re.compile(
    # A name, an attribute path, a call, an index or a TypeScript non-null assertion: `apiKey!`,
    # `self.token`, `get_token()`, `config["password"]`, `Optional[str]`.
    r"[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+|\([^()]*+\)|\[[^\[\]]*+\])*+[!?]?(?:\([^()]*+\))?[;,)]*+"
)
_NAME_WITHOUT_DIGITS = re.compile(r"[A-Za-z_][A-Za-z_.]*+[!?]?")
_NUMBER = re.compile(r"[0-9][0-9._,:]*+[A-Za-z]{0,3}")
_HEX = re.compile(r"[0-9a-fA-F]++")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PATH = re.compile(r"(?:~|\.{1,2})?/[^\s]*+|[A-Za-z]:\\[^\s]*+")


def mask(kind: str, value: str) -> str:
    """The mask of one credential: its kind, and its last four characters when it is long enough."""
    if len(value) < MIN_TAIL_CHARS:
        return f"{MASK_PREFIX}{kind}]"
    return f"{MASK_PREFIX}{kind} …{value[-4:]}]"


def entropy(value: str) -> float:
    """Shannon entropy of `value`, in bits per character."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


@lru_cache(maxsize=4096)
def placeholder(value: str) -> bool:
    """True for what stands in for a secret: empty, a reference (`${X}`, `$X`, `<your-key>`, `{{ x }}`),
    an elision (`sk-...`, `xxxx`, `***`), a literal (`null`, `true`) or example words (`changeme`)."""
    return (
        not value
        or value.startswith(_PLACEHOLDER_STARTS)
        or value.lower() in _NOT_VALUES
        or set(value) <= {".", "x", "X", "*", "-", "_", "•", "0"}
        or _ELLIPSIS.search(value) is not None
        or _TEMPLATE.search(value) is not None
        or _placeholder_words(value)
    )


def _placeholder_words(value: str) -> bool:
    words = _WORDS.findall(value) if len(value) <= 64 else []
    return bool(words) and all(_PLACEHOLDER_RUN.fullmatch(word.lower()) for word in words)


def code_like(value: str) -> bool:
    """True for an expression rather than a literal: a name without digits, an attribute path, a call, an
    index, an environment lookup (`process.env.X`, `os.environ["X"]`), a number, a path."""
    if _NAME_WITHOUT_DIGITS.fullmatch(value) or _NUMBER.fullmatch(value) or _PATH.fullmatch(value):
        return True
    if _ENV_REFERENCE.match(value) or _CALL.match(value) or _PATH_EXPRESSION.fullmatch(value):
        return True
    if _CODE.fullmatch(value):  # a call, an index or an attribute path; a plain word with digits is a value
        return any(c in value for c in ".([") and not value.endswith(("=", "=="))
    return False


def identifier_like(value: str) -> bool:
    """True for the identifiers of ordinary data: hex digests (git SHAs, sha256) and UUIDs."""
    return _HEX.fullmatch(value) is not None or _UUID.fullmatch(value) is not None


def key_material(value: str) -> bool:
    """True for a literal that reads as a generated key or token (under a name such as `api_key` or
    `token`): no spaces or brackets, and a digit or symbol in it, or long and mixed-case. A word (`ollama`,
    `aws-profile`), an identifier (`oldSecretKey`) or a pattern (`sk-[a-z]{20,}`) is not."""
    if len(value) < 8 or not _KEY_MATERIAL.fullmatch(value) or placeholder(value) or code_like(value):
        return False
    if any(c.isdigit() or c in "+/=!@#$%^&*~" for c in value):
        return True
    return len(value) >= 20 and not value.islower() and not value.isupper() and entropy(value) >= 3.5


def looks_random(value: str, min_chars: int = 16) -> bool:
    """True for a value that reads as generated key material: long enough, mixing letters with digits or
    symbols, with high entropy, and not a hash, UUID, path or expression."""
    if len(value) < min_chars or identifier_like(value) or not _KEY_MATERIAL.fullmatch(value):
        return False
    if code_like(value) or placeholder(value):
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return (
        classes >= 3 and entropy(value) >= MIN_RANDOM_ENTROPY and _interleaved(value) and not _repeats(value)
    )


def _interleaved(value: str) -> bool:
    """True when letters and digits mix the way generated material does: four switches between letters
    and digits or more (`k3Vq9x`), or both cases with digits outside a path (`src/App.py42` is a file,
    `thethefile-42` words followed by a number)."""
    if "/" in value and "." in value:  # a path with a file name (base64 has no dots)
        return False
    kinds = [c.isdigit() for c in value if c.isalnum()]
    switches = sum(1 for a, b in pairwise(kinds) if a != b)
    if switches >= 4:
        return True
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _repeats(value: str) -> bool:
    """True when some three characters occur three times or more (`thethethe-42`): words said again, not
    generated material, where a repeat that often is rare."""
    seen: dict[str, int] = {}
    for i in range(len(value) - 2):
        gram = value[i : i + 3]
        seen[gram] = seen.get(gram, 0) + 1
        if seen[gram] >= 3:
            return True
    return False


def secret_value(value: str) -> bool:
    """True for a literal under a name that says it is secret (`password=...`): anything but a
    placeholder, an expression or a too-short value."""
    return len(value) >= 3 and not placeholder(value) and not code_like(value)
