"""An in-memory repository the sample agent reads and edits, so later reads show earlier edits."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tools.samples.codegen import module_source


@dataclass(frozen=True, slots=True)
class Edit:
    """A file_edit as the agent sends it: an exact snippet and its replacement."""

    path: str
    old: str
    new: str


@dataclass(slots=True)
class Repo:
    files: dict[str, str] = field(default_factory=dict)

    def ensure(self, path: str, doc: str) -> bool:
        """Creates `path` with a header if missing; True when it was created."""
        if path in self.files:
            return False
        self.files[path] = module_source(path, doc)
        return True

    def numbered(self, path: str) -> str:
        """The file as the file_read tool shows it: right-aligned line numbers and a tab."""
        lines = self.files[path].splitlines()
        return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(lines, start=1))

    def append(self, path: str, block: str) -> Edit:
        """Adds `block` after the file's last lines, anchored on them as a real edit would be."""
        text = self.files[path]
        lines = text.rstrip("\n").splitlines()
        anchor = "\n".join(lines[-3:]) if lines else ""
        new = anchor + block.rstrip("\n")
        self.files[path] = text.rstrip("\n")[: len(text.rstrip("\n")) - len(anchor)] + new + "\n"
        return Edit(path, anchor, new)

    def replace_line(self, rng: random.Random, path: str, symbol: str, make: str) -> Edit | None:
        """Inserts `make` before a body line of `symbol`'s function; None when there is no such body."""
        lines = self.files[path].splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith(f"def {symbol}(")]
        if not starts:
            return None
        body = range(starts[-1] + 2, min(starts[-1] + 14, len(lines)))
        candidates = [i for i in body if lines[i].startswith("    ") and '"""' not in lines[i]]
        if not candidates:
            return None
        index = rng.choice(candidates)
        old = lines[index]
        indent = old[: len(old) - len(old.lstrip())]
        new = f"{indent}{make}\n{old}"
        lines[index] = new
        self.files[path] = "\n".join(lines) + "\n"
        return Edit(path, old, new)

    def test_names(self) -> dict[str, list[str]]:
        """Test functions per test file, so fabricated pytest output matches the repository."""
        tests = {}
        for path, text in sorted(self.files.items()):
            if path.startswith("tests/") and path.endswith(".py"):
                names = [
                    line[4 : line.index("(")] for line in text.splitlines() if line.startswith("def test_")
                ]
                if names:
                    tests[path] = names
        return tests


def test_path_for(path: str) -> str | None:
    """Where the tests of a source module live, or None for files without unit tests."""
    if path.startswith("src/authsvc/") and path.endswith(".py"):
        return "tests/test_" + path.removeprefix("src/authsvc/")
    return None
