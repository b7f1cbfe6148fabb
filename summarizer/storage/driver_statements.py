"""Hot statements that psycopg runs directly: built and compiled by SQLAlchemy once, executed without it.

An update on PostgreSQL is three statements, and through SQLAlchemy's execution layer each one paid for a
`Connection` wrapper, an execution context, a compiled-cache lookup and result metadata built from the
cursor description: about as much CPU as psycopg spent sending the query and reading the rows. A
`DriverStatement` keeps what SQLAlchemy contributes once (the SQL text, default values, bind processors such
as the JSONB wrapper and the UTC check) and `Database.run_hot` hands the text to a pooled psycopg connection.
SQLAlchemy still builds every statement, owns the pool and wraps driver errors in its own exception types, so
callers cannot tell the two paths apart. SQLite keeps the ordinary path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.dialects.postgresql.psycopg import dialect as psycopg_dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

DIALECT = psycopg_dialect()  # type: ignore[no-untyped-call]


class DriverStatement:
    """`statement` compiled for psycopg: `sql` has `%(name)s` placeholders; `parameters` fills them in."""

    def __init__(self, statement: ClauseElement) -> None:
        compiled = statement.compile(dialect=DIALECT)
        assert isinstance(compiled, SQLCompiler)
        if compiled.escaped_bind_names:
            raise ValueError(
                f"bind names need escaping, unsupported here: {sorted(compiled.escaped_bind_names)}"
            )
        self.sql: str = compiled.string
        self._processors: dict[str, Callable[[Any], Any]] = {}
        self._required: frozenset[str] = frozenset(
            name for bind, name in compiled.bind_names.items() if bind.required
        )
        for bind, name in compiled.bind_names.items():
            processor = bind.type.dialect_impl(DIALECT).bind_processor(DIALECT)
            if processor is not None:
                self._processors[name] = processor
        self._defaults: dict[str, Any] = {
            name: self._process(name, value)
            for name, value in compiled.params.items()
            if name not in self._required
        }

    @property
    def names(self) -> frozenset[str]:
        """Every parameter the SQL has a placeholder for."""
        return self._required | self._defaults.keys()

    def _process(self, name: str, value: Any) -> Any:
        processor = self._processors.get(name)
        return value if processor is None else processor(value)

    def parameters(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The statement's own values with `given` filled in, each through its type's bind processor."""
        missing = self._required - given.keys()
        if missing:
            raise KeyError(f"the statement needs values for {sorted(missing)}")
        params = dict(self._defaults)
        for name, value in given.items():
            params[name] = self._process(name, value)
        if len(params) != len(self._defaults) + len(self._required):
            unknown = given.keys() - self._required - self._defaults.keys()
            raise KeyError(f"parameters the statement does not take: {sorted(unknown)}")
        return params
