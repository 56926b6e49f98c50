"""Properties and spec modules: what the reader reads from one spec file.

A spec file exports one property per named export. ``forall`` quantifies over
the function's parameters (the binders, named as the function names them); the
claim's arrows may name them differently, so the trees refer to binders by
position. ``total`` claims termination and has no claim tree.
"""

from __future__ import annotations

from typing import ClassVar, Optional, Union

import attrs

from ._expr import Expr, expr_from_data
from ._types import SpecType, type_from_data


@attrs.frozen(kw_only=True)
class Binder:
    name: str
    type: SpecType
    optional: bool = False

    def to_data(self) -> dict:
        return {"name": self.name, "type": self.type.to_data(), "optional": self.optional}

    @classmethod
    def from_data(cls, d: dict) -> "Binder":
        return cls(name=d["name"], type=type_from_data(d["type"]), optional=d.get("optional", False))


@attrs.frozen(kw_only=True)
class ForallProperty:
    """``export const name = forall(function, { when, ensures, sample })``."""

    KIND: ClassVar[str] = "forall"
    name: str
    function: str
    binders: tuple[Binder, ...]
    ensures: Expr
    when: Optional[Expr] = None
    #: What the TESTED rung may draw (``maxArrayLength``, ``maxStringLength``); ``None`` when not given.
    sample: Optional[dict] = None
    line: int = 0
    #: Real time one evaluation may take (``timeoutMs``); ``None`` for the evaluator's default.
    timeout_ms: Optional[int] = None
    #: For an overloaded function, the overload the binders are (``{chosen, count}``: the last,
    #: which ``Parameters<F>`` and so the user's compiler take); ``None`` otherwise.
    overload: Optional[dict] = None

    def to_data(self) -> dict:
        data = {"kind": self.KIND, "name": self.name, "function": self.function,
                "binders": [b.to_data() for b in self.binders],
                "when": None if self.when is None else self.when.to_data(),
                "ensures": self.ensures.to_data(), "sample": self.sample, "line": self.line}
        if self.timeout_ms is not None:
            data["timeoutMs"] = self.timeout_ms
        if self.overload is not None:
            data["overload"] = self.overload
        return data

    @classmethod
    def from_data(cls, d: dict) -> "ForallProperty":
        return cls(name=d["name"], function=d["function"],
                   binders=tuple(Binder.from_data(b) for b in d["binders"]),
                   ensures=expr_from_data(d["ensures"]),
                   when=None if d.get("when") is None else expr_from_data(d["when"]),
                   sample=d.get("sample"), line=d.get("line", 0), timeout_ms=d.get("timeoutMs"), overload=d.get("overload"))


@attrs.frozen(kw_only=True)
class TotalProperty:
    """``export const name = total(function)``: termination on every input."""

    KIND: ClassVar[str] = "total"
    name: str
    function: str
    binders: tuple[Binder, ...]
    line: int = 0

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "function": self.function,
                "binders": [b.to_data() for b in self.binders], "line": self.line}

    @classmethod
    def from_data(cls, d: dict) -> "TotalProperty":
        return cls(name=d["name"], function=d["function"],
                   binders=tuple(Binder.from_data(b) for b in d["binders"]), line=d.get("line", 0))


Property = Union[ForallProperty, TotalProperty]


def property_from_data(d: dict) -> Property:
    kind = d.get("kind")
    if kind == ForallProperty.KIND:
        return ForallProperty.from_data(d)
    if kind == TotalProperty.KIND:
        return TotalProperty.from_data(d)
    raise ValueError(f"property kind: expected 'forall' or 'total', got {kind!r}")


@attrs.frozen(kw_only=True)
class NotAProperty:
    """An export of a spec file the reader could not read as a property; reported, never checked.

    ``combinator`` is ``"forall"`` or ``"total"`` when the export is built by one
    but could not be read (its function did not resolve, its options are not
    an object literal): that is a property without a verdict, which a report
    lists as UNKNOWN. ``None`` means the export is not a property at all.
    """

    name: str
    line: int
    reason: str
    combinator: Optional[str] = None

    def to_data(self) -> dict:
        return {"name": self.name, "line": self.line, "reason": self.reason, "combinator": self.combinator}

    @classmethod
    def from_data(cls, d: dict) -> "NotAProperty":
        return cls(name=d["name"], line=d.get("line", 0), reason=d.get("reason", ""),
                   combinator=d.get("combinator"))


@attrs.frozen(kw_only=True)
class FunctionDef:
    """A module function's body read into SpecIR, for the engines to translate.

    ``params`` are typed as the compiler resolved them; inside ``body`` a
    parameter is a ``binder`` read by position. Early returns are conditionals,
    ``const`` bindings are ``let``. A construct outside the subset is an
    ``outside`` node (construct and line) where it stands, so an engine refuses
    exactly it; a problem with the whole function (a compiler error in it, a
    generic signature) makes ``body`` one ``outside`` node.
    """

    KIND: ClassVar[str] = "function_def"
    name: str
    params: tuple[Binder, ...]
    returns: SpecType
    body: Expr
    line: int = 0

    def to_data(self) -> dict:
        return {"kind": self.KIND, "name": self.name, "params": [p.to_data() for p in self.params],
                "returns": self.returns.to_data(), "body": self.body.to_data(), "line": self.line}

    @classmethod
    def from_data(cls, d: dict) -> "FunctionDef":
        return cls(name=d["name"], params=tuple(Binder.from_data(p) for p in d["params"]),
                   returns=type_from_data(d["returns"]), body=expr_from_data(d["body"]),
                   line=d.get("line", 0))


@attrs.frozen(kw_only=True)
class SpecModule:
    """One spec file read: the module it checks, its properties, and the compiler's own errors.

    ``diagnostics`` are the compiler's messages for the spec file (a spec that
    does not match its function fails here, as it fails the user's tsc).
    """

    KIND: ClassVar[str] = "spec_module"
    spec: str
    module: Optional[str]
    properties: tuple[Property, ...]
    skipped: tuple[NotAProperty, ...] = ()
    diagnostics: tuple[str, ...] = ()
    #: The source files the compiler resolved the spec file's imports to (absolute,
    #: sorted; declaration files and node_modules left out).
    sources: tuple[str, ...] = ()
    #: The bodies of the functions the properties name and of the module functions they call.
    functions: tuple[FunctionDef, ...] = ()

    def to_data(self) -> dict:
        data = {"kind": self.KIND, "spec": self.spec, "module": self.module,
                "properties": [p.to_data() for p in self.properties],
                "skipped": [s.to_data() for s in self.skipped],
                "diagnostics": list(self.diagnostics)}
        if self.sources:
            data["sources"] = list(self.sources)
        if self.functions:
            data["functions"] = [f.to_data() for f in self.functions]
        return data

    def function(self, name: str) -> Optional[FunctionDef]:
        """The body of the module function ``name``, when the reader read it."""
        return next((f for f in self.functions if f.name == name), None)

    @classmethod
    def from_data(cls, d: dict) -> "SpecModule":
        if d.get("kind") != cls.KIND:
            raise ValueError(f"spec module kind: expected {cls.KIND!r}, got {d.get('kind')!r}")
        return cls(spec=d["spec"], module=d.get("module"),
                   properties=tuple(property_from_data(p) for p in d["properties"]),
                   skipped=tuple(NotAProperty.from_data(s) for s in d.get("skipped", ())),
                   diagnostics=tuple(d.get("diagnostics", ())), sources=tuple(d.get("sources", ())),
                   functions=tuple(FunctionDef.from_data(f) for f in d.get("functions", ())))
