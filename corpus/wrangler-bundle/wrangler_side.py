"""The wrangler-bundle differential: a Worker built by wrangler and by Eutaxy behaves the same.

Both sides run the same scenario fault-free (one run, no faults, seed fixed) inside workerd
through Eutaxy's host, so the only difference between them is who built the Worker:

- Eutaxy's side checks the scenario as it is: Eutaxy's bundler builds the Worker's sources.
- wrangler's side first runs the pinned wrangler (``wrangler-lock/``, a test-only lock the
  toolchain installer fetches and verifies like the toolchain's own) as a user deploys:
  ``wrangler deploy <entry> --dry-run --outdir <dir>`` in a copy of the project. Its output
  (the bundle and the modules it would upload beside it) is then loaded as wrangler uploads
  it, not bundled again: a config derived from the project's (``DERIVED_CONFIG``: ``main`` the
  output bundle, ``no_bundle``, the build-only keys dropped, every binding kept) makes Eutaxy's
  host load the output as a module list beside its runtime.

"Behave the same" is the run's record (:func:`behaviour`): every effect the Worker made (its
D1 statements with their parameters and results, KV, R2, Durable Object and queue calls, its
externals, each response's status and body), every binding's state the run ends with (the D1
rows snapshot), each invocation's outcome and error message, in order. Only where the code
sits is left out (an effect's ``source``, an error's ``at``): the two builds are different
files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any, Mapping

from eutaxy.cloudflare import create_platform, jsonc, toolchain, wrangler
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.engine.check import replay_scenario

LOCK_DIR = Path(__file__).resolve().parent / "wrangler-lock"
#: The config wrangler's side loads, written beside the project's (so its relative paths,
#: secrets files and migrations hold).
DERIVED_CONFIG = "wrangler.wrangler-side.json"
#: Keys that only steer the build (wrangler has applied them): the derived config drops them.
BUILD_KEYS = ("tsconfig", "alias", "define", "build", "base_dir", "find_additional_modules", "minify", "node_compat")
#: The packages Eutaxy's bundler takes from its toolchain when the project has no copy
#: (bundler.mjs PINNED_FOR_WORKERS); wrangler's side gets them the same way, linked into the copy.
PINNED_FOR_WORKERS = ("agents",)
NO_FAULTS = {"faults": [], "turns": []}
SEED = "wrangler-bundle"


def wrangler_modules() -> Path:
    """The node_modules holding the pinned wrangler: ``EUTAXY_WRANGLER_NODE_MODULES`` (Bazel's copy), else the cache."""
    given = os.environ.get("EUTAXY_WRANGLER_NODE_MODULES")
    if given:
        return Path(given)
    result = toolchain.install_toolchain(lock_dir=LOCK_DIR, log=lambda _message: None)
    return result.location / "node_modules"


def pinned_wrangler_version() -> str:
    return json.loads((LOCK_DIR / "package.json").read_text())["dependencies"]["wrangler"]


def raw_config(path: Path) -> dict[str, Any]:
    text = path.read_text()
    return tomllib.loads(text) if path.suffix == ".toml" else jsonc.loads(text)


def derived_config(config_path: Path, main: Path) -> Path:
    """The project's config with ``main`` wrangler's output bundle, loaded as it is (``no_bundle``)."""
    data = raw_config(config_path)
    sections = [data, *(data.get("env") or {}).values()]
    for section in sections:
        for key in BUILD_KEYS:
            section.pop(key, None)
        section.pop("main", None)
        section.pop("no_bundle", None)
    data["main"] = os.path.relpath(main, config_path.parent)
    data["no_bundle"] = True
    target = config_path.parent / DERIVED_CONFIG
    target.write_text(json.dumps(data, indent=1))
    return target


def link_pinned_packages(project: Path, node_modules: Path) -> None:
    """Link each package Eutaxy pins for Workers into the project's node_modules when it has none."""
    for name in PINNED_FOR_WORKERS:
        target = project / "node_modules" / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(node_modules / name, target_is_directory=True)


def wrangler_build(scenario: Mapping[str, Any], work: Path) -> Path:
    """Run the pinned wrangler's dry-run deploy on the scenario's Worker; the output bundle's path."""
    spec = prepare_worker(scenario)
    config = spec.config
    node = toolchain.find_node_toolchain()
    link_pinned_packages(config.path.parent, node.node_modules)
    # Outside the project: a no_bundle Worker's modules are every file under its folder.
    outdir = work / "wrangler-out"
    if outdir.exists():
        shutil.rmtree(outdir)
    home = work / "wrangler-home"
    home.mkdir(parents=True, exist_ok=True)
    command = [
        str(node.node), str(wrangler_modules() / "wrangler" / "bin" / "wrangler.js"),
        "deploy", str(spec.entry), "--dry-run", "--outdir", str(outdir), "--config", str(config.path),
    ]
    env_name = (scenario.get("worker") or {}).get("env")
    if env_name:
        command += ["--env", env_name]
    environment = {
        "PATH": os.environ.get("PATH", ""), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "CI": "1", "WRANGLER_SEND_METRICS": "false", "NO_COLOR": "1", "WRANGLER_LOG_PATH": str(home / "logs"),
        # wrangler asks the registry for its newest version: a closed local port makes that fail at once, offline or not.
        "npm_config_registry": "http://127.0.0.1:9/",
    }
    proc = subprocess.run(command, cwd=config.path.parent, env=environment, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"wrangler {pinned_wrangler_version()} did not build {spec.entry}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    bundle = outdir / (spec.entry.stem + ".js")
    if not bundle.is_file():
        raise AssertionError(f"wrangler wrote no {bundle.name} in {outdir}: {sorted(p.name for p in outdir.iterdir())}")
    return bundle


def wrangler_side(scenario: Mapping[str, Any], work: Path) -> dict[str, Any]:
    """The scenario with its Worker as wrangler built it (the derived config, its bundle the entry)."""
    bundle = wrangler_build(scenario, work)
    config = derived_config(prepare_worker(scenario).config.path, bundle)
    worker = dict(scenario.get("worker") or {})
    worker["entry"] = str(bundle)
    named = Path(scenario.get("root") or ".") / worker["config"] if worker.get("config") else None
    redirect = named.parent / wrangler.DEPLOY_CONFIG if named is not None else None
    if redirect is not None and redirect.is_file():
        # A build's generated config, reached as wrangler reaches it (the Vite plugin's redirect file):
        # the redirect now names the derived config.
        redirect.write_text(json.dumps({"configPath": os.path.relpath(config, redirect.parent)}))
    else:
        worker["config"] = str(config)
    return {**scenario, "worker": worker}


def fault_free_run(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """One run without faults: the host's record of it."""
    with create_platform(dict(scenario)) as platform:
        return replay_scenario(dict(scenario), platform, NO_FAULTS, seed=SEED)["result"]


def behaviour(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the comparison reads of a run: everything but where the code sits."""
    effects = [{key: value for key, value in effect.items() if key != "source"} for effect in result.get("effects") or []]
    invocations = []
    for invocation in result.get("invocations") or []:
        one = dict(invocation)
        if isinstance(one.get("error"), dict):
            one["error"] = {key: value for key, value in one["error"].items() if key not in ("at", "stack")}
        invocations.append(one)
    return {"effects": effects, "invocations": invocations, "end": result.get("end"), "cuts": result.get("cuts")}


def first_difference(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str | None:
    """None when both behave the same, else where they part, both sides shown."""
    if ours == theirs:
        return None
    for field in ("effects", "invocations"):
        mine, wranglers = ours[field], theirs[field]
        for index, (a, b) in enumerate(zip(mine, wranglers)):
            if a != b:
                return f"{field}[{index}]:\n  Eutaxy's build:   {json.dumps(a, sort_keys=True)}\n  wrangler's build: {json.dumps(b, sort_keys=True)}"
        if len(mine) != len(wranglers):
            longer = mine[len(wranglers):] if len(mine) > len(wranglers) else wranglers[len(mine):]
            return f"{field}: Eutaxy's build has {len(mine)}, wrangler's {len(wranglers)}; the extra: {json.dumps(longer[:3], sort_keys=True)}"
    return f"end/cuts: Eutaxy's build {ours['end']} {ours['cuts']}, wrangler's {theirs['end']} {theirs['cuts']}"


def compare_builds(scenario: Mapping[str, Any], work: Path) -> tuple[dict[str, Any], str | None]:
    """Eutaxy's side's behaviour and the first difference from wrangler's (None when none).

    A scenario's ``specs`` (spec modules whose calls Eutaxy records by wrapping them inside its
    own bundle) are left out on both sides: wrangler's bundle has them inlined, and which calls
    are recorded is the checker's business, not the build's.
    """
    scenario = {**scenario, "specs": []}
    ours = behaviour(fault_free_run(scenario))
    theirs = behaviour(fault_free_run(wrangler_side(scenario, work)))
    return ours, first_difference(ours, theirs)
