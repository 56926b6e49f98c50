"""SpecIR to Lean 4: the module's records as structures, its functions as definitions, each claim as a theorem.

The models (docs/specs.md, "The Lean engine"): number is Lean's ``Int`` (the
unbounded integers: no fractions, NaN, infinities or overflow), string is
Lean's ``String`` (Unicode characters), boolean is ``Bool``; a record declared
in the module is a ``structure``; an array is a ``List``. Booleans stay
``Bool`` in terms, as in TypeScript, and become propositions (``= true``) only
where the statement needs one; comparisons are decided (``decide (a < b)``).

Every TypeScript name is emitted under a shape Lean's prelude never uses and no
other kind of name can take: ``f_`` functions, ``R_`` records, ``x_`` fields,
``v_`` variables, ``s_`` statements, ``t_`` theorems. A name Lean would not read
as an identifier is written between ``«»``.

A construct the engine does not take (``constructs.json`` says which) raises
:class:`Unsupported` naming it and its line. A function holding one is left
out, and so is every function calling it; a property reaching one is UNKNOWN
(unsupported) and the rest of the module still goes through. The text depends
only on the SpecIR and the file names, so the same module gives the same bytes.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import attrs

from eutaxy.prover.engine import ConstructUnsupported
from eutaxy.spec import (ArrayType, Binary, Binder, BinderRef, BooleanType, Call, Conditional, Every, FieldRead,
                         ForallProperty, FunctionDef, FunctionRef, IndexRead, Let, Literal, LiteralType,
                         LiteralUnionType, Local, NumberType, Outside, RecordLiteral, RecordType, RegexTest,
                         SpecModule, SpecType, StringType, TotalProperty, Unary, children)

from . import constructs

#: The Lean types the emitter reasons with: "Int", "Bool", "String", ("List", t), ("R", record name).
LType = Union[str, tuple[str, Any]]
INT, BOOL, STRING = "Int", "Bool", "String"

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Module functions one claim may reach, transitively (the reader reads at most 64).
FUNCTIONS_MAX = 64


class Unsupported(ConstructUnsupported):
    """A construct the engine does not take: its name in constructs.json, its line (0 when unknown), its text."""

    TEXT_FORMAT = " ({})"

    @classmethod
    def refused(cls, name: str, text: str = "", line: int = 0) -> "Unsupported":
        """The refusal the table gives construct ``name``."""
        assert not constructs.taken(name), f"{name} is taken by the Lean engine, not refused"
        why = constructs.why_not(name)
        return cls(name, line, f"{text}: {why}" if text else why)


def ident(prefix: str, name: str) -> str:
    """A TypeScript name under the engine's prefix, quoted where Lean would not read it as one identifier."""
    full = prefix + name
    return full if _IDENT.match(full) else f"«{full}»"


def lean_string(text: str) -> str:
    """A Lean string literal; a lone surrogate, which has no Lean character, is refused."""
    out = []
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            raise Unsupported.refused("lone surrogate", f"\\u{code:04x}")
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _taken(name: str) -> None:
    """Assert the table takes ``name`` (every construct the emitter translates is named there)."""
    assert constructs.taken(name), f"the emitter translates {name}, which constructs.json refuses"


@attrs.define(eq=False)
class _Scope:
    """What names mean inside one tree: the binders (by position) and the let-bound locals."""

    binders: Sequence[tuple[str, LType]]
    locals: dict[str, LType] = attrs.field(factory=dict)


class Emitter:
    """Translates one module's SpecIR; records, functions and refusals are collected as they are met."""

    def __init__(self, module: SpecModule) -> None:
        self.module = module
        #: Record name -> its RecordType, in the order first met.
        self.records: dict[str, RecordType] = {}
        #: Function (its declaration: ``id``, else its name) -> its Lean definition text, or the refusal.
        self.functions: dict[str, Union[str, Unsupported]] = {}
        #: Function -> its Lean name (``f_<name>``; a second declaration of one name gets ``'2``, a
        #: character no TypeScript name holds) and its TypeScript name.
        self.names: dict[str, str] = {}
        self.display: dict[str, str] = {}
        #: Functions in the order their definitions must appear (callees first).
        self.order: list[str] = []
        self._reading: list[str] = []

    def key(self, fn: FunctionDef) -> str:
        """One function's key, by declaration (two functions of one name are two bodies), and its Lean name."""
        key = fn.id or fn.name
        if key not in self.names:
            taken = set(self.names.values())
            name, count = ident("f_", fn.name), 1
            while name in taken:
                count += 1
                name = ident("f_", f"{fn.name}'{count}")
            self.names[key] = name
            self.display[key] = fn.name
        return key

    # ---- types ----------------------------------------------------------------------

    def ltype(self, t: SpecType, line: int = 0) -> LType:
        if isinstance(t, NumberType):
            _taken("type number")
            return INT
        if isinstance(t, BooleanType):
            _taken("type boolean")
            return BOOL
        if isinstance(t, StringType):
            _taken("type string")
            return STRING
        if isinstance(t, (LiteralType, LiteralUnionType)):
            values = [t.value] if isinstance(t, LiteralType) else list(t.values)
            if values and all(isinstance(v, str) for v in values):
                base: LType = STRING
            elif values and all(isinstance(v, bool) for v in values):
                base = BOOL
            elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                base = INT
            elif values and all(v is None or v == {"$": "undefined"} for v in values):
                raise Unsupported.refused("null or undefined", t.name, line)
            else:
                raise Unsupported.refused("type union", t.name or "a union of literals of different types", line)
            _taken("type literal")
            return base
        if isinstance(t, RecordType):
            if not _IDENT.match(t.name or ""):
                raise Unsupported.refused("type inline record", t.name, line)
            for f in t.fields:
                if f.optional:
                    raise Unsupported.refused("optional field", f"{t.name}.{f.name}", line)
                self.ltype(f.type, line)
            known = self.records.get(t.name)
            if known is not None and known != t:
                raise Unsupported.refused("type inline record", f"two record types named {t.name}", line)
            self.records.setdefault(t.name, t)
            _taken("type record")
            return ("R", t.name)
        if isinstance(t, ArrayType):
            _taken("type array")
            return ("List", self.ltype(t.element, line))
        kind = str(getattr(t, "KIND", ""))
        name = {"nullable": "type nullable", "tagged_union": "type tagged union", "union": "type union",
                "bigint": "type bigint", "template": "type template"}.get(kind, "type unsupported")
        detail = str(getattr(t, "name", "") or kind)
        reason = str(getattr(t, "reason", "") or "")
        if name == "type unsupported" and reason:
            detail = f"{detail}: {reason}" if detail else reason
        raise Unsupported.refused(name, detail, line)

    def type_text(self, t: LType) -> str:
        if isinstance(t, str):
            return t
        if t[0] == "List":
            return f"(List {self.type_text(t[1])})"
        return ident("R_", t[1])

    def binders(self, params: Sequence[Binder], line: int) -> list[tuple[str, LType]]:
        out = []
        for b in params:
            if b.optional:
                raise Unsupported.refused("optional parameter", b.name, line)
            out.append((b.name, self.ltype(b.type, line)))
        return out

    # ---- expressions ------------------------------------------------------------------

    def expr(self, e: Any, scope: _Scope) -> tuple[str, LType]:
        """The Lean text of ``e`` and its type."""
        if isinstance(e, Literal):
            return self.literal(e.value)
        if isinstance(e, BinderRef):
            name, t = scope.binders[e.index]
            return ident("v_", name), t
        if isinstance(e, Local):
            return ident("v_", e.name), scope.locals[e.name]
        if isinstance(e, Let):
            _taken("let")
            value, t = self.expr(e.value, scope)
            inner = _Scope(binders=scope.binders, locals={**scope.locals, e.name: t})
            body, bt = self.expr(e.body, inner)
            return f"(let {ident('v_', e.name)} := {value}; {body})", bt
        if isinstance(e, Unary):
            return self.unary(e, scope)
        if isinstance(e, Binary):
            return self.binary(e, scope)
        if isinstance(e, Conditional):
            _taken("conditional")
            test = self.expect(e.test, scope, BOOL, "conditional")
            then, tt = self.expr(e.then, scope)
            other, ot = self.expr(e.otherwise, scope)
            if tt != ot:
                raise Unsupported.refused("type union", f"branches of types {self.type_text(tt)} and {self.type_text(ot)}")
            return f"(if {test} then {then} else {other})", tt
        if isinstance(e, FieldRead):
            return self.field(e, scope)
        if isinstance(e, IndexRead):
            raise Unsupported.refused("index read")
        if isinstance(e, Call):
            return self.call(e, scope)
        if isinstance(e, RecordLiteral):
            return self.record(e, scope)
        if isinstance(e, Every):
            _taken("every")
            xs, t = self.expr(e.array, scope)
            if isinstance(t, str) or t[0] != "List":
                raise Unsupported.refused("type union", "every on a value that is not an array")
            inner = _Scope(binders=scope.binders, locals={**scope.locals, e.param: t[1]})
            body = self.expect(e.body, inner, BOOL, "every")
            return f"(List.all {_paren(xs)} (fun {ident('v_', e.param)} => {body}))", BOOL
        if isinstance(e, RegexTest):
            raise Unsupported.refused("regular expression test", f"/{e.pattern}/{e.flags}")
        if isinstance(e, FunctionRef):
            raise Unsupported.refused("function as a value", e.name)
        if isinstance(e, Outside):
            raise Unsupported(e.construct, e.line, e.text)
        raise Unsupported.refused("outside the subset", getattr(e, "KIND", type(e).__name__))

    def expect(self, e: Any, scope: _Scope, want: LType, where: str) -> str:
        text, t = self.expr(e, scope)
        if t != want:
            if where in ("&&", "||"):
                raise Unsupported.refused("&& || on non-booleans", f"{self.type_text(t)} {where} ...")
            raise Unsupported.refused("type union", f"{where} on a {self.type_text(t)}, {self.type_text(want)} expected")
        return text

    def literal(self, value: Any) -> tuple[str, LType]:
        if isinstance(value, bool):
            _taken("boolean literal")
            return ("true" if value else "false"), BOOL
        if value is None or value == {"$": "undefined"}:
            raise Unsupported.refused("null or undefined", "null" if value is None else "undefined")
        if isinstance(value, str):
            text = lean_string(value)
            _taken("string literal")
            return text, STRING
        if isinstance(value, dict) and value.get("$") == "number":
            raise Unsupported.refused("special number literal", str(value.get("v")))
        if isinstance(value, (int, float)):
            if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
                raise Unsupported.refused("fraction literal", repr(value))
            if isinstance(value, float) and math.copysign(1.0, value) < 0 and value == 0:
                raise Unsupported.refused("special number literal", "-0")
            n = int(value)
            _taken("integer literal")
            return (str(n) if n >= 0 else f"({n})"), INT
        raise Unsupported.refused("outside the subset", f"the literal {value!r}")

    def unary(self, e: Unary, scope: _Scope) -> tuple[str, LType]:
        if e.op == "!":
            _taken("!")
            return f"(!{self.expect(e.operand, scope, BOOL, '!')})", BOOL
        if e.op in ("-", "+"):
            _taken(f"unary {e.op}")
            operand = self.expect(e.operand, scope, INT, f"unary {e.op}")
            return (f"(-{operand})" if e.op == "-" else operand), INT
        raise Unsupported.refused("outside the subset", f"unary {e.op}")

    def binary(self, e: Binary, scope: _Scope) -> tuple[str, LType]:
        op = e.op
        if op in ("&&", "||"):
            left, lt = self.expr(e.left, scope)
            right, rt = self.expr(e.right, scope)
            if lt != BOOL or rt != BOOL:
                raise Unsupported.refused("&& || on non-booleans", f"{self.type_text(lt)} {op} {self.type_text(rt)}")
            _taken("&& ||")
            return f"({left} {op} {right})", BOOL
        if op == "??":
            if isinstance(e.left, IndexRead) and isinstance(e.left.index, Literal) and e.left.index.value == 0:
                xs, t = self.expr(e.left.object, scope)
                fallback, ft = self.expr(e.right, scope)
                if isinstance(t, tuple) and t[0] == "List" and t[1] == ft:
                    _taken("xs[0] ?? fallback")
                    return f"(List.headD {_paren(xs)} {fallback})", ft
            raise Unsupported.refused("other ??")
        if op in ("==", "!="):
            raise Unsupported.refused("loose equality", op)
        if op == "/":
            raise Unsupported.refused("/")
        if op == "%":
            raise Unsupported.refused("%")
        left, lt = self.expr(e.left, scope)
        right, rt = self.expr(e.right, scope)
        if op in ("===", "!=="):
            if lt != rt or not isinstance(lt, str):
                if not isinstance(lt, str) or not isinstance(rt, str):
                    raise Unsupported.refused("=== on records or arrays")
                raise Unsupported.refused("type union", f"{self.type_text(lt)} {op} {self.type_text(rt)}")
            _taken("=== on primitives")
            eq = f"decide ({_annotate(left, right)} = {right})"
            return (eq if op == "===" else f"(!{eq})"), BOOL
        if op in ("<", "<=", ">", ">="):
            if lt == STRING and rt == STRING:
                raise Unsupported.refused("ordering strings", op)
            if lt != INT or rt != INT:
                raise Unsupported.refused("type union", f"{self.type_text(lt)} {op} {self.type_text(rt)}")
            _taken("comparison on numbers")
            return f"decide ({_annotate(left, right)} {op} {right})", BOOL
        if op == "+" and lt == STRING and rt == STRING:
            _taken("+ joining strings")
            return f"({left} ++ {right})", STRING
        if op in ("+", "-", "*"):
            if lt != INT or rt != INT:
                raise Unsupported.refused("type union", f"{self.type_text(lt)} {op} {self.type_text(rt)}")
            _taken("+ - * on numbers")
            return f"({left} {op} {right})", INT
        raise Unsupported.refused("outside the subset", f"operator {op}")

    def field(self, e: FieldRead, scope: _Scope) -> tuple[str, LType]:
        obj, t = self.expr(e.object, scope)
        if e.name == "length":
            if t == STRING:
                raise Unsupported.refused("string length")
            if isinstance(t, tuple) and t[0] == "List":
                _taken("array length")
                return f"({_paren(obj)}.length : Int)", INT
        if isinstance(t, tuple) and t[0] == "R":
            record = self.records[t[1]]
            for f in record.fields:
                if f.name == e.name:
                    _taken("field read")
                    return f"{_paren(obj)}.{ident('x_', f.name)}", self.ltype(f.type)
        raise Unsupported.refused("type union", f"field .{e.name} of a {self.type_text(t)}")

    def call(self, e: Call, scope: _Scope) -> tuple[str, LType]:
        if e.target == "builtin":
            if e.callee == "Math.floor" and len(e.args) == 1:
                arg = e.args[0]
                if isinstance(arg, Binary) and arg.op == "/":
                    divisor = arg.right
                    if (isinstance(divisor, Literal) and isinstance(divisor.value, (int, float))
                            and not isinstance(divisor.value, bool) and divisor.value > 0
                            and float(divisor.value).is_integer()):
                        x = self.expect(arg.left, scope, INT, "/")
                        _taken("Math.floor(x / c)")
                        return f"({x} / {int(divisor.value)})", INT
                    raise Unsupported.refused("/", "Math.floor of a division by anything but a positive integer constant")
                x = self.expect(arg, scope, INT, "Math.floor")
                _taken("Math.floor")
                return x, INT
            if e.callee == "Number.isInteger" and len(e.args) == 1:
                self.expect(e.args[0], scope, INT, "Number.isInteger")
                _taken("Number.isInteger")
                return "true", BOOL
            raise Unsupported.refused("other builtins", e.callee)
        fn = self.module.body(e.ref, e.callee)
        if fn is None:
            raise Unsupported.refused("outside the subset", f"a call to {e.callee}, whose body the reader did not read")
        self.function(fn)
        defined = self.functions[self.key(fn)]
        if isinstance(defined, Unsupported):
            raise Unsupported(defined.construct, defined.line, defined.text, defined.where or fn.name)
        params = self.binders(fn.params, fn.line)
        if len(params) != len(e.args):
            raise Unsupported.refused("outside the subset", f"{fn.name} called with {len(e.args)} arguments")
        args = [self.expect(a, scope, t, fn.name) for a, (_, t) in zip(e.args, params, strict=True)]
        _taken("call to a module function")
        return f"({' '.join([self.names[self.key(fn)], *args])})", self.ltype(fn.returns, fn.line)

    def record(self, e: RecordLiteral, scope: _Scope) -> tuple[str, LType]:
        t = self.ltype(e.type)
        if not (isinstance(t, tuple) and t[0] == "R"):
            raise Unsupported.refused("type union", f"a record literal of type {getattr(e.type, 'name', '')}")
        record = self.records[t[1]]
        given = dict(e.fields)
        parts = []
        for f in record.fields:
            if f.name not in given:
                raise Unsupported.refused("optional field", f"{record.name}.{f.name} left out")
            value = self.expect(given[f.name], scope, self.ltype(f.type), f"field {f.name}")
            parts.append(f"{ident('x_', f.name)} := {value}")
        _taken("record literal")
        return "({ " + ", ".join(parts) + " } : " + self.type_text(t) + ")", t

    # ---- functions --------------------------------------------------------------------

    def function(self, fn: FunctionDef) -> None:
        """Translate ``fn`` (and its callees first) once, keeping its definition or its refusal."""
        key = self.key(fn)
        if key in self.functions:
            return
        if key in self._reading:
            self.functions[key] = Unsupported.refused("outside the subset", "recursion", fn.line)
            return
        if len(self._reading) >= FUNCTIONS_MAX:
            self.functions[key] = Unsupported.refused("outside the subset", "calls nested too deep", fn.line)
            return
        self._reading.append(key)
        try:
            params = self.binders(fn.params, fn.line)
            returns = self.ltype(fn.returns, fn.line)
            body = self.body(fn.body, _Scope(binders=params), returns, indent=1)
            head = " ".join([f"def {self.names[key]}",
                             *[f"({ident('v_', n)} : {self.type_text(t)})" for n, t in params]])
            self.functions[key] = f"{head} : {self.type_text(returns)} :=\n{body}\n"
            self.order.append(key)
        except Unsupported as refused:
            if not refused.where:
                refused.where = fn.name
                refused.line = refused.line or fn.line
            self.functions[key] = refused
        finally:
            self._reading.pop()

    def body(self, e: Any, scope: _Scope, returns: LType, indent: int) -> str:
        """A function body laid out as early returns read: one branch or binding per line."""
        pad = "  " * indent
        if isinstance(e, Conditional):
            _taken("conditional")
            test = self.expect(e.test, scope, BOOL, "conditional")
            then = self.body(e.then, scope, returns, indent + 1)
            other = self.body(e.otherwise, scope, returns, indent + 1)
            return f"{pad}if {test} then\n{then}\n{pad}else\n{other}"
        if isinstance(e, Let):
            _taken("let")
            value, t = self.expr(e.value, scope)
            inner = _Scope(binders=scope.binders, locals={**scope.locals, e.name: t})
            rest = self.body(e.body, inner, returns, indent)
            return f"{pad}let {ident('v_', e.name)} := {value}\n{rest}"
        text, t = self.expr(e, scope)
        if t != returns:
            raise Unsupported.refused("type union", f"returns a {self.type_text(t)} where {self.type_text(returns)} is declared")
        return f"{pad}{text}"


def _paren(text: str) -> str:
    """``text`` as one term: an identifier, or already one parenthesized group, as it is; else in parentheses."""
    if _IDENT.match(text) or (text.startswith("«") and text.endswith("»")):
        return text
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(text) - 1:
                break
        else:
            return text
    return f"({text})"


def _annotate(left: str, right: str) -> str:
    """Two integer literals compared: the left one typed, so Lean does not read them as Nat."""
    if _is_int_literal(left) and _is_int_literal(right):
        return f"({left} : Int)"
    return left


def _is_int_literal(text: str) -> bool:
    return bool(re.fullmatch(r"\(?-?\d+\)?", text))


# ---- the module ---------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Theorem:
    """Where one property's theorem stands in the emitted file (1-based lines, inclusive)."""

    property: str
    #: The statement as Lean sees it (``s_<property>``'s body), for goal files.
    statement: str
    first_line: int
    last_line: int
    #: Lines of Eutaxy's own ``#check`` and ``#print axioms`` commands for this theorem.
    check_line: int
    axioms_line: int
    #: "script" (the engine's tactic script) or "supplied" (the proof file's tactics).
    proof: str
    #: The emitted line where the tactics start (the supplied part's first line maps there).
    tactics_line: int = 0


@attrs.frozen(kw_only=True)
class Emission:
    """One module in Lean: the file's text, where each theorem stands, and what was refused."""

    text: str
    theorems: dict[str, Theorem]
    #: Property name -> the construct that kept it out.
    unsupported: dict[str, Unsupported]
    #: ``total`` properties taken: property name -> the function whose definition must be accepted.
    totals: dict[str, str]
    #: Lines (inclusive) holding Eutaxy's own definitions: an error there is an engine gap.
    definitions: tuple[int, int]
    #: Function name -> (first, last) line of its definition.
    function_lines: dict[str, tuple[int, int]]
    #: Lines (inclusive) holding the supplied lemmas, when a proof file gave any.
    lemmas_lines: Optional[tuple[int, int]] = None


#: The one tactic script every theorem gets (docs/specs.md says why each step is where it is).
#: ``{bools}`` cases the Bool binders, ``{defs}`` names the module's definitions to unfold.
TACTIC_SCRIPT = (
    "  intro {binders}\n"
    "  all_goals try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true', decide_eq_true_eq,\n"
    "    decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *\n"
    "{bools}"
    "  all_goals try simp only [{defs}] at *\n"
    "  all_goals (repeat' split) <;> (try simp only [Bool.and_eq_true, Bool.or_eq_true, Bool.not_eq_true',\n"
    "    decide_eq_true_eq, decide_eq_false_iff_not, Bool.not_eq_false', bne_iff_ne, beq_iff_eq, ne_eq] at *)\n"
    "  all_goals omega\n"
)

HEADER = "-- Lean 4 emitted by Eutaxy's prover_lean from {spec} (module {module}). Do not edit: it is written anew.\n"


def emit_module(module: SpecModule, supplied: Optional[Any] = None) -> Emission:
    """The module's Lean file: records, definitions, then one statement and theorem per property.

    ``supplied`` (an :class:`eutaxy.prover_lean.proofs.ProofFile`) replaces the tactic
    script of the properties it proves; its lemmas come after every statement, so a
    supplied proof cannot change what it proves.
    """
    emitter = Emitter(module)
    statements: dict[str, tuple[list[tuple[str, LType]], str]] = {}
    unsupported: dict[str, Unsupported] = {}
    totals: dict[str, str] = {}
    reached: dict[str, list[str]] = {}
    writes = module.global_writes
    for prop in module.properties:
        try:
            if writes:
                # The engine models the built-ins as the standard ones: a write to one proves nothing.
                raise Unsupported(
                    "an assignment to a built-in", writes[0].line,
                    f"{writes[0].file} writes {writes[0].target} ({writes[0].text}): "
                    f"{constructs.why_not('an assignment to a built-in')}", file=writes[0].file)
            fn = module.body(prop.ref, prop.function)
            if fn is None:
                raise Unsupported.refused("outside the subset",
                                          f"the reader did not read the body of {prop.function}", prop.line)
            emitter.function(fn)
            defined = emitter.functions[emitter.key(fn)]
            if isinstance(defined, Unsupported):
                raise Unsupported(defined.construct, defined.line, defined.text, defined.where)
            if isinstance(prop, TotalProperty):
                _taken("total")
                totals[prop.name] = emitter.names[emitter.key(fn)]
                continue
            assert isinstance(prop, ForallProperty)
            _taken("forall")
            binders = emitter.binders(prop.binders, prop.line)
            scope = _Scope(binders=binders)
            ensures = emitter.expect(prop.ensures, scope, BOOL, "ensures")
            when = None if prop.when is None else emitter.expect(prop.when, scope, BOOL, "when")
            quantified = " ".join(f"({ident('v_', n)} : {emitter.type_text(t)})" for n, t in binders)
            claim = f"({ensures}) = true" if when is None else f"({when}) = true →\n    ({ensures}) = true"
            statements[prop.name] = (binders, f"∀ {quantified},\n    {claim}" if binders else claim)
            reached[prop.name] = [emitter.names[k] for k in _reached(module, prop) if k in emitter.names]
        except Unsupported as refused:
            if not refused.line:
                refused.line = prop.line
            unsupported[prop.name] = refused

    lines: list[str] = []

    def add(text: str) -> tuple[int, int]:
        first = len(lines) + 1
        lines.extend(text.rstrip("\n").split("\n"))
        return first, len(lines)

    spec_name = Path(module.spec).name
    module_name = Path(module.module).name if module.module else "?"
    add(HEADER.format(spec=spec_name, module=module_name))
    defs_first = len(lines) + 1
    for name, record in emitter.records.items():
        fields = "".join(f"\n  {ident('x_', f.name)} : {emitter.type_text(emitter.ltype(f.type))}"
                         for f in record.fields)
        add(f"structure {ident('R_', name)} where{fields}\n")
        add("")
    function_lines = {}
    for key in emitter.order:
        function_lines[emitter.display[key]] = add(str(emitter.functions[key]))
        add("")
    refused_functions = [(emitter.display[k], r) for k, r in emitter.functions.items() if isinstance(r, Unsupported)]
    for name, refusal in refused_functions:
        add(f"-- {name} is not emitted: {refusal.describe()}")
    if refused_functions:
        add("")
    for prop in module.properties:
        if prop.name in statements:
            add(f"def {ident('s_', prop.name)} : Prop :=\n  {statements[prop.name][1]}\n")
            add("")
    defs_last = len(lines)
    lemmas_lines = None
    if supplied is not None and supplied.lemmas.strip():
        add("-- Lemmas supplied in " + supplied.name)
        lemmas_lines = add(supplied.lemmas)
        add("")
    theorems: dict[str, Theorem] = {}
    for prop in module.properties:
        if prop.name in unsupported:
            add(f"-- {prop.name} is not emitted: {unsupported[prop.name].describe()}")
            continue
        if prop.name in totals:
            add(f"-- {prop.name}: total({prop.function}) holds when Lean accepts {totals[prop.name]}")
            continue
        binders, statement = statements[prop.name]
        tactics = None if supplied is None else supplied.proofs.get(prop.name)
        if tactics is None:
            bools = "".join(f"  all_goals cases {ident('v_', n)}\n" for n, t in binders if t == BOOL)
            defs = ", ".join(reached[prop.name]) or "id"
            body = TACTIC_SCRIPT.format(binders=" ".join(ident("v_", n) for n, _ in binders) or "",
                                        bools=bools, defs=defs)
            if not binders:
                body = body.replace("  intro \n", "")
        else:
            body = "".join(f"  {line}\n" if line.strip() else "\n" for line in tactics.split("\n"))
        first, _ = add(f"theorem {ident('t_', prop.name)} : {ident('s_', prop.name)} := by\n"
                       f"  unfold {ident('s_', prop.name)}\n{body}")
        _, last = first, len(lines)
        check_line, _ = add(f"#check @{ident('t_', prop.name)}")
        axioms_line, _ = add(f"#print axioms {ident('t_', prop.name)}")
        add("")
        theorems[prop.name] = Theorem(property=prop.name, statement=statement, first_line=first, last_line=last,
                                      check_line=check_line, axioms_line=axioms_line,
                                      proof="script" if tactics is None else "supplied", tactics_line=first + 2)
    return Emission(text="\n".join(lines).rstrip("\n") + "\n", theorems=theorems, unsupported=unsupported,
                    totals=totals, definitions=(defs_first, defs_last), function_lines=function_lines,
                    lemmas_lines=lemmas_lines)


def _reached(module: SpecModule, prop: ForallProperty) -> list[str]:
    """The functions the claim reaches, transitively, by declaration (as :meth:`Emitter.key`), first met first."""
    order: list[str] = []
    pending: list[Any] = [t for t in (prop.when, prop.ensures) if t is not None]
    while pending and len(order) < FUNCTIONS_MAX:
        tree = pending.pop(0)
        stack = [tree]
        while stack:
            e = stack.pop(0)
            if isinstance(e, Call) and e.target == "module":
                fn = module.body(e.ref, e.callee)
                if fn is not None and (fn.id or fn.name) not in order:
                    order.append(fn.id or fn.name)
                    pending.append(fn.body)
            stack.extend(children(e))
    return order
