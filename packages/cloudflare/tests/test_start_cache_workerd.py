"""A check's start: the bundle cache (runtime/host/bundle_cache.mjs) and hosts kept across platforms.

A bundle from the cache must be the bytes a build writes, and give the verdict a build gives;
any change to what the build reads (the Worker's entry, a module it imports, a file that an
import would now resolve to, the config's `define`) must miss. A host kept by ``reuse_hosts``
must give each scenario the JSON a new host gives.
"""

import glob
import json
import os
import tempfile

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, http, reuse_hosts
from eutaxy.cloudflare.host import BUNDLE_CACHE_VARIABLE
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

#: Records the label `./lib` makes of the `define`d BUILD.
WORKER = (
    'import { label } from "./lib";\n'
    "const record = (env) => env.DB.prepare('INSERT INTO seen (label) VALUES (?)').bind(label(BUILD)).run();\n"
    'export default { fetch: async (request, env) => { await record(env); return new Response("ok"); } };\n'
)


def _project(folder, *, lib="export function label(build) { return `one ${build}`; }\n", build='"b1"'):
    (folder / "worker.ts").write_text(WORKER)
    (folder / "lib.ts").write_text(lib)
    (folder / "schema.sql").write_text("CREATE TABLE seen (label TEXT);\n")
    config = {"name": "cached", "main": "./worker.ts", "compatibility_date": "2026-01-01",
              "d1_databases": [{"binding": "DB"}], "define": {"BUILD": build}}
    (folder / "wrangler.jsonc").write_text(json.dumps(config))
    return define_scenario(
        name="cached", root=folder, source=folder / "cached.sim.py",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/"}]),
        invariants=[at_least_once("labelled", d1_write("DB"), d1_param(0), ["one b1"])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def _bundle_bytes(platform):
    """The bundle the platform's host loaded, read from the host's work directory."""
    host = platform._host
    found = [path for base in ("/dev/shm", tempfile.gettempdir())
             for path in glob.glob(os.path.join(base, f"eutaxy-host-{host.pid}-{host._tag}-*", "worker.bundle.mjs"))]
    assert 1 == len(found), found
    with open(found[0], "rb") as handle:
        return handle.read()


def _check(scenario):
    """How the bundle came (built or cached), its bytes, and the verdict's canonical JSON."""
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="start", max_runs=6, module_state_runs=0)
        return platform.start_report["bundle"], _bundle_bytes(platform), to_json(verdict), verdict


def test_a_bundle_from_the_cache_is_the_bytes_and_the_verdict_of_a_build(tmp_path, monkeypatch):
    (tmp_path / "w").mkdir()
    scenario = _project(tmp_path / "w")
    monkeypatch.setenv(BUNDLE_CACHE_VARIABLE, "off")
    uncached = _check(scenario)
    monkeypatch.setenv(BUNDLE_CACHE_VARIABLE, str(tmp_path / "cache"))
    first = _check(scenario)
    again = _check(scenario)
    assert ("built", "built", "cached") == (uncached[0], first[0], again[0])
    assert uncached[1] == first[1] == again[1]
    assert uncached[2] == first[2] == again[2]
    assert "bounded" == again[3]["kind"], again[3].get("cause") or again[3].get("violation")
    # A regression test or a __pycache__ beside the Worker changes nothing the build reads.
    (tmp_path / "w" / "cached_regression_test.py").write_text("")
    (tmp_path / "w" / "__pycache__").mkdir()
    assert "cached" == _check(scenario)[0]


@pytest.mark.parametrize("change", ["entry", "imported", "shadowing", "define"])
def test_a_change_to_what_the_build_reads_misses_the_cache(tmp_path, monkeypatch, change):
    monkeypatch.setenv(BUNDLE_CACHE_VARIABLE, str(tmp_path / "cache"))
    folder = tmp_path / "w"
    folder.mkdir()
    scenario = _project(folder)
    assert "built" == _check(scenario)[0]
    assert "cached" == _check(scenario)[0]
    if change == "entry":
        (folder / "worker.ts").write_text(WORKER.replace("label(BUILD)", "label(BUILD + '!')"))
    elif change == "imported":
        (folder / "lib.ts").write_text("export function label(build) { return `two ${build}`; }\n")
    elif change == "shadowing":
        # `./lib` resolves to lib.tsx before lib.ts, as esbuild orders extensions.
        (folder / "lib.tsx").write_text("export function label(build) { return `two ${build}`; }\n")
    else:
        scenario = _project(folder, build='"b2"')
    how, _, _, verdict = _check(scenario)
    assert "built" == how
    # The changed Worker runs: its row is not the one the invariant expects.
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "cached" == _check(scenario)[0]


def test_two_scenarios_through_one_kept_host_give_the_json_of_new_hosts(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    first = _project(tmp_path / "a")
    second = _project(tmp_path / "b", lib="export function label(build) { return `two ${build}`; }\n")
    fresh = [_check(first)[2], _check(second)[2]]
    kept = []
    with reuse_hosts():
        for scenario in (first, second, first):
            with create_platform(scenario) as platform:
                verdict = check_scenario(scenario, platform, seed="start", max_runs=6, module_state_runs=0)
                kept.append((platform.start_report["keptHost"], to_json(verdict)))
    assert [(False, fresh[0]), (True, fresh[1]), (True, fresh[0])] == kept
    assert json.loads(fresh[0])["kind"] == "bounded" and json.loads(fresh[1])["kind"] == "violated"


def test_a_cache_that_cannot_be_written_costs_a_build_and_nothing_else(tmp_path, monkeypatch):
    (tmp_path / "w").mkdir()
    (tmp_path / "a-file").write_text("")
    scenario = _project(tmp_path / "w")
    # A folder under a file can never be made: neither the bundle cache nor Node's compile cache.
    monkeypatch.setenv(BUNDLE_CACHE_VARIABLE, str(tmp_path / "a-file" / "bundles"))
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    first, again = _check(scenario), _check(scenario)
    assert ("built", "built") == (first[0], again[0])
    assert first[1:3] == again[1:3]


def test_only_the_main_thread_keeps_and_takes_hosts(tmp_path):
    """``--jobs`` starts and stops its other instances in threads of their own; a host such a
    thread started dies with it (PR_SET_PDEATHSIG), so it is never kept, nor taken there."""
    import threading

    (tmp_path / "w").mkdir()
    scenario = _project(tmp_path / "w")
    seen = []

    def in_a_thread():
        with create_platform(scenario) as platform:
            seen.append(platform.start_report["keptHost"])

    with reuse_hosts():
        with create_platform(scenario) as platform:
            seen.append(platform.start_report["keptHost"])
        thread = threading.Thread(target=in_a_thread)
        thread.start()
        thread.join()
        with create_platform(scenario) as platform:
            seen.append(platform.start_report["keptHost"])
        with create_platform(scenario) as platform:
            seen.append(platform.start_report["keptHost"])
    # The thread's platform took none and kept none: the main thread's next one takes its own.
    assert [False, False, True, True] == seen
