"""SpecIR to Z3: a property's claim, over the bodies the reader read, as one query.

The models (docs/specs.md, "The SMT engine"):

- number is the IEEE double (Z3's floating-point theory, rounding to nearest
  even as JavaScript does), so NaN, the infinities, -0 and the integers past
  2^53 are in every number binder's domain; ``===`` is IEEE equality (NaN is
  not equal to itself, -0 equals 0). A string's or an array's ``length`` is an
  exact integer, turned into a double where it meets one.
- string is a sequence of 16-bit code units (Z3's strings under the ``bmp``
  encoding), so length, indexing and ``<`` are JavaScript's.
- a record is a datatype with one constructor; a tagged union a datatype with
  one constructor per member holding that member's record (so a record keeps
  one sort in every union it belongs to); a nullable type an option datatype
  with two nones, null and undefined; an array a sequence of its element.

Every translated expression is a :class:`Val` (its type and its Z3 term) with
a definedness condition: false where the JavaScript would read past a string's
or an array's end, or use a null the compiler let through. The query asks for
an input where ``when`` holds (or is not defined) and ``ensures`` is false or
not defined, so an undefined read can only make a claim fail, never hold.
Anything the engine does not take raises :class:`Unsupported` with the
construct and the line.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional, Sequence

import attrs

from eutaxy.prover.engine import ConstructUnsupported
from eutaxy.spec import (ArrayType, Binary, Every, BinderRef, BooleanType, Call, Conditional, FieldRead,
                         ForallProperty, FunctionDef, FunctionRef, IndexRead, Let, Literal, LiteralType,
                         LiteralUnionType, Local, NullableType, NumberType, Outside, RecordLiteral,
                         RecordType, RegexTest, SpecModule, SpecType, StringType, TaggedUnionType, Unary)

#: Module functions inlined into one query at most (a bound on the walk; recursion is refused anyway).
CALL_DEPTH_MAX = 16

NUM, INT, BOOL, STR, NULL, UNDEF = ("num",), ("int",), ("bool",), ("str",), ("null",), ("undef",)


class Unsupported(ConstructUnsupported):
    """A construct the engine does not take: what it is, its line (0 when the tree has none) and its text."""


@attrs.frozen
class Val:
    """A translated value: its type (a tuple such as ``("num",)`` or ``("rec", key)``) and its Z3 term."""

    t: tuple
    e: Any
    #: The number, when the value is a number literal (so an exact integer meets it as an integer).
    literal: Optional[float] = None


class Encoder:
    """One query's translation, in its own Z3 context (so a query never depends on the ones before it)."""

    def __init__(self, z3, module: SpecModule) -> None:
        self.z3 = z3
        self.ctx = z3.Context()
        self.module = module
        self.F = z3.Float64(self.ctx)
        self.RNE = z3.RNE(self.ctx)
        self.true = z3.BoolVal(True, self.ctx)
        self.false = z3.BoolVal(False, self.ctx)
        self._records: dict[str, dict] = {}   # key -> {"type", "sort", "ctor", "fields": {name: (desc, accessor)}}
        self._unions: dict[str, dict] = {}    # key -> {"type", "sort", "members": [(record key, ctor, tester, accessor)]}
        self._options: dict[tuple, dict] = {}
        self._calls: list[str] = []
        self.uses_arrays = False

    # ---- types ----------------------------------------------------------------------

    def desc(self, t: SpecType, line: int = 0) -> tuple:
        """The engine's type for a SpecType, declaring the datatypes it needs."""
        if isinstance(t, NumberType):
            return NUM
        if isinstance(t, BooleanType):
            return BOOL
        if isinstance(t, StringType):
            return STR
        if isinstance(t, LiteralType):
            return self._literal_desc([t.value], t.name, line)
        if isinstance(t, LiteralUnionType):
            return self._literal_desc(list(t.values), t.name, line)
        if isinstance(t, NullableType):
            inner = self.desc(t.inner, line)
            if inner in (NULL, UNDEF) or inner[0] == "opt":
                raise Unsupported(f"type {t.name}", line, "a nullable of a nullable")
            self._option(inner)
            return ("opt", inner)
        if isinstance(t, RecordType):
            return ("rec", self._record(t, line))
        if isinstance(t, TaggedUnionType):
            return ("union", self._union(t, line))
        if isinstance(t, ArrayType):
            inner = self.desc(t.element, line)
            self.uses_arrays = True
            return ("arr", inner)
        raise Unsupported(f"type {getattr(t, 'name', '') or t.KIND}", line,
                          getattr(t, "reason", "") or f"{t.KIND} is not taken by the smt engine")

    def _literal_desc(self, values: list, name: str, line: int) -> tuple:
        if all(isinstance(v, str) for v in values):
            return STR
        if all(isinstance(v, bool) for v in values):
            return BOOL
        if all(_is_number_literal(v) for v in values):
            return NUM
        if values == [None]:
            return NULL
        if values == [{"$": "undefined"}]:
            return UNDEF
        raise Unsupported(f"type {name}", line, "a union of literals of different types")

    def sort(self, d: tuple):
        z3 = self.z3
        kind = d[0]
        if d == NUM:
            return self.F
        if d == INT:
            return z3.IntSort(self.ctx)
        if d == BOOL:
            return z3.BoolSort(self.ctx)
        if d == STR:
            return z3.StringSort(self.ctx)
        if kind == "rec":
            return self._records[d[1]]["sort"]
        if kind == "union":
            return self._unions[d[1]]["sort"]
        if kind == "opt":
            return self._option(d[1])["sort"]
        if kind == "arr":
            return z3.SeqSort(self.sort(d[1]))
        raise Unsupported(f"a value of type {kind}")

    def _record(self, t: RecordType, line: int) -> str:
        key = _type_key(t)
        if key in self._records:
            return key
        fields = []
        for f in t.fields:
            if f.optional:
                raise Unsupported(f"type {t.name}", line, f"optional field {f.name}")
            fields.append((f.name, self.desc(f.type, line)))
        z3 = self.z3
        dt = z3.Datatype(f"R{len(self._records)}", self.ctx)
        dt.declare(f"mk_R{len(self._records)}", *[(f"R{len(self._records)}_{i}", self.sort(d))
                                                  for i, (_, d) in enumerate(fields)])
        sort = dt.create()
        ctor = sort.constructor(0)
        self._records[key] = {"type": t, "sort": sort, "ctor": ctor,
                              "fields": {n: (d, sort.accessor(0, i)) for i, (n, d) in enumerate(fields)},
                              "order": [n for n, _ in fields]}
        return key

    def _union(self, t: TaggedUnionType, line: int) -> str:
        key = _type_key(t)
        if key in self._unions:
            return key
        members = [self._record(v.record, line) for v in t.variants]
        z3 = self.z3
        n = len(self._unions)
        dt = z3.Datatype(f"U{n}", self.ctx)
        for i, m in enumerate(members):
            dt.declare(f"U{n}_mk{i}", (f"U{n}_val{i}", self._records[m]["sort"]))
        sort = dt.create()
        self._unions[key] = {"type": t, "sort": sort, "tags": [v.tag for v in t.variants],
                             "members": [(m, sort.constructor(i), sort.recognizer(i), sort.accessor(i, 0))
                                         for i, m in enumerate(members)]}
        return key

    def _option(self, inner: tuple) -> dict:
        if inner in self._options:
            return self._options[inner]
        z3 = self.z3
        n = len(self._options)
        dt = z3.Datatype(f"O{n}", self.ctx)
        dt.declare(f"O{n}_null")
        dt.declare(f"O{n}_undef")
        dt.declare(f"O{n}_some", (f"O{n}_val", self.sort(inner)))
        sort = dt.create()
        option = {"sort": sort, "null": sort.constructor(0)(), "undef": sort.constructor(1)(),
                  "some": sort.constructor(2), "is_null": sort.recognizer(0), "is_undef": sort.recognizer(1),
                  "is_some": sort.recognizer(2), "value": sort.accessor(2, 0)}
        self._options[inner] = option
        return option

    # ---- binders ----------------------------------------------------------------------

    def binder(self, name: str, t: SpecType, index: int) -> tuple[Val, Any]:
        """A fresh constant for a binder of type ``t`` and the constraint keeping it in the type's domain."""
        d = self.desc(t)
        e = self.z3.Const(f"b{index}_{name}", self.sort(d))
        return Val(d, e), self.domain(t, d, e)

    def domain(self, t: SpecType, d: tuple, e) -> Any:
        """What the type admits beyond its sort: literal values, null or undefined only where declared."""
        z3 = self.z3
        if isinstance(t, (LiteralType, LiteralUnionType)):
            values = [t.value] if isinstance(t, LiteralType) else list(t.values)
            if d in (NULL, UNDEF):
                return self.true
            return z3.Or(*[self._eq(Val(d, e), self.literal(v)) for v in values])
        if isinstance(t, NullableType):
            option = self._option(d[1])
            parts = []
            if not t.null:
                parts.append(z3.Not(option["is_null"](e)))
            if not t.undefined:
                parts.append(z3.Not(option["is_undef"](e)))
            parts.append(z3.Implies(option["is_some"](e), self.domain(t.inner, d[1], option["value"](e))))
            return z3.And(*parts)
        if isinstance(t, RecordType):
            record = self._records[d[1]]
            return z3.And(self.true, *[self.domain(f.type, record["fields"][f.name][0], record["fields"][f.name][1](e))
                                       for f in t.fields])
        if isinstance(t, TaggedUnionType):
            union = self._unions[d[1]]
            return z3.And(self.true, *[z3.Implies(tester(e), self.domain(v.record, ("rec", m), acc(e)))
                                       for v, (m, _, tester, acc) in zip(t.variants, union["members"])])
        return self.true

    # ---- values -----------------------------------------------------------------------

    def literal(self, value: Any, line: int = 0) -> Val:
        z3 = self.z3
        if isinstance(value, bool):
            return Val(BOOL, z3.BoolVal(value, self.ctx))
        if value is None:
            return Val(NULL, None)
        if isinstance(value, str):
            return Val(STR, self.string(value))
        if _is_number_literal(value):
            x = _number_of(value)
            return Val(NUM, self.double(x), literal=x)
        if isinstance(value, dict) and value.get("$") == "undefined":
            return Val(UNDEF, None)
        raise Unsupported("Literal", line, json.dumps(value)[:60])

    def double(self, x: float):
        z3 = self.z3
        if math.isnan(x):
            return z3.fpNaN(self.F)
        if math.isinf(x):
            return z3.fpPlusInfinity(self.F) if x > 0 else z3.fpMinusInfinity(self.F)
        if x == 0:
            return z3.fpMinusZero(self.F) if math.copysign(1.0, x) < 0 else z3.fpPlusZero(self.F)
        return z3.FPVal(float(x), None, self.F, self.ctx)

    def string(self, s: str):
        """A string literal as its UTF-16 code units (escaped, so no unit is lost to an encoding)."""
        units = s.encode("utf-16-le", "surrogatepass")
        text = "".join(chr(u) if 32 <= u < 127 and u != 0x5C else "\\u{%x}" % u
                       for u in (int.from_bytes(units[i:i + 2], "little") for i in range(0, len(units), 2)))
        return self.z3.StringVal(text, self.ctx)

    def as_int(self, v: Val) -> Optional[Any]:
        """An exact integer's term for ``v``: itself, or a literal integer below 2^53 (so lengths stay integers)."""
        if v.t == INT:
            return v.e
        x = v.literal
        if x is not None and math.isfinite(x) and x == int(x) and abs(x) < 2**53 and not (x == 0 and math.copysign(1, x) < 0):
            return self.z3.IntVal(int(x), self.ctx)
        return None

    def to_num(self, v: Val):
        """A number value as a double (an exact integer such as a length is converted; it is below 2^53)."""
        if v.t == NUM:
            return v.e
        if v.t == INT:
            return self.z3.fpToFP(self.RNE, self.z3.ToReal(v.e), self.F, ctx=self.ctx)
        raise Unsupported("arithmetic on a non-number", 0, _show(v.t))

    # ---- the query --------------------------------------------------------------------

    def claim(self, prop: ForallProperty) -> tuple[list[Val], Any]:
        """The binders and the formula whose models are counterexample candidates."""
        z3 = self.z3
        binders, domains = [], []
        for i, b in enumerate(prop.binders):
            if b.optional:
                raise Unsupported(f"optional parameter {b.name}", prop.line)
            v, dom = self.binder(b.name, b.type, i)
            binders.append(v)
            domains.append(dom)
        env = _Env(binders=tuple(binders), locals={})
        ensures, ensures_ok = self.expr(prop.ensures, env, BOOL)
        goal = z3.Not(z3.And(ensures_ok, ensures.e))
        if prop.when is not None:
            when, when_ok = self.expr(prop.when, env, BOOL)
            # Where `when` is not defined the JavaScript may still hold it: a candidate, replayed.
            goal = z3.And(z3.Or(z3.Not(when_ok), when.e), goal)
        return binders, z3.And(*domains, goal)

    # ---- expressions ------------------------------------------------------------------

    def expr(self, e, env: "_Env", expected: Optional[tuple] = None) -> tuple[Val, Any]:
        """``(value, defined)`` for ``e``; with ``expected`` the value is read as that type."""
        if isinstance(e, Conditional):
            return self.conditional(e, env, expected)
        if isinstance(e, Let):
            value, ok = self.expr(e.value, env)
            inner = _Env(binders=env.binders, locals={**env.locals, e.name: value})
            body, body_ok = self.expr(e.body, inner, expected)
            return body, self.z3.And(ok, body_ok)
        v, ok = self._expr(e, env)
        if expected is None:
            return v, ok
        v, coerce_ok = self.coerce(v, expected)
        return v, self.z3.And(ok, coerce_ok)

    def _expr(self, e, env: "_Env") -> tuple[Val, Any]:
        if isinstance(e, Literal):
            return self.literal(e.value), self.true
        if isinstance(e, BinderRef):
            if e.index >= len(env.binders):
                raise Unsupported(f"parameter {e.name} with no argument")
            return env.binders[e.index], self.true
        if isinstance(e, Local):
            return env.locals[e.name], self.true
        if isinstance(e, Unary):
            return self.unary(e, env)
        if isinstance(e, Binary):
            return self.binary(e, env)
        if isinstance(e, FieldRead):
            return self.field(e, env)
        if isinstance(e, IndexRead):
            return self.index(e, env)
        if isinstance(e, Call):
            return self.call(e, env)
        if isinstance(e, RecordLiteral):
            return self.record(e, env)
        if isinstance(e, Outside):
            raise Unsupported(e.construct, e.line, e.text)
        if isinstance(e, FunctionRef):
            raise Unsupported("a function used as a value", 0, e.name)
        if isinstance(e, RegexTest):
            raise Unsupported("a regular expression test", 0, f"/{e.pattern}/{e.flags}")
        if isinstance(e, Every):
            raise Unsupported("every", 0, "a claim over each element needs a quantifier the engine does not emit yet")
        raise Unsupported(f"expression {getattr(e, 'KIND', type(e).__name__)}")

    def conditional(self, e: Conditional, env: "_Env", expected: Optional[tuple]) -> tuple[Val, Any]:
        z3 = self.z3
        test, test_ok = self.expr(e.test, env)
        c = self.truthy(test)
        then, then_ok = self.expr(e.then, env, expected)
        other, other_ok = self.expr(e.otherwise, env, expected)
        if expected is None:
            t = self.unify(then.t, other.t)
            then, ok_a = self.coerce(then, t)
            other, ok_b = self.coerce(other, t)
            then_ok, other_ok = z3.And(then_ok, ok_a), z3.And(other_ok, ok_b)
        return Val(then.t, z3.If(c, then.e, other.e)), z3.And(test_ok, z3.If(c, then_ok, other_ok))

    def unary(self, e: Unary, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        v, ok = self.expr(e.operand, env)
        if e.op == "!":
            return Val(BOOL, z3.Not(self.truthy(v))), ok
        v, unwrap_ok = self.unwrap(v)
        if v.t not in (NUM, INT):
            raise Unsupported(f"unary {e.op} on a non-number", 0, _show(v.t))
        if e.op == "-":
            return Val(NUM, z3.fpNeg(self.to_num(v), ctx=self.ctx)), z3.And(ok, unwrap_ok)
        return v, z3.And(ok, unwrap_ok)

    def binary(self, e: Binary, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        op = e.op
        left, left_ok = self.expr(e.left, env)
        right, right_ok = self.expr(e.right, env)
        if op in ("&&", "||"):
            if left.t != BOOL or right.t != BOOL:
                raise Unsupported(f"{op} on non-booleans", 0, f"{_show(left.t)} {op} {_show(right.t)}")
            if op == "&&":
                return Val(BOOL, z3.And(left.e, right.e)), z3.And(left_ok, z3.Or(z3.Not(left.e), right_ok))
            return Val(BOOL, z3.Or(left.e, right.e)), z3.And(left_ok, z3.Or(left.e, right_ok))
        if op == "??":
            if left.t in (NULL, UNDEF):
                # Always nullish (a module constant null, say): the right side, whatever the left's declared type.
                return right, z3.And(left_ok, right_ok)
            if left.t[0] != "opt":
                return left, left_ok
            option = self._option(left.t[1])
            inner = Val(left.t[1], option["value"](left.e))
            t = self.unify(inner.t, right.t)
            a, ok_a = self.coerce(inner, t)
            b, ok_b = self.coerce(right, t)
            present = option["is_some"](left.e)
            return Val(t, z3.If(present, a.e, b.e)), z3.And(left_ok, z3.If(present, ok_a, z3.And(right_ok, ok_b)))
        ok = z3.And(left_ok, right_ok)
        if op in ("===", "!=="):
            eq = self.strict_equals(left, right)
            return Val(BOOL, eq if op == "===" else z3.Not(eq)), ok
        if op in ("==", "!="):
            if NULL in (left.t, right.t) or UNDEF in (left.t, right.t):
                other = right if left.t in (NULL, UNDEF) else left
                eq = self.nullish(other)
                return Val(BOOL, eq if op == "==" else z3.Not(eq)), ok
            raise Unsupported(f"loose equality {op}", 0, "write === or !==")
        left, ok_l = self.unwrap(left)
        right, ok_r = self.unwrap(right)
        ok = z3.And(ok, ok_l, ok_r)
        if op in ("<", "<=", ">", ">="):
            return Val(BOOL, self.compare(op, left, right)), ok
        if op == "+" and left.t == STR and right.t == STR:
            return Val(STR, z3.Concat(left.e, right.e)), ok
        if op in ("+", "-") and INT in (left.t, right.t):
            a, b = self.as_int(left), self.as_int(right)
            if a is not None and b is not None and (left.t == right.t == INT or _small(left) or _small(right)):
                # A length plus or minus a small integer stays exact (lengths are far below 2^53).
                return Val(INT, a + b if op == "+" else a - b), ok
        if op == "%" and left.t in (NUM, INT) and right.t in (NUM, INT):
            return Val(NUM, self._fmod(self.to_num(left), self.to_num(right))), ok
        if op in ("+", "-", "*", "/") and left.t in (NUM, INT) and right.t in (NUM, INT):
            f = {"+": z3.fpAdd, "-": z3.fpSub, "*": z3.fpMul, "/": z3.fpDiv}[op]
            return Val(NUM, f(self.RNE, self.to_num(left), self.to_num(right), ctx=self.ctx)), ok
        raise Unsupported(f"operator {op}", 0, f"{_show(left.t)} {op} {_show(right.t)}")

    def compare(self, op: str, left: Val, right: Val):
        z3 = self.z3
        if left.t == STR and right.t == STR:
            # Z3's string order under the bmp encoding is JavaScript's: code unit by code unit.
            return {"<": lambda: left.e < right.e, "<=": lambda: left.e <= right.e,
                    ">": lambda: right.e < left.e, ">=": lambda: right.e <= left.e}[op]()
        if left.t in (NUM, INT) and right.t in (NUM, INT):
            a, b = self.as_int(left), self.as_int(right)
            if INT in (left.t, right.t) and a is not None and b is not None:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
            a, b = self.to_num(left), self.to_num(right)
            f = {"<": z3.fpLT, "<=": z3.fpLEQ, ">": z3.fpGT, ">=": z3.fpGEQ}[op]
            return f(a, b, ctx=self.ctx)
        raise Unsupported(f"comparison {op}", 0, f"{_show(left.t)} {op} {_show(right.t)}")

    def strict_equals(self, a: Val, b: Val):
        z3 = self.z3
        if a.t in (NULL, UNDEF) or b.t in (NULL, UNDEF):
            if a.t in (NULL, UNDEF) and b.t in (NULL, UNDEF):
                return z3.BoolVal(a.t == b.t, self.ctx)
            other, which = (b, a.t) if a.t in (NULL, UNDEF) else (a, b.t)
            if other.t[0] != "opt":
                return self.false
            option = self._option(other.t[1])
            return option["is_null" if which == NULL else "is_undef"](other.e)
        if a.t[0] == "opt" and b.t[0] == "opt":
            if a.t != b.t:
                raise Unsupported("=== between different nullable types", 0, f"{_show(a.t)} === {_show(b.t)}")
            o = self._option(a.t[1])
            return z3.Or(z3.And(o["is_null"](a.e), o["is_null"](b.e)), z3.And(o["is_undef"](a.e), o["is_undef"](b.e)),
                         z3.And(o["is_some"](a.e), o["is_some"](b.e),
                                self._eq(Val(a.t[1], o["value"](a.e)), Val(b.t[1], o["value"](b.e)))))
        if a.t[0] == "opt" or b.t[0] == "opt":
            opt, other = (a, b) if a.t[0] == "opt" else (b, a)
            o = self._option(opt.t[1])
            return z3.And(o["is_some"](opt.e), self._eq(Val(opt.t[1], o["value"](opt.e)), other))
        return self._eq(a, b)

    def _eq(self, a: Val, b: Val):
        """``===`` on two present values."""
        z3 = self.z3
        if a.t in (NUM, INT) and b.t in (NUM, INT):
            x, y = self.as_int(a), self.as_int(b)
            if INT in (a.t, b.t) and x is not None and y is not None:
                return x == y
            return z3.fpEQ(self.to_num(a), self.to_num(b), ctx=self.ctx)
        if a.t == b.t and a.t in (STR, BOOL):
            return a.e == b.e
        if a.t[0] in ("rec", "union", "arr") or b.t[0] in ("rec", "union", "arr"):
            raise Unsupported("=== on records or arrays", 0, "it compares references, which the engine does not model")
        if {a.t, b.t} <= {NUM, INT, STR, BOOL}:
            return self.false  # different primitive types are never ===
        raise Unsupported("===", 0, f"{_show(a.t)} === {_show(b.t)}")

    def nullish(self, v: Val):
        if v.t in (NULL, UNDEF):
            return self.true
        if v.t[0] != "opt":
            return self.false
        o = self._option(v.t[1])
        return self.z3.Not(o["is_some"](v.e))

    def truthy(self, v: Val):
        z3 = self.z3
        if v.t == BOOL:
            return v.e
        if v.t == NUM:
            return z3.Not(z3.Or(z3.fpIsZero(v.e, ctx=self.ctx), z3.fpIsNaN(v.e, ctx=self.ctx)))
        if v.t == INT:
            return v.e != 0
        if v.t == STR:
            return z3.Length(v.e) > 0
        if v.t in (NULL, UNDEF):
            return self.false
        if v.t[0] in ("rec", "union", "arr"):
            return self.true
        if v.t[0] == "opt" and v.t[1][0] in ("rec", "union", "arr"):
            return self._option(v.t[1])["is_some"](v.e)
        raise Unsupported("a nullable primitive as a condition", 0, "test it against null explicitly")

    def unwrap(self, v: Val) -> tuple[Val, Any]:
        """A nullable's value where the compiler let it be used as one: defined only where it is present."""
        if v.t[0] != "opt":
            return v, self.true
        o = self._option(v.t[1])
        return Val(v.t[1], o["value"](v.e)), o["is_some"](v.e)

    # ---- types meeting ----------------------------------------------------------------

    def unify(self, a: tuple, b: tuple) -> tuple:
        """The type two branches meet at."""
        if a == b:
            return a
        if {a, b} == {NUM, INT}:
            return NUM
        for x, y in ((a, b), (b, a)):
            if x in (NULL, UNDEF):
                if y in (NULL, UNDEF):
                    raise Unsupported("a value that is null or undefined")
                if y[0] == "opt":
                    return y
                self._option(y)
                return ("opt", y)
            if x[0] == "opt" and (y == x[1] or self._member(y, x[1])):
                return x
            if x[0] == "union" and y[0] == "rec" and self._member(y, x):
                return x
            if x[0] == "opt" and y[0] == "opt" and x[1][0] == "union" and self._member(y[1], x[1]):
                return x
        raise Unsupported("branches of different types", 0, f"{_show(a)} and {_show(b)}")

    def _member(self, rec: tuple, union: tuple) -> bool:
        return rec[0] == "rec" and union[0] == "union" and any(m == rec[1] for m, *_ in self._unions[union[1]]["members"])

    def coerce(self, v: Val, t: tuple) -> tuple[Val, Any]:
        """``v`` read as type ``t``: wrapped into a nullable or a union, or unwrapped where narrowed."""
        z3 = self.z3
        if v.t == t:
            return v, self.true
        if t == NUM and v.t == INT:
            return Val(NUM, self.to_num(v)), self.true
        if t[0] == "opt":
            o = self._option(t[1])
            if v.t == NULL:
                return Val(t, o["null"]), self.true
            if v.t == UNDEF:
                return Val(t, o["undef"]), self.true
            if v.t[0] != "opt":
                inner, ok = self.coerce(v, t[1])
                return Val(t, o["some"](inner.e)), ok
        if v.t[0] == "opt":
            inner, ok = self.unwrap(v)
            inner, ok2 = self.coerce(inner, t)
            return inner, z3.And(ok, ok2)
        if t[0] == "union" and v.t[0] == "rec":
            for m, ctor, _, _ in self._unions[t[1]]["members"]:
                if m == v.t[1]:
                    return Val(t, ctor(v.e)), self.true
        if t[0] == "rec" and v.t[0] == "union":
            for m, _, tester, acc in self._unions[v.t[1]]["members"]:
                if m == t[1]:
                    return Val(t, acc(v.e)), tester(v.e)
        raise Unsupported("a value read as another type", 0, f"{_show(v.t)} as {_show(t)}")

    # ---- reads --------------------------------------------------------------------------

    def field(self, e: FieldRead, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        obj, ok = self.expr(e.object, env)
        obj, unwrap_ok = self.unwrap(obj)
        ok = z3.And(ok, unwrap_ok)
        if e.name == "length" and (obj.t == STR or obj.t[0] == "arr"):
            return Val(INT, z3.Length(obj.e)), ok
        if obj.t[0] == "rec":
            record = self._records[obj.t[1]]
            if e.name in record["fields"]:
                d, acc = record["fields"][e.name]
                return Val(d, acc(obj.e)), ok
        if obj.t[0] == "union":
            union = self._unions[obj.t[1]]
            having = [(m, tester, acc) for m, _, tester, acc in union["members"]
                      if e.name in self._records[m]["fields"]]
            types = {self._records[m]["fields"][e.name][0] for m, _, _ in having}
            if having and len(types) == 1:
                d = types.pop()
                value = None
                for m, tester, acc in reversed(having):
                    read = self._records[m]["fields"][e.name][1](acc(obj.e))
                    value = read if value is None else z3.If(tester(obj.e), read, value)
                # The compiler lets a field no member lacks be read anywhere, and others only where narrowed.
                present = z3.Or(*[tester(obj.e) for _, tester, _ in having])
                return Val(d, value), z3.And(ok, present)
        raise Unsupported(f"field read .{e.name}", 0, f"on {_show(obj.t)}")

    def index(self, e: IndexRead, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        obj, ok = self.expr(e.object, env)
        obj, unwrap_ok = self.unwrap(obj)
        i, i_ok = self.expr(e.index, env)
        i, i_unwrap = self.unwrap(i)
        ok = z3.And(ok, unwrap_ok, i_ok, i_unwrap)
        if obj.t != STR and obj.t[0] != "arr":
            raise Unsupported("index read", 0, f"on {_show(obj.t)}")
        if i.t == INT:
            position, whole = i.e, self.true
        elif i.t == NUM:
            whole = self.is_integer(i.e)
            position = z3.ToInt(z3.fpToReal(i.e, ctx=self.ctx))
        else:
            raise Unsupported("index read with a non-number index", 0, _show(i.t))
        inside = z3.And(whole, position >= 0, position < z3.Length(obj.e))
        element = STR if obj.t == STR else obj.t[1]
        if element[0] == "opt":
            raise Unsupported("index read on an array of a nullable type", 0, _show(obj.t))
        o = self._option(element)
        read = z3.SubString(obj.e, position, 1) if obj.t == STR else obj.e[position]
        # Past the end JavaScript reads undefined, whatever the declared element type says.
        return Val(("opt", element), z3.If(inside, o["some"](read), o["undef"])), ok

    def is_integer(self, x):
        z3 = self.z3
        return z3.And(z3.Not(z3.fpIsNaN(x, ctx=self.ctx)), z3.Not(z3.fpIsInf(x, ctx=self.ctx)),
                      z3.fpEQ(z3.fpRoundToIntegral(z3.RTZ(self.ctx), x, ctx=self.ctx), x, ctx=self.ctx))

    # ---- calls --------------------------------------------------------------------------

    def call(self, e: Call, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        args, oks = [], []
        for a in e.args:
            v, ok = self.expr(a, env)
            args.append(v)
            oks.append(ok)
        if e.target == "builtin":
            v, ok = self.builtin(e.callee, args)
            return v, z3.And(ok, *oks)
        fn = self.module.body(e.ref, e.callee)
        if fn is None:
            raise Unsupported("a call the reader did not read", 0, e.callee)
        return self.inline(fn, args, oks)

    def inline(self, fn: FunctionDef, args: Sequence[Val], oks: Sequence[Any]) -> tuple[Val, Any]:
        z3 = self.z3
        if (fn.id or fn.name) in self._calls:
            raise Unsupported("recursion", fn.line, f"{fn.name} calls itself")
        if len(self._calls) >= CALL_DEPTH_MAX:
            raise Unsupported("calls nested too deep", fn.line, fn.name)
        if len(args) != len(fn.params):
            raise Unsupported("a call with a different number of arguments", fn.line, fn.name)
        bound, bound_ok = [], list(oks)
        for p, a in zip(fn.params, args):
            v, ok = self.coerce(a, self.desc(p.type, fn.line))
            bound.append(v)
            bound_ok.append(ok)
        self._calls.append(fn.id or fn.name)
        try:
            value, ok = self.expr(fn.body, _Env(binders=tuple(bound), locals={}), self.desc(fn.returns, fn.line))
        except Unsupported as refused:
            if not refused.where:  # the innermost function it stands in, and its line when the node has none
                refused.where = fn.name
                refused.line = refused.line or fn.line
            raise
        finally:
            self._calls.pop()
        return value, z3.And(ok, *bound_ok)

    def builtin(self, name: str, args: list[Val]) -> tuple[Val, Any]:
        z3, ctx = self.z3, self.ctx
        unwrapped = [self.unwrap(a) for a in args]
        ok = z3.And(self.true, *[o for _, o in unwrapped])
        args = [a for a, _ in unwrapped]
        if any(a.t not in (NUM, INT) for a in args):
            raise Unsupported(f"{name} on a non-number")
        xs = [self.to_num(a) for a in args]
        nan = lambda x: z3.fpIsNaN(x, ctx=ctx)  # noqa: E731 - a one-line shorthand for the tests below
        if name in ("Number.isInteger", "Number.isFinite", "Number.isNaN", "Number.isSafeInteger") and len(xs) == 1:
            x = xs[0]
            if name == "Number.isNaN":
                return Val(BOOL, nan(x)), ok
            if name == "Number.isFinite":
                return Val(BOOL, z3.Not(z3.Or(nan(x), z3.fpIsInf(x, ctx=ctx)))), ok
            whole = self.is_integer(x)
            if name == "Number.isSafeInteger":
                limit = self.double(float(2**53 - 1))
                whole = z3.And(whole, z3.fpLEQ(z3.fpAbs(x, ctx=ctx), limit, ctx=ctx))
            return Val(BOOL, whole), ok
        rounding = {"Math.floor": z3.RTN, "Math.ceil": z3.RTP, "Math.trunc": z3.RTZ}
        if name in rounding and len(xs) == 1:
            return Val(NUM, z3.fpRoundToIntegral(rounding[name](ctx), xs[0], ctx=ctx)), ok
        if name == "Math.round" and len(xs) == 1:
            return Val(NUM, self._round(xs[0])), ok
        if name == "Math.abs" and len(xs) == 1:
            return Val(NUM, z3.fpAbs(xs[0], ctx=ctx)), ok
        if name == "Math.sign" and len(xs) == 1:
            x = xs[0]
            value = z3.If(z3.Or(nan(x), z3.fpIsZero(x, ctx=ctx)), x,
                          z3.If(z3.fpIsNegative(x, ctx=ctx), self.double(-1.0), self.double(1.0)))
            return Val(NUM, value), ok
        if name in ("Math.min", "Math.max"):
            # With no argument, Math.min is +Infinity and Math.max -Infinity (each operation's identity).
            value = self.double(math.inf if name == "Math.min" else -math.inf)
            for x in xs:
                value = self._min_max(name == "Math.min", value, x)
            return Val(NUM, value), ok
        raise Unsupported(f"builtin {name}", 0, f"with {len(xs)} arguments")

    def _fmod(self, x, y):
        """JavaScript's ``%`` (C's fmod, the sign of x) from IEEE's remainder (the nearest quotient).

        The two differ by one ``|y|`` where the remainder's sign is not x's; the fmod
        result is always representable, so that one addition is exact.
        """
        z3, ctx = self.z3, self.ctx
        r = z3.fpRem(x, y, ctx=ctx)
        toward = z3.If(z3.fpIsNegative(x, ctx=ctx), z3.fpNeg(z3.fpAbs(y, ctx=ctx), ctx=ctx), z3.fpAbs(y, ctx=ctx))
        flipped = z3.And(z3.Not(z3.fpIsZero(r, ctx=ctx)), z3.Not(z3.fpIsNaN(r, ctx=ctx)),
                         z3.fpIsNegative(r, ctx=ctx) != z3.fpIsNegative(x, ctx=ctx))
        return z3.If(flipped, z3.fpAdd(self.RNE, r, toward, ctx=ctx), r)

    def _round(self, x):
        """JavaScript's Math.round: halves go up, and what rounds to zero keeps the sign of x.

        Below 2^52 in magnitude ``x - floor(x)`` is exact, so the half is compared exactly;
        at or past it every double is an integer and is its own rounding.
        """
        z3, ctx = self.z3, self.ctx
        down = z3.fpRoundToIntegral(z3.RTN(ctx), x, ctx=ctx)
        up = z3.fpAdd(self.RNE, down, self.double(1.0), ctx=ctx)
        fraction = z3.fpSub(self.RNE, x, down, ctx=ctx)
        rounded = z3.If(z3.fpGEQ(fraction, self.double(0.5), ctx=ctx), up, down)
        signed = z3.If(z3.And(z3.fpIsZero(rounded, ctx=ctx), z3.fpIsNegative(x, ctx=ctx)), z3.fpMinusZero(self.F), rounded)
        whole = z3.Or(z3.fpIsNaN(x, ctx=ctx), z3.fpIsInf(x, ctx=ctx), z3.fpEQ(down, x, ctx=ctx))
        return z3.If(whole, x, signed)

    def _min_max(self, is_min: bool, a, b):
        """JavaScript's Math.min/max: NaN wins, and -0 is below 0."""
        z3, ctx = self.z3, self.ctx
        below = z3.fpLT(a, b, ctx=ctx) if is_min else z3.fpGT(a, b, ctx=ctx)
        above = z3.fpLT(b, a, ctx=ctx) if is_min else z3.fpGT(b, a, ctx=ctx)
        # Equal values: only the zeros differ, and min takes the negative one, max the positive.
        tie = z3.If(z3.fpIsNegative(a, ctx=ctx), a, b) if is_min else z3.If(z3.fpIsNegative(a, ctx=ctx), b, a)
        return z3.If(z3.fpIsNaN(a, ctx=ctx), a, z3.If(z3.fpIsNaN(b, ctx=ctx), b,
                                                       z3.If(below, a, z3.If(above, b, tie))))

    # ---- records ------------------------------------------------------------------------

    def record(self, e: RecordLiteral, env: "_Env") -> tuple[Val, Any]:
        z3 = self.z3
        t = e.type
        if isinstance(t, NullableType):
            t = t.inner
        given = dict(e.fields)
        union = None
        if isinstance(t, TaggedUnionType):
            tag = given.get(t.tag)
            if not isinstance(tag, Literal):
                raise Unsupported("a union member built with a tag that is not a literal", 0, t.name)
            variant = next((v for v in t.variants if v.tag == tag.value), None)
            if variant is None:
                raise Unsupported("a record literal with a tag its union lacks", 0, json.dumps(tag.value))
            union = ("union", self._union(t, 0))
            t = variant.record
        if not isinstance(t, RecordType):
            raise Unsupported("a record literal of a type the engine does not take", 0, getattr(t, "name", ""))
        key = self._record(t, 0)
        record = self._records[key]
        values, oks = [], []
        for name in record["order"]:
            if name not in given:
                raise Unsupported("a record literal missing a field", 0, name)
            v, ok = self.expr(given[name], env, record["fields"][name][0])
            values.append(v.e)
            oks.append(ok)
        value = Val(("rec", key), record["ctor"](*values))
        if union is not None:
            # Built where its union is expected: a value of the union, so branches building two members meet.
            value, _ = self.coerce(value, union)
        return value, z3.And(self.true, *oks)


@attrs.frozen
class _Env:
    binders: tuple
    locals: dict


def _type_key(t) -> str:
    return json.dumps(t.to_data(), sort_keys=True)


def _small(v: Val) -> bool:
    return v.literal is not None and abs(v.literal) < 2**31


def _is_number_literal(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    return isinstance(v, dict) and v.get("$") == "number"


def _number_of(v: Any) -> float:
    if isinstance(v, dict):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}[v["v"]]
    return float(v)


def _show(t: tuple) -> str:
    names = {NUM: "number", INT: "number", BOOL: "boolean", STR: "string", NULL: "null", UNDEF: "undefined"}
    if t in names:
        return names[t]
    if t[0] == "opt":
        return f"{_show(t[1])} | null"
    if t[0] == "arr":
        return f"{_show(t[1])}[]"
    if t[0] in ("rec", "union"):
        return json.loads(t[1]).get("name") or t[0]
    return str(t)
