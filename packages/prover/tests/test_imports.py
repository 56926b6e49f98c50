"""Modules load as the compiler sees them: one esbuild build of the spec file, and the reader agreeing on every import.

fixtures/imports holds a module tree with each import form: a directory import
(``./types`` for ``types/index.ts``), ``.js`` for ``.ts``, an extensionless
import, an explicit ``.ts`` import, a tsconfig ``paths`` alias and a type-only
import, over an enum, a namespace and a class with parameter properties (which
Node's type stripping refuses).
"""

from eutaxy.prover.evaluator import Evaluator
from eutaxy.prover.reader import read_spec
from eutaxy.prover.report import disagreements, run_report
from eutaxy.spec import SpecModule

from prover_support import FIXTURES

ROOT = FIXTURES / "imports"
FILES = sorted(str(ROOT / f) for f in ("lib/rounding.ts", "money.ts", "types/index.ts", "util/clamp.ts"))


def test_every_import_form_loads_and_both_sides_resolve_the_same_files(toolchain):
    """The reader's program and the evaluator's bundle hold exactly the module tree's files, and the property runs."""
    read = read_spec(ROOT / "money.props.ts", toolchain)
    assert isinstance(read, SpecModule) and [] == list(read.diagnostics)
    assert FILES == list(read.sources)
    with Evaluator(ROOT / "money.props.ts", toolchain) as evaluator:
        assert FILES == evaluator.imports
        assert {"roundsToTens": "forall"} == evaluator.properties
    assert [] == disagreements(read, evaluator.imports)
    report = run_report(ROOT, "imports", toolchain=toolchain)
    module = report["modules"][0]
    assert not module.get("error") and [] == module["diagnostics"]
    assert "tested" == module["properties"][0]["kind"]


def test_a_file_the_compiler_did_not_resolve_is_a_disagreement(toolchain):
    """A bundled file outside the compiler's program is named: the two sides would check different code."""
    read = SpecModule(spec=str(ROOT / "money.props.ts"), module=None, properties=(), sources=tuple(FILES[:1]))
    assert [f"the evaluator imported {FILES[1]}, which the compiler resolved no import of the spec file to"] == \
        disagreements(read, FILES[:2])
