"""Every corpus Worker and each build fixture behaves the same built by wrangler and by Eutaxy.

The Workers: every Cloudflare scenario's Worker under planted-bugs/ and differential/ (a
planted bug's fixed twin too, each distinct entry and config once, with the first scenario
that checks it), and the build fixtures of packages/cloudflare/tests/bundling/ (text modules,
a `browser`-field dependency, legacy and standard decorators, nodejs_compat). Each runs in a
copy of its folder (wrangler writes beside the project). What "the same" compares is
wrangler_side.py's.

Left out: a scenario with callee Workers (a `callee` setup step). Eutaxy bundles the caller
and its callees into one main module, and the wrangler side loads wrangler's output as it is
(`no_bundle`), one Worker's modules, so it cannot host the callees; the callee's differential
(corpus/differential/callee-inventory-calls) compares it with two real Workers instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, d1_param, d1_schema, d1_write, define_scenario, http, load_scenario
from wrangler_side import compare_builds, pinned_wrangler_version

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
REPO = CORPUS.parent
FIXTURES = REPO / "packages" / "cloudflare" / "tests" / "bundling"
GROUPS = ("planted-bugs", "differential")


def corpus_workers() -> list[tuple[str, Path]]:
    """(id, scenario file) for each distinct Cloudflare Worker in the corpus, in path order."""
    seen: set[tuple[str, str, str]] = set()
    found = []
    for group in GROUPS:
        for path in sorted((CORPUS / group).glob("*/**/*.sim.py")):
            text = path.read_text()
            if "from eutaxy.cloudflare import" not in text:
                continue
            scenario = load_scenario(str(path))
            if any(step.get("kind") == "callee" for step in scenario.get("setup", [])):
                continue
            worker = scenario.get("worker") or {}
            root = Path(scenario["root"])
            key = (str((root / worker.get("entry", "")).resolve()), str((root / worker.get("config", "")).resolve()), str(worker.get("env")))
            if key in seen:
                continue
            seen.add(key)
            found.append((path.relative_to(CORPUS).as_posix().removesuffix(".sim.py"), path))
    return found


CORPUS_WORKERS = corpus_workers()


def copied_scenario(path: Path, tmp_path: Path) -> dict:
    """The scenario at ``path`` loaded from a copy of its case folder (wrangler writes beside the project)."""
    case = path.relative_to(CORPUS).parts[:2]
    copy = tmp_path / case[1]
    shutil.copytree(CORPUS.joinpath(*case), copy, ignore=shutil.ignore_patterns("__pycache__", "*.report.txt"))
    return load_scenario(str(copy / path.relative_to(CORPUS.joinpath(*case))))


def assert_same(scenario: dict, tmp_path: Path) -> dict:
    ours, difference = compare_builds(scenario, tmp_path)
    assert difference is None, f"{scenario['name']}: Eutaxy's build and wrangler {pinned_wrangler_version()}'s behave differently at {difference}"
    # A comparison of two runs that did nothing proves nothing.
    assert ours["effects"], f"{scenario['name']}: the fault-free run made no effect"
    return ours


def test_every_cloudflare_worker_of_the_corpus_is_compared():
    names = [name for name, _ in CORPUS_WORKERS]
    assert len(names) >= 25, names
    assert "planted-bugs/queue-duplicate-write/queue-duplicate-write" in names
    assert not any(name.startswith(("planted-bugs/aws-", "differential/aws-")) for name in names)
    assert not any("callee-inventory" in name for name in names)


@pytest.mark.parametrize("path", [path for _, path in CORPUS_WORKERS], ids=[name for name, _ in CORPUS_WORKERS])
def test_a_corpus_worker_behaves_the_same_built_by_wrangler(tmp_path, path):
    assert_same(copied_scenario(path, tmp_path), tmp_path)


@pytest.mark.parametrize(
    ("fixture", "summary"),
    [
        ("text_modules", "html | md | txt | bin 1,2,3 | wasm 5"),
        ("browser_field", "browser"),
        ("decorators_legacy", "hello legacy via Agent.greet"),
        ("decorators_standard", "hello standard via greet"),
        ("nodejs_compat", "a/b 6869"),
        ("nodejs_polyfills", "exec function not implemented | perf_hooks function | performance function now 0 | process function release none | cjs a/b function"),
    ],
)
def test_a_build_fixture_behaves_the_same_built_by_wrangler(tmp_path, fixture, summary):
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    if (root / "vendor").is_dir():
        (root / "vendor").rename(root / "node_modules")
    scenario = define_scenario(
        name=fixture,
        root=root,
        source=root / "built.sim.py",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/"}]),
        invariants=[at_least_once("summary-recorded", d1_write("DB"), d1_param(0), [summary])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    ours = assert_same(scenario, tmp_path)
    # Both builds wrote the summary the fixture's Worker only writes when its imports are wrangler's.
    written = [effect for effect in ours["effects"] if effect["target"] == "D1:DB" and effect["kind"] == "result"]
    assert [effect["payload"]["args"]["params"] for effect in written] == [[summary]]
