"""What an operator's steering text may hold: pins, their names, summary instructions.

A pin or instruction is text the summary and every prompt repeat word for word, so it must be text on
both databases alike: no lone surrogate (not encodable as UTF-8, half of a broken pair or a byte that was
not UTF-8), no NUL (PostgreSQL refuses it in text, SQLite keeps it), and no other C0 control character but
the newline and the tab (a carriage return, an escape sequence that recolours a terminal). A pin's name is
shown alone on a line and looked up by equality, so it must also look like what it is: printable
characters only (`str.isprintable`: no control, no format character such as a zero-width space or a
right-to-left override, no line or paragraph separator), and no space at either end.
"""

from __future__ import annotations

ALLOWED_CONTROLS = frozenset("\n\t")


def _character(text: str, index: int) -> str:
    char = text[index]
    return f"character {index + 1} (U+{ord(char):04X})"


def text_problem(text: str) -> str | None:
    """Why `text` cannot be kept as steering text, naming the first bad character; None when it can."""
    for index, char in enumerate(text):
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            return f"{_character(text, index)} is a lone surrogate: the text is not valid UTF-8"
        if code == 0:
            return f"{_character(text, index)} is a NUL character"
        if (code < 0x20 or code == 0x7F) and char not in ALLOWED_CONTROLS:
            return f"{_character(text, index)} is a control character (only newlines and tabs may be kept)"
    return None


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a pin, naming the first bad character; None when it can."""
    if not name.strip():
        return "a name needs some characters"
    if name != name.strip():
        return "a name may not start or end with a space"
    for index, char in enumerate(name):
        if not char.isprintable():
            return f"{_character(name, index)} is not a printable character"
    return None


def shown(text: str) -> str:
    """`text` as it may be printed: every character that is not printable written as an escape (\\n,
    \\x1b, \\u200b), so a name cannot move the cursor, recolour a terminal or hide among its look-alikes."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
