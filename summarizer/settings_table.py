"""The configuration table of docs/configuration.md, generated from `Settings` so the two cannot drift apart.

uv run python -m summarizer.settings_table           # print the table
uv run python -m summarizer.settings_table --write   # refresh docs/configuration.md in place
"""

from __future__ import annotations

from pydantic import AliasChoices
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from summarizer.settings import Settings

START = "<!-- settings-table:start -->"
END = "<!-- settings-table:end -->"


def _default(value: object) -> str:
    if value is None or value == "" or value is PydanticUndefined:
        return "(unset)"
    if hasattr(value, "value"):
        value = value.value
    return f"`{value}`"


def variable_name(name: str, field: FieldInfo) -> str:
    """The environment variable a setting is read from: its alias when it has one (a provider's own
    variable such as OPENAI_API_KEY), else SUMMARIZER_NAME."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    if isinstance(alias, str):
        return alias
    return f"SUMMARIZER_{name.upper()}"


def settings_table() -> str:
    rows = ["| Variable | Default | Meaning |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        description = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{variable_name(name, field)}` | {_default(field.default)} | {description} |")
    return "\n".join(rows)


def readme_with_table(readme: str) -> str:
    """The page's text with the block between the markers replaced by the current table."""
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{settings_table()}\n{END}{tail}"


def main() -> None:
    import sys
    from pathlib import Path

    if "--write" in sys.argv:
        readme = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
        readme.write_text(readme_with_table(readme.read_text()))
    else:
        print(settings_table())


if __name__ == "__main__":
    main()
