"""Shared fixtures: the pinned Node toolchain, and evaluators over the fixture spec files.

Tests that need Node fail when ``EUTAXY_NODE_MODULES`` does not name the pinned toolchain.
"""

import pytest

from eutaxy.prover.evaluator import Evaluator

from prover_support import FIXTURES, toolchain as toolchain


@pytest.fixture(scope="session")
def fixture_reads(toolchain, tmp_path_factory):
    """One reader process for every fixture spec file (reading costs a compiler start, so share it).

    In order: fixtures/reader, fixtures/tested, a missing file, a spec whose
    claim does not match its function, and a project whose tsconfig maps an
    import alias.
    """
    from eutaxy.prover.reader import read_specs

    tmp = tmp_path_factory.mktemp("reader")
    (tmp / "d.ts").write_text("export function f(a: number): number { return a; }\n")
    (tmp / "d.props.ts").write_text(
        'import { forall } from "eutaxy/spec";\nimport { f } from "./d.ts";\n'
        "export const p = forall(f, { ensures: (a, b) => f(a) === b });\n")
    aliased = tmp / "aliased"
    (aliased / "core").mkdir(parents=True)
    (aliased / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "module": "esnext", "moduleResolution": "bundler", "types": [],'
        ' "paths": {"@core/*": ["./core/*"]}}}')
    (aliased / "core" / "money.ts").write_text("export type Cents = { amount: number; currency: 'EUR' };\n")
    (aliased / "pay.ts").write_text(
        'import type { Cents } from "@core/money.ts";\nexport function pay(c: Cents): number { return c.amount; }\n')
    (aliased / "pay.props.ts").write_text(
        'import { forall } from "eutaxy/spec";\nimport { pay } from "./pay.ts";\n'
        "export const p = forall(pay, { ensures: (c) => pay(c) === c.amount });\n")
    return read_specs([FIXTURES / "reader" / "domain.props.ts", FIXTURES / "tested" / "domain.props.ts",
                       tmp / "none.props.ts", tmp / "d.props.ts", aliased / "pay.props.ts"], toolchain)


@pytest.fixture(scope="session")
def tested_module(fixture_reads):
    return fixture_reads[1]


@pytest.fixture(scope="module")
def tested_evaluator(toolchain):
    with Evaluator(FIXTURES / "tested" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator


@pytest.fixture(scope="module")
def evaluator(toolchain):
    with Evaluator(FIXTURES / "evaluator" / "domain.props.ts", toolchain) as evaluator:
        yield evaluator
