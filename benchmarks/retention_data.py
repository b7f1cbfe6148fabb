"""The retention benchmark's conversation: three weeks of a coding agent at work, with planted facts.

    uv run python benchmarks/retention_data.py        # rewrites benchmarks/data/retention_*.json[l]

Deterministic (a fixed seed, a fixed calendar): the same run writes the same bytes. Every day holds a
working day's exchanges (a request, tool calls with their results, a final answer) over the files of one
service, and a few planted facts. A planted fact is a decision the user states in so many words
("Decision: pin PyJWT to 2.8.3 ...") and the agent confirms; stating it as a decision is what marks it
high importance, for a model (the prompt asks to keep decisions) and for the offline summarizer (it
keeps decision sentences whole). Each fact has a needle: the version, path, number or endpoint that must
still be findable in the summary. The facts file lists them with the day they were planted.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

AGENT = "retention-agent"
SEED = 20250106
START = datetime(2025, 1, 6, 8, 30, tzinfo=UTC)  # a Monday
DAYS = 21
DATA = Path(__file__).parent / "data"
CONVERSATION = DATA / "retention_conversation.jsonl"
FACTS = DATA / "retention_facts.json"

AREAS = ("tokens", "sessions", "users", "ratelimit", "audit", "keys", "admin", "billing")
FILES = {
    area: (f"src/authsvc/{area}/service.py", f"src/authsvc/{area}/models.py", f"tests/test_{area}.py")
    for area in AREAS
}
LIBS = ("PyJWT", "SQLAlchemy", "FastAPI", "redis-py", "Alembic", "httpx", "argon2-cffi", "pydantic")
SETTINGS = (
    ("access token lifetime", "minutes"),
    ("refresh token lifetime", "days"),
    ("login rate limit", "requests per minute"),
    ("database pool size", "connections"),
    ("session idle timeout", "minutes"),
    ("audit log retention", "days"),
    ("password reset link lifetime", "minutes"),
    ("key rotation interval", "days"),
)
TASKS = (
    "Add a test for the expired case in {test}",
    "Refactor {file} so the handler is shorter",
    "Fix the failing test in {test}",
    "Add type hints to {file}",
    "Add logging of the request id in {file}",
    "Rename the helper in {file} to something clearer",
    "Run the {area} tests and tell me what fails",
    "Tidy up the imports in {file}",
    "Add a docstring to every public function in {file}",
    "Look into why {test} is slow",
    "Add input validation for the {area} payload in {file}",
    "Check that {file} handles a missing row",
)
ANSWERS = (
    "Updated {file} and ran {test}: {n} passed in {s}s.",
    "The change is in {file}; {test} passes ({n} tests) and the full suite is green.",
    "Found the cause in {file}: the fixture reused a stale session. Fixed it; {n} tests pass.",
    "Cleaned up {file}. Nothing else changed; {n} tests pass in {s}s.",
)


@dataclass(frozen=True)
class PlantedFact:
    day: int
    """Days since the first day of the conversation (0-based)."""
    at: str
    kind: str
    needle: str
    statement: str


class Writer:
    def __init__(self) -> None:
        self.lines: list[dict[str, object]] = []
        self.calls = 0

    def add(self, kind: str, at: datetime, content: str, **extra: object) -> None:
        line: dict[str, object] = {
            "agent": AGENT,
            "id": f"m{len(self.lines) + 1:06d}",
            "kind": kind,
            "created_at": at.isoformat(),
            "content": content,
        }
        line.update(extra)
        self.lines.append(line)

    def tool(self, at: datetime, name: str, args: dict[str, object], result: str) -> datetime:
        self.calls += 1
        call_id = f"toolu_{self.calls:08d}"
        self.add("tool_call", at, "", tool_call_id=call_id, name=name, input=args)
        at += timedelta(seconds=4)
        self.add("tool_result", at, result, tool_call_id=call_id, is_error=False)
        return at + timedelta(seconds=3)


def _code(rng: random.Random, path: str) -> str:
    name = path.rsplit("/", 1)[-1].removesuffix(".py")
    body = [f'"""{name}: part of authsvc."""', "", "from __future__ import annotations", ""]
    for i in range(rng.randint(2, 6)):
        body.append(f"def {name}_step_{i}(value: int) -> int:")
        body.append(f"    return value * {rng.randint(2, 9)} + {i}")
        body.append("")
    return "\n".join(f"{n:4d}  {line}" for n, line in enumerate(body, start=1))


def _pytest(rng: random.Random, test: str, passed: int) -> str:
    dots = "." * passed
    return (
        "============================= test session starts ==============================\n"
        f"collected {passed} items\n\n{test} {dots} [100%]\n\n"
        f"============================== {passed} passed in {rng.uniform(0.4, 6):.2f}s ===============\n"
    )


def ordinary_exchange(w: Writer, rng: random.Random, at: datetime) -> datetime:
    area = rng.choice(AREAS)
    file, models, test = FILES[area]
    file = rng.choice((file, models))
    request = rng.choice(TASKS).format(file=file, test=test, area=area)
    w.add("user", at, request + ".")
    at += timedelta(seconds=rng.randint(5, 20))
    at = w.tool(at, "file_read", {"path": file}, _code(rng, file))
    if rng.random() < 0.7:
        at = w.tool(
            at,
            "file_edit",
            {"path": file, "old_string": "value * 2", "new_string": "value * 3"},
            f"The file {file} has been updated.",
        )
    passed = rng.randint(4, 60)
    at = w.tool(at, "bash", {"command": f"uv run pytest {test} -q"}, _pytest(rng, test, passed))
    answer = rng.choice(ANSWERS).format(file=file, test=test, n=passed, s=f"{rng.uniform(0.4, 6):.1f}")
    w.add("assistant", at, answer)
    return at


def planted_fact(rng: random.Random, day: int, serial: int) -> tuple[str, str, str, str]:
    """(kind, needle, the user's decision, the agent's confirmation); needles never repeat."""
    kind = ("version", "path", "number", "endpoint")[serial % 4]
    if kind == "version":
        lib = LIBS[serial % len(LIBS)]
        needle = f"{2 + serial % 5}.{serial // 3 + 1}.{serial % 7 + day}"
        return (
            kind,
            needle,
            (f"Decision: pin {lib} to {needle} in pyproject.toml, the next release breaks our tests."),
            f"Pinned {lib}=={needle} and re-ran the suite; everything passes.",
        )
    if kind == "path":
        area = AREAS[serial % len(AREAS)]
        needle = f"src/authsvc/{area}/policy_{serial:02d}.py"
        return (
            kind,
            needle,
            (f"Decision: the {area} access policy lives in {needle} from now on, not in the handlers."),
            f"Moved the {area} policy checks into {needle} and updated the imports.",
        )
    if kind == "number":
        setting, unit = SETTINGS[serial % len(SETTINGS)]
        value = 7 + serial * 3
        needle = f"{value} {unit}"
        return (
            kind,
            needle,
            (f"Decision: set the {setting} to {needle}; product signed off on it today."),
            f"Set the {setting} to {needle} in settings and added a test for the boundary.",
        )
    area = AREAS[serial % len(AREAS)]
    needle = f"/v{2 + serial % 3}/{area}/bulk-{serial:02d}"
    return (
        kind,
        needle,
        (f"Decision: expose POST {needle} for the batch jobs instead of looping over single calls."),
        f"Added POST {needle} with validation and a test; the OpenAPI schema lists it.",
    )


def generate() -> tuple[list[dict[str, object]], list[PlantedFact]]:
    rng = random.Random(SEED)
    w = Writer()
    facts: list[PlantedFact] = []
    w.add("system", START, "You are a coding agent working in the authsvc repository (FastAPI, PostgreSQL).")
    serial = 0
    for day in range(DAYS):
        weekend = (START + timedelta(days=day)).weekday() >= 5
        count = rng.randint(25, 35) if weekend else rng.randint(120, 140)
        planted_at = set(rng.sample(range(5, count - 5), 1 if weekend else 3))
        at = START + timedelta(days=day, minutes=rng.randint(0, 30))
        step = timedelta(seconds=(9 * 3600) // count)
        for n in range(count):
            at = max(at, START + timedelta(days=day) + n * step)
            if n in planted_at:
                kind, needle, decision, confirmation = planted_fact(rng, day, serial)
                serial += 1
                w.add("user", at, decision)
                w.add("assistant", at + timedelta(seconds=30), confirmation)
                facts.append(PlantedFact(day, at.isoformat(), kind, needle, decision))
                at += timedelta(seconds=31)
            else:
                at = ordinary_exchange(w, rng, at) + timedelta(seconds=1)
    return w.lines, facts


def main() -> None:
    lines, facts = generate()
    DATA.mkdir(parents=True, exist_ok=True)
    with CONVERSATION.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    FACTS.write_text(json.dumps([asdict(f) for f in facts], indent=1) + "\n", encoding="utf-8")
    exchanges = sum(1 for line in lines if line["kind"] == "user")
    print(f"wrote {len(lines)} messages ({exchanges} exchanges, {DAYS} days) and {len(facts)} facts")


if __name__ == "__main__":
    main()
