"""Every encoding rule held to JavaScript: core's ``vectors/encoding_rules.json``, through the reader and Z3, and in Node.

The rows are written into one TypeScript module (the constants at the top, one
function per row returning its expression) with a spec file naming each
function, and read by the real reader, so a row is encoded from the SpecIR a
user's module would give. Each row's body is inlined by the encoder with its
parameter ``_x`` fixed at 1 (as the Node side runs it), and Z3 is asked for its
value: there must be one, it must be the row's value (Node's, compared as
``Object.is`` does), and no other may be possible. A row the engine refuses
must say so (``"smt": "unsupported"``), and a row that says so must be refused.
``encoding_rules.test.mjs`` holds Node to the same rows.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

import eutaxy.core
from eutaxy.prover.reader import ReadError, read_specs
from eutaxy.prover_smt.encode import NUM, Encoder, Unsupported, Val
from eutaxy.prover_smt.model import value_of
from eutaxy.prover_smt.toolchain import load_z3
from eutaxy.spec import js_module_dir, outside_nodes
from eutaxy.spec.values import UNDEFINED, decode

RULES_PATH = Path(eutaxy.core.__file__).resolve().parent / "vectors" / "encoding_rules.json"
RULES = json.loads(RULES_PATH.read_text("utf-8"))
ROWS = RULES["rows"]
NODE_TEST = Path(__file__).resolve().parent / "encoding_rules.test.mjs"


#: Rows per module: the reader reads at most 64 functions of one module (bodies.mjs MAX_FUNCTIONS).
ROWS_PER_MODULE = 48


def _module_source(indices: range) -> str:
    lines = [f"const {c['name']}: {c['type']} = {c['init']};" for row in ROWS for c in row["consts"]]
    lines.append("")
    for index in indices:
        row = ROWS[index]
        lines.append(f"export function row{index}(_x: number): {row['type']} {{\n  return {row['expr']};\n}}")
    return "\n".join(lines) + "\n"


def _spec_source(stem: str, indices: range) -> str:
    names = ", ".join(f"row{index}" for index in indices)
    lines = ['import { forall } from "eutaxy/spec";', f'import {{ {names} }} from "./{stem}.ts";', ""]
    lines.extend(f"export const p{index} = forall(row{index}, {{ ensures: (_x) => true }});" for index in indices)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def rules_modules(toolchain, tmp_path_factory):
    """Row index to the read module holding its function (every module read by one reader process)."""
    folder = tmp_path_factory.mktemp("rules")
    chunks = [range(start, min(start + ROWS_PER_MODULE, len(ROWS))) for start in range(0, len(ROWS), ROWS_PER_MODULE)]
    specs = []
    for number, indices in enumerate(chunks):
        stem = f"rules{number}"
        (folder / f"{stem}.ts").write_text(_module_source(indices), encoding="utf-8")
        (folder / f"{stem}.props.ts").write_text(_spec_source(stem, indices), encoding="utf-8")
        specs.append(folder / f"{stem}.props.ts")
    modules = read_specs(specs, toolchain)
    by_row = {}
    for indices, module in zip(chunks, modules, strict=True):
        assert not isinstance(module, ReadError), module.message
        by_row.update({index: module for index in indices})
    return by_row


def _same(a, b) -> bool:
    """``Object.is`` on the spec ladder's Python values (-0 apart from 0, NaN equal to NaN)."""
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    if isinstance(a, bool) or isinstance(b, bool) or a is UNDEFINED or b is UNDEFINED or a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b


def _z3_value(module, index: int):
    """The row's value as the encoding gives it, and whether that value is the only one; or Unsupported."""
    z3 = load_z3()
    assert not isinstance(z3, str), z3
    fn = module.function(f"row{index}")
    assert fn is not None, f"the reader did not read row{index}"
    found = outside_nodes(fn.body)
    if found:
        raise Unsupported(found[0].construct, found[0].line, found[0].text)
    enc = Encoder(z3, module)
    x = z3.Const("x", enc.F)
    value, defined = enc.inline(fn, [Val(NUM, x)], [enc.true])
    solver = z3.Solver(ctx=enc.ctx)
    solver.add(x == enc.double(1.0), defined)
    assert z3.sat == solver.check(), "the row's value is not defined under the encoding"
    model = solver.model()
    got = value_of(enc, model, value)
    solver.add(value.e != model.eval(value.e, model_completion=True))
    return got, solver.check() == z3.unsat


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[row["expr"] for row in ROWS])
def test_each_row_has_javascripts_value_through_z3(rules_modules, index):
    """Z3's value for the row is Node's, and the only one; a refused row is marked so, and only such a row."""
    row = ROWS[index]
    try:
        got, only = _z3_value(rules_modules[index], index)
    except Unsupported as refused:
        assert "unsupported" == row.get("smt"), f"{row['expr']}: refused ({refused.describe()}), not marked so"
        return
    assert row.get("smt") is None, f"{row['expr']}: marked unsupported, but the engine took it (value {got!r})"
    want = decode(row["value"])
    assert _same(want, got), f"{row['expr']}: Node gives {want!r}, the encoding {got!r}"
    assert only, f"{row['expr']}: the encoding leaves the value open"


def test_the_constants_have_one_declaration_each():
    """Each constant is declared once in the file, so one module can hold every row."""
    names = [c["name"] for row in ROWS for c in row["consts"]]
    assert len(names) == len(set(names))


def test_node_gives_every_rows_value(toolchain):
    """node --test encoding_rules.test.mjs passes with the pinned Node: every row's value is Node's."""
    env = dict(os.environ, EUTAXY_ENCODING_RULES=str(RULES_PATH),
               EUTAXY_SPEC_VALUES=str(js_module_dir() / "values.mjs"))
    done = subprocess.run([str(toolchain.node), "--test", "--test-reporter=tap", str(NODE_TEST)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert 0 == done.returncode, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"# pass {len(ROWS) + 1}" in done.stdout, done.stdout[-2000:]
