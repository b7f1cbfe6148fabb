"""Hot statements that psycopg runs directly: built and compiled by SQLAlchemy once, executed without it.

An update on PostgreSQL is three statements, and through SQLAlchemy's execution layer each one paid for a
`Connection` wrapper, an execution context, a compiled-cache lookup and result metadata built from the
cursor description: about as much CPU as psycopg spent sending the query and reading the rows. A
`DriverStatement` keeps what SQLAlchemy contributes once (the SQL text, default values, bind processors such
as the JSONB wrapper and the UTC check) and `PostgresDatabase.run_hot` hands the text to a pooled psycopg connection.
SQLAlchemy still builds every statement, owns the pool and wraps driver errors in its own exception types, so
callers cannot tell the two paths apart. SQLite keeps the ordinary path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

DIALECT = psycopg_dialect()  # type: ignore[no-untyped-call]


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    required: frozenset[str]
    defaults: dict[str, Any]
    processors: dict[str, Callable[[Any], Any]]

    def process(self, name: str, value: Any) -> Any:
        processor = self.processors.get(name)
        return value if processor is None else processor(value)


def _compile(statement: ClauseElement) -> _Compiled:
    compiled = statement.compile(dialect=DIALECT)
    assert isinstance(compiled, SQLCompiler)
    if compiled.escaped_bind_names:
        raise ValueError(f"bind names need escaping, unsupported here: {sorted(compiled.escaped_bind_names)}")
    required = frozenset(name for bind, name in compiled.bind_names.items() if bind.required)
    processors: dict[str, Callable[[Any], Any]] = {}
    for bind, name in compiled.bind_names.items():
        processor = bind.type.dialect_impl(DIALECT).bind_processor(DIALECT)
        if processor is not None:
            processors[name] = processor
    result = _Compiled(compiled.string, required, {}, processors)
    result.defaults.update(
        (name, result.process(name, value)) for name, value in compiled.params.items() if name not in required
    )
    return result


class DriverStatement:
    """`statement` compiled for psycopg: `sql` has `%(name)s` placeholders; `parameters` fills them in.

    Compiled on first use, so a process that never runs it (SQLite, a command) never pays for it."""

    def __init__(self, statement: ClauseElement) -> None:
        self._statement = statement

    @cached_property
    def _compiled(self) -> _Compiled:
        return _compile(self._statement)

    @property
    def sql(self) -> str:
        return self._compiled.sql

    @property
    def names(self) -> frozenset[str]:
        """Every parameter the SQL has a placeholder for."""
        return self._compiled.required | self._compiled.defaults.keys()

    def parameters(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The statement's own values with `given` filled in, each through its type's bind processor."""
        compiled = self._compiled
        missing = compiled.required - given.keys()
        if missing:
            raise KeyError(f"the statement needs values for {sorted(missing)}")
        params = dict(compiled.defaults)
        for name, value in given.items():
            params[name] = compiled.process(name, value)
        if len(params) != len(compiled.defaults) + len(compiled.required):
            unknown = given.keys() - compiled.required - compiled.defaults.keys()
            raise KeyError(f"parameters the statement does not take: {sorted(unknown)}")
        return params
