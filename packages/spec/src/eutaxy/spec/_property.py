"""Properties and spec modules: what the reader reads from one spec file.

A spec file exports one property per named export. ``forall`` quantifies over
the function's parameters (the binders, named as the function names them); the
claim's arrows may name them differently, so the trees refer to binders by
position. ``total`` claims termination and has no claim tree.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional, Union

import attrs

from ._data import PLAIN_TUPLE, Data, field, node, nodes
from ._expr import Expr, expr_from_data
from ._types import SpecType, type_from_data

_EXPR = node(expr_from_data)


@attrs.frozen(kw_only=True)
class Binder(Data):
    name: str
    type: SpecType = field(codec=node(type_from_data))
    optional: bool = False


_BINDERS = nodes(Binder.from_data)


@attrs.frozen(kw_only=True)
class ForallProperty(Data):
    """``export const name = forall(function, { when, ensures, sample })``."""

    KIND: ClassVar[str] = "forall"
    name: str
    function: str
    binders: tuple[Binder, ...] = field(codec=_BINDERS)
    when: Optional[Expr] = field(codec=_EXPR, default=None)
    ensures: Expr = field(codec=_EXPR)
    #: What the TESTED rung may draw (``maxArrayLength``, ``maxStringLength``); ``None`` when not given.
    sample: Optional[dict] = None
    line: int = 0
    #: Real time one evaluation may take (``timeoutMs``); ``None`` for the evaluator's default.
    timeout_ms: Optional[int] = field(key="timeoutMs", omit_default=True, default=None)
    #: The finite, non-zero numbers the code the claim reaches is written with (its function's
    #: body, the functions and module constants it names, the claim's arrows), as the reader
    #: found them; TESTED draws near them.
    constants: tuple[float, ...] = field(codec=PLAIN_TUPLE, omit_default=True, default=())
    #: For an overloaded function, the overload the binders are (``{chosen, count}``: the last,
    #: which ``Parameters<F>`` and so the user's compiler take); ``None`` otherwise.
    overload: Optional[dict] = field(omit_default=True, default=None)
    #: The declaration ``function`` resolves to (a :class:`FunctionDef`'s ``id``); "" when it resolved to no body.
    ref: str = field(omit_default=True, default="")


@attrs.frozen(kw_only=True)
class TotalProperty(Data):
    """``export const name = total(function)``: termination on every input."""

    KIND: ClassVar[str] = "total"
    name: str
    function: str
    binders: tuple[Binder, ...] = field(codec=_BINDERS)
    line: int = 0
    #: The declaration ``function`` resolves to (a :class:`FunctionDef`'s ``id``); "" when it resolved to no body.
    ref: str = field(omit_default=True, default="")


Property = Union[ForallProperty, TotalProperty]


def property_from_data(d: dict) -> Property:
    kind = d.get("kind")
    if kind == ForallProperty.KIND:
        return ForallProperty.from_data(d)
    if kind == TotalProperty.KIND:
        return TotalProperty.from_data(d)
    raise ValueError(f"property kind: expected 'forall' or 'total', got {kind!r}")


@attrs.frozen(kw_only=True)
class NotAProperty(Data):
    """An export of a spec file the reader could not read as a property; reported, never checked.

    ``combinator`` is ``"forall"`` or ``"total"`` when the export is built by one
    but could not be read (its function did not resolve, its options are not
    an object literal): that is a property without a verdict, which a report
    lists as UNKNOWN. ``None`` means the export is not a property at all.
    """

    name: str
    line: int = field(missing=0)
    reason: str = field(missing="")
    combinator: Optional[str] = None


@attrs.frozen(kw_only=True)
class FunctionDef(Data):
    """A module function's body read into SpecIR, for the engines to translate.

    ``params`` are typed as the compiler resolved them; inside ``body`` a
    parameter is a ``binder`` read by position. Early returns are conditionals,
    ``const`` bindings are ``let``. A construct outside the subset is an
    ``outside`` node (construct and line) where it stands, so an engine refuses
    exactly it; a problem with the whole function (a compiler error in it, a
    generic signature) makes ``body`` one ``outside`` node.

    ``id`` names the declaration: ``<file>:<line>:<column>`` of its name (of the
    function itself when it has none), ``file`` relative to the spec's project
    (the folder of its ``tsconfig.json``, else the spec file's folder), so two
    functions of one name are never one body. Calls and properties point at it
    by ``ref``.
    """

    KIND: ClassVar[str] = "function_def"
    name: str
    params: tuple[Binder, ...] = field(codec=_BINDERS)
    returns: SpecType = field(codec=node(type_from_data))
    body: Expr = field(codec=_EXPR)
    line: int = 0
    id: str = field(omit_default=True, default="")
    file: str = field(omit_default=True, default="")


@attrs.frozen(kw_only=True)
class GlobalWrite(Data):
    """A write to a global or a built-in the engines rely on (``Math.max = ...``, ``Object.defineProperty(Math, ...)``,
    ``globalThis.x = ...``), somewhere in a source file the spec's program holds: ``file`` relative as in
    :class:`FunctionDef`, its line, the target written (``Math.max``) and the statement's text."""

    file: str
    line: int
    target: str
    text: str = field(missing="")


@attrs.frozen(kw_only=True)
class SpecModule(Data):
    """One spec file read: the module it checks, its properties, and the compiler's own errors.

    ``diagnostics`` are the compiler's messages for the spec file (a spec that
    does not match its function fails here, as it fails the user's tsc).
    """

    KIND: ClassVar[str] = "spec_module"
    spec: str
    module: Optional[str] = field(missing=None)
    properties: tuple[Property, ...] = field(codec=nodes(property_from_data))
    skipped: tuple[NotAProperty, ...] = field(codec=nodes(NotAProperty.from_data), default=())
    diagnostics: tuple[str, ...] = field(codec=PLAIN_TUPLE, default=())
    #: The source files the compiler resolved the spec file's imports to (absolute,
    #: sorted; declaration files and node_modules left out).
    sources: tuple[str, ...] = field(codec=PLAIN_TUPLE, omit_default=True, default=())
    #: The bodies of the functions the properties name and of the module functions they call.
    functions: tuple[FunctionDef, ...] = field(codec=nodes(FunctionDef.from_data), omit_default=True, default=())
    #: Writes to globals and built-ins in the program's source files: an engine that models the
    #: built-ins as the standard ones proves nothing while there is one.
    global_writes: tuple[GlobalWrite, ...] = field(codec=nodes(GlobalWrite.from_data), key="globalWrites",
                                                    omit_default=True, default=())

    def function(self, name: str) -> Optional[FunctionDef]:
        """The body named ``name`` when exactly one read body has that name (else ``None``: a name alone never
        chooses between two declarations). Engines find bodies by :meth:`body`."""
        found = [f for f in self.functions if f.name == name]
        return found[0] if len(found) == 1 else None

    def body(self, ref: str, name: str = "") -> Optional[FunctionDef]:
        """The body of the declaration ``ref`` (a call's or a property's ``ref``), when the reader read it.

        Without a ``ref`` (SpecIR written before declarations were named) the one body named ``name``.
        """
        if ref:
            return next((f for f in self.functions if f.id == ref), None)
        return self.function(name) if name else None

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> "SpecModule":
        if d.get("kind") != cls.KIND:
            raise ValueError(f"spec module kind: expected {cls.KIND!r}, got {d.get('kind')!r}")
        return super().from_data(d)
