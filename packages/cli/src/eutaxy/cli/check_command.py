"""``eutaxy check <scenario.sim.py>``: explore a scenario, print the verdict, keep the bug.

The steps, each at the edge where it can fail: import the file to learn its platform,
let the platform package load and validate it, create the platform, run the engine's
``check_scenario``, print the text or JSON report, and on VIOLATED write the regression
test beside the scenario. When the scenario lists specs, the spec ladder runs after the
check on the calls it recorded (CHECKED, then TESTED with the check's seed) and its
verdicts join the output as ``specs``; they never change the simulation verdict, but a
REFUTED or CONFLICT spec fails a BOUNDED check (exit 1), as the seeds say a counterexample
at any rung is always an error. Exit codes: 0 BOUNDED, 1 VIOLATED (or a refuted spec),
2 UNSUPPORTED or bad input (nothing written), 3 a bug in Eutaxy.
"""

from __future__ import annotations

import argparse
import contextvars
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Callable

import attrs

from eutaxy.cli.arguments import add_command, budget_ms, max_runs, whole_number
from eutaxy.cli.config import ProjectConfig, config_for, with_configured_provers
from eutaxy.cli.exit_codes import EXIT_INTERNAL
from eutaxy.cli.output import Output, ScenarioPrints
from eutaxy.cli.platforms import import_platform, platform_module_name
from eutaxy.cli.progress import ProgressLine
from eutaxy.cli.provers import add_prover_arguments, node_toolchain, provers_from_args
from eutaxy.cli.report_command import spec_kinds
from eutaxy.core.errors import UserError
from eutaxy.core.verdict_data import verdict_data
from eutaxy.core.verdicts import SIMULATION_KINDS, ConfigSource, SimulationVerdict, exit_code

__all__ = ["WATCH", "CheckStopped", "CheckWatch", "add_check_parser", "run_check"]


@attrs.frozen
class CheckWatch:
    """How a caller running ``check`` in this process (the MCP server) follows and stops it.

    ``on_progress`` gets each progress report of the exploration (``runs``, ``faults``,
    ``elapsedMs``, ``budgetMs``); ``before_run`` is called before every run the platform
    makes (exploring, shrinking, replaying) and stops the check by raising, a KeyboardInterrupt
    for it unwinds as Ctrl-C does: the platform is closed and the command ends "interrupted".
    """

    on_progress: Callable[[dict[str, Any]], None]
    before_run: Callable[[], None]


class CheckStopped(KeyboardInterrupt):
    """Raised by a watch's ``before_run`` to stop the check: it unwinds as Ctrl-C does."""


#: The watch of the check running in this context, if its caller set one.
WATCH: contextvars.ContextVar[CheckWatch | None] = contextvars.ContextVar("eutaxy_check_watch", default=None)


class _WatchedPlatform:
    """The platform, with the watch's ``before_run`` called before each of its runs."""

    def __init__(self, platform: Any, before_run: Callable[[], None]) -> None:
        self._platform = platform
        self._before_run = before_run

    def run(self, plan: Any) -> Any:
        self._before_run()
        return self._platform.run(plan)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._platform, name)


def add_check_parser(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = add_command(
        subparsers, common, "check", handler=run_check,
        help="explore a scenario; print the verdict and the shrunk trace; write a regression test",
        description=(
            "Explore a scenario's runs under injected faults and check its invariants. "
            "Exit 0 BOUNDED (no violation within the bounds; not a proof), 1 VIOLATED "
            "(a replayed, shrunk trace breaks an invariant; a regression test is written), "
            "2 UNSUPPORTED or bad input."
        ),
    )
    parser.add_argument("scenario", help="the scenario file (<name>.sim.py)")
    parser.add_argument("--seed", type=_seed, help="the exploration seed (default: the scenario file's name)")
    parser.add_argument("--budget-ms", type=budget_ms, metavar="MS", help="wall-time budget (default: bounds.budgetMs)")
    parser.add_argument("--max-runs", type=max_runs, metavar="N", help="stop after N runs (default: bounds.maxRuns or none)")
    parser.add_argument("--exhaustive", action="store_true", help="run every schedule within the bounds instead of sampling")
    parser.add_argument(
        "--jobs", type=whole_number, metavar="N",
        help="run plans on N platform instances at once; the verdict is the same as with 1 (default: the machine's "
        "cores, capped by what the check can use)",
    )
    parser.add_argument("--no-regression", action="store_true", help="do not write the regression test on a violation")
    parser.add_argument(
        "--shard", type=_shard, metavar="INDEX/TOTAL",
        help="run only shard INDEX (from 0) of TOTAL of the exploration (Bazel's test sharding) and write its runs "
        "into --shard-dir; needs a run cap (--max-runs or bounds.maxRuns)",
    )
    parser.add_argument("--shard-dir", metavar="DIR", default=".", help="where --shard writes its result (default: .)")
    parser.add_argument(
        "--merge-shards", metavar="DIR",
        help="check as one job would, taking the runs every shard's result under DIR made (in Bazel's outputs.zip too)",
    )
    parser.add_argument(
        "--env", metavar="NAME",
        help="check a Cloudflare Worker as its wrangler environment NAME (env.NAME in the config), as wrangler --env does",
    )
    add_prover_arguments(parser)
    parser.add_argument(
        "--audit", action="store_true",
        help="rerun a sample of the explored runs and compare their effect logs byte for byte (UNSUPPORTED on a difference)",
    )
    parser.add_argument("--wide", action="store_true", help="print arguments and results whole in the text report")
    parser.add_argument(
        "--verbose", action="store_true",
        help="print every assumption the verdict rests on in the text report (by default one line counts them)",
    )
    parser.add_argument(
        "--logs", action="store_true",
        help="print the console output of every run the report holds (the trace's is always printed)",
    )
    parser.add_argument(
        "--html", metavar="PATH",
        help="also write the verdict as one self-contained HTML page: the shrunk trace as a timeline (no network needed)",
    )


def run_check(args: argparse.Namespace, out: Output) -> int:
    from eutaxy.report.text import render_text

    # What the scenario file prints (as it is imported, in an invariant's function) goes into
    # the report, never onto stdout beside it; on an error it goes to stderr before the message.
    prints = ScenarioPrints(out.stderr)
    with prints.capturing():
        checked = _check(args, out)
        if isinstance(checked, int):
            return checked
        verdict, code, platform, scenario, written, unwritten = checked
        printed = prints.claim()
    if printed is not None:
        verdict = verdict.with_fields(scenario_output=printed)
    kind = verdict.kind
    text = render_text(verdict, wide=args.wide, logs=args.logs, verbose=args.verbose)
    if written is not None:
        text += f"\nRegression test written: {written}\n"
        text += f"Run it: {regression_command(written)}\n"
    elif kind == "violated":
        text += f"\nRegression test not written ({unwritten}).\n"
    if args.html:
        from eutaxy.report.html import render_html

        try:
            # The sources in the verdict are relative to the project's folder, which the platform knows.
            source_root = getattr(platform, "source_root", None) or scenario.get("root")
            Path(args.html).write_text(render_html(verdict, source_root=source_root), encoding="utf-8")
        except OSError as error:
            # The verdict stands whether or not the page could be written; say why not.
            out.note(f"eutaxy: warning: the HTML report was not written: {error}")
    out.report(verdict_data(verdict), text=text)
    return code


def _check(args: argparse.Namespace, out: Output) -> int | tuple[SimulationVerdict, int, Any, dict[str, Any], Path | None, str]:
    """Import, explore and keep the bug: the verdict (its specs and regression test added), the exit
    code, the platform, the scenario and where the regression test went (or why not); an exit code
    when the check could not give a verdict."""
    from eutaxy.engine.scenario_file import import_scenario, locate
    from eutaxy.engine.scenario import scenario_stem
    from eutaxy.report.regression import write_regression_test

    scenario_path = Path(args.scenario)
    # The nearest project config above the scenario; a flag on the command line wins over it.
    config = config_for(scenario_path)
    # Every platform's load_scenario is this same loader, so the file runs once; what it prints
    # goes to the capture run_check installed.
    scenario = import_scenario(scenario_path, output=sys.stdout)
    platform_name = scenario["platform"]
    module = import_platform(platform_name)
    # Options a platform takes beyond the scenario (--env), also written into the regression test.
    platform_arguments = _platform_arguments(args, module, platform_name)
    if "env" in platform_arguments:
        scenario = module.with_environment(scenario, platform_arguments["env"])
    _refuse_overwrites(args, scenario, scenario_path)
    create_platform = getattr(module, "create_platform", None)
    if not callable(create_platform):
        raise UserError(f"{module.__name__} has no create_platform(scenario); it cannot serve platform {platform_name!r}")
    check_scenario = _engine_check()
    seed = _first(args.seed, config.seed, scenario_stem(scenario_path))
    # Every shard's result for this scenario, read before any platform starts.
    recorded = None if args.merge_shards is None else read_shards(Path(args.merge_shards), scenario_stem(scenario_path))

    progress = ProgressLine(out.stderr) if not out.json and _is_terminal(out.stderr) else None
    try:
        platform = create_platform(scenario)
    except UserError as error:
        # What the platform finds against the Worker or the handler names the scenario's line.
        raise locate(scenario, error) from None
    watch = WATCH.get()
    on_progress: Callable[[dict[str, Any]], None] | None = progress
    explored = platform
    if watch is not None:
        # A watched check runs under --json (the MCP server's), where no progress line is drawn.
        explored = _WatchedPlatform(platform, watch.before_run)
        on_progress = watch.on_progress

    def create_job() -> Any:
        """Another instance of the platform, for --jobs."""
        made = create_platform(scenario)
        return made if watch is None else _WatchedPlatform(made, watch.before_run)

    if args.shard is not None:
        try:
            return _run_shard(args, out, scenario, explored, seed, _first(args.max_runs, config.max_runs), scenario_path)
        except UserError as error:
            raise locate(scenario, error) from None
        finally:
            platform.close()
    try:
        verdict = check_scenario(
            scenario,
            explored,
            jobs=_jobs(args, module, scenario),
            create_platform=create_job,
            recorded=recorded,
            seed=seed,
            max_runs=_first(args.max_runs, config.max_runs),
            budget_ms=_first(args.budget_ms, config.budget_ms),
            exhaustive=args.exhaustive,
            audit=args.audit,
            on_progress=on_progress,
        )
    except UserError as error:
        raise locate(scenario, error) from None
    finally:
        if progress is not None:
            progress.finish()
        platform.close()

    verdict = _with_config_source(verdict, args, config, scenario_path)
    kind = verdict.kind
    if kind not in SIMULATION_KINDS:
        out.error(f"the engine returned a verdict of unknown kind {kind!r}", kind="internal_error")
        return EXIT_INTERNAL

    written = None
    unwritten = "--no-regression"
    if kind == "violated" and not args.no_regression:
        default_module = f"eutaxy.{platform_name}"
        chosen = platform_module_name(platform_name)
        try:
            written = write_regression_test(
                verdict, scenario_path, platform_name, module=None if chosen == default_module else chosen,
                arguments=platform_arguments,
            )
        except OSError as error:
            # The verdict stands whether or not the file could be written; say why not.
            unwritten = f"could not write it: {error}"
            out.note(f"eutaxy: warning: the regression test was not written: {error}")
    if written is not None:
        verdict = verdict.with_fields(regression_test=str(written))
    code = exit_code(kind)
    if scenario.get("specs"):
        # The spec ladder rests on the calls this check recorded; it never changes the verdict,
        # but a counterexample at any rung is an error.
        specs = _spec_verdicts(scenario, scenario_path, verdict, provers_from_args(with_configured_provers(args, config)))
        verdict = verdict.with_fields(specs=specs)
        code = exit_code(kind, spec_kinds=spec_kinds(specs))
    return verdict, code, platform, scenario, written, unwritten


def _shard(text: str) -> tuple[int, int]:
    """``INDEX/TOTAL`` (Bazel's TEST_SHARD_INDEX and TEST_TOTAL_SHARDS), for argparse's ``type=``."""
    index, slash, total = text.partition("/")
    if not (slash and index.isdigit() and total.isdigit() and int(index) < int(total)):
        raise argparse.ArgumentTypeError(f"expected INDEX/TOTAL with 0 <= INDEX < TOTAL, such as 0/4, got {text!r}")
    return int(index), int(total)


def _run_shard(
    args: argparse.Namespace, out: Output, scenario: dict[str, Any], platform: Any, seed: str, max_runs: int | None,
    scenario_path: Path,
) -> int:
    """Run one shard of the check, write its result, and say what its slice found: exit 1 when a
    run of it broke an invariant and the replay broke it again, 2 when one was unsupported."""
    import time

    from eutaxy.core.canonical import to_json
    from eutaxy.core.scenario_stem import scenario_stem
    from eutaxy.engine.shards import check_shard, shard_file_name

    index, total = args.shard
    if args.exhaustive:
        raise UserError("--shard splits seeded exploration; it does not take --exhaustive")
    shard = check_shard(
        scenario, platform, seed=seed, index=index, total=total, max_runs=max_runs, budget_ms=args.budget_ms,
        clock_ms=lambda: time.monotonic() * 1000.0,
    )
    folder = Path(args.shard_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / shard_file_name(scenario_stem(scenario_path), index, total)
    written.write_text(to_json(shard) + "\n", encoding="utf-8")
    found, unsupported = shard["found"], shard["unsupported"]
    ran = len(shard["runs"])
    text = (
        f"shard {index}/{total} of {shard['scenario']} (seed {seed!r}, maxRuns {shard['maxRuns']}): "
        f"{ran} run{'' if ran == 1 else 's'}, the first and {ran - 1} of its slice of {shard['slice']} "
        f"(of {shard['planned'] - 1} plans foreseen after the first)\n"
    )
    if found is not None and found["replayed"]:
        text += f"VIOLATED: {found['invariant']} broken for {', '.join(found['keys']) or 'the run'} (replayed)\n"
    elif unsupported is not None:
        text += f"UNSUPPORTED: a run of the slice ended {unsupported}\n"
    else:
        text += "no invariant broken in this slice\n"
    text += f"Shard result written: {written}\nThe verdict: eutaxy check {scenario_path} --merge-shards <the folder of every shard's result>\n"
    summary = {key: value for key, value in shard.items() if key != "runs"}
    out.report({**summary, "runs": ran, "written": str(written)}, kind="shard", text=text)
    if found is not None and found["replayed"]:
        return 1
    return 2 if unsupported is not None else 0


def read_shards(folder: Path, stem: str) -> list[dict[str, Any]]:
    """Every shard result of scenario ``stem`` under ``folder``, in files or in Bazel's ``outputs.zip``."""
    import json
    import re
    import zipfile

    name = re.compile(re.escape(stem) + r"\.shard-\d+-of-\d+\.json$")
    if not folder.is_dir():
        raise UserError(f"--merge-shards {folder}: not a folder")
    texts = [path.read_text(encoding="utf-8") for path in sorted(folder.rglob("*.json")) if name.search(path.name)]
    for archive in sorted(folder.rglob("outputs.zip")):
        with zipfile.ZipFile(archive) as zipped:
            texts += [zipped.read(entry).decode("utf-8") for entry in sorted(zipped.namelist()) if name.search(entry)]
    if not texts:
        raise UserError(f"--merge-shards {folder}: no shard result of {stem} (files {stem}.shard-INDEX-of-TOTAL.json) under it")
    return [json.loads(text) for text in texts]


def _jobs(args: argparse.Namespace, module: Any, scenario: dict[str, Any]) -> int:
    """``--jobs``, else the machine's cores, capped by the platform's ``max_jobs(scenario)`` when it
    has one (an AWS scenario on a DynamoDB endpoint of its own: 1); the engine caps it further
    (``eutaxy.engine.jobs.usable_jobs``)."""
    from eutaxy.engine.jobs import machine_jobs

    jobs = args.jobs or machine_jobs()
    limit = getattr(module, "max_jobs", None)
    cap = limit(scenario) if callable(limit) else None
    return jobs if cap is None else min(jobs, cap)


#: Suffixes of source files an HTML page is never written over (a module the Worker or the handler imports).
_SOURCE_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".sql", ".json", ".jsonc", ".toml"})


def _named_files(scenario: dict[str, Any], scenario_path: Path) -> dict[Path, str]:
    """The files the scenario is made of, resolved, each with what it is: the scenario, the Worker's or the handler's files."""
    root = Path(scenario.get("root") or scenario_path.parent)
    named: dict[Path, str] = {}

    def add(item: object, what: str) -> None:
        if isinstance(item, str) and item:
            path = Path(item) if Path(item).is_absolute() else root / item
            named.setdefault(path.resolve(), what)

    named[scenario_path.resolve()] = "the scenario itself"
    worker = scenario.get("worker")
    if isinstance(worker, dict):
        add(worker.get("entry"), "the Worker's entry module")
        add(worker.get("config"), "the Worker's wrangler config")
    handler = scenario.get("handler")
    if isinstance(handler, dict):
        add(handler.get("path"), "the handler's source file")
    for step in scenario.get("setup") or []:
        if isinstance(step, dict):
            add(step.get("path"), "a file the scenario's setup reads")
    for spec in scenario.get("specs") or []:
        add(spec, "a spec module the scenario names")
    return named


def _refuse_overwrites(args: argparse.Namespace, scenario: dict[str, Any], scenario_path: Path) -> None:
    """Refuse, before exploring, an output path that would write over the scenario or a source file.

    ``--html`` never writes over a ``.sim.py``, a file the scenario names (the Worker's entry
    and config, the handler, a setup file, a spec) or an existing source file (a module the
    Worker or the handler imports); the regression test never writes over the scenario or a
    file it names. (``--json`` prints on stdout and writes no file.)
    """
    from eutaxy.report.regression import regression_test_path

    named = _named_files(scenario, scenario_path)
    if args.html:
        target = Path(args.html)
        resolved = target.resolve()
        why = named.get(resolved)
        if why is None and target.name.endswith(".sim.py"):
            why = "a scenario file (.sim.py)"
        if why is None and resolved.is_file() and resolved.suffix in _SOURCE_SUFFIXES:
            why = f"an existing source file ({resolved.suffix})"
        if why is not None:
            raise UserError(f"--html {args.html}: that is {why}; the HTML report is never written over it "
                            "(name another path, such as report.html)")
        unwritable = _unwritable(target)
        if unwritable is not None:
            raise UserError(f"--html {args.html}: {unwritable}; expected a file path in an existing directory "
                            "this user may write to (found before the check ran, so nothing was explored)")
    if not args.no_regression:
        target = regression_test_path(scenario_path)
        why = named.get(target.resolve())
        if why is not None:
            raise UserError(f"the regression test's path {target} is {why}; it is never written over "
                            "(rename the scenario, or pass --no-regression)")


def _unwritable(target: Path) -> str | None:
    """Why the page could not be written at ``target`` (its folder missing or read-only, a folder at
    the path, a file that may not be written), or None. The write itself may still fail later
    (a full disk); that is a warning after the verdict, which stands."""
    folder = target.parent
    if target.is_dir():
        return "that is a directory"
    if not folder.exists():
        return f"its directory {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a directory"
    if target.exists() and not os.access(target, os.W_OK):
        return "that file may not be written"
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"its directory {folder} may not be written"
    return None


def _spec_verdicts(scenario: dict, scenario_path: Path, verdict: SimulationVerdict, provers: list) -> dict:
    """CHECKED on the verdict's ``coreCalls``, then TESTED with the check's seed, then any engines, for each spec module.

    A ladder that cannot run (the prover not installed, no Node) is said in the result's
    ``error``; the simulation verdict stands either way.
    """
    from eutaxy.engine.scenario import scenario_stem

    seed = verdict.provenance.seed or scenario_stem(scenario_path)
    root = Path(scenario.get("root") or scenario_path.parent)
    modules = [Path(item) if Path(item).is_absolute() else root / item for item in scenario["specs"]]
    try:
        from eutaxy.prover.scenario_specs import run_scenario_specs
    except ImportError as error:
        return {"seed": seed, "modules": [], "error": f"the spec ladder (eutaxy.prover) is not available: {error}"}
    try:
        # The same Node as ``eutaxy report``: the pinned toolchain in Eutaxy's cache unless the environment names one.
        return run_scenario_specs(root, modules, list(verdict.core_calls or []), seed, toolchain=node_toolchain(),
                                  provers=provers)
    except UserError as error:
        return {"seed": seed, "modules": [], "error": f"the spec ladder could not run: {error}"}


def regression_command(test_path: Path) -> str:
    """The shell command that runs a written regression test: pytest (a dependency of this CLI)
    under the interpreter running eutaxy, which has it whether eutaxy was installed into a
    project's environment or an isolated one (pipx) whose scripts are not on PATH."""
    return shlex.join([sys.executable, "-m", "pytest", str(test_path)])


def _platform_arguments(args: argparse.Namespace, module: Any, platform_name: str) -> dict[str, Any]:
    """The flags that are a platform's own: ``--env`` for Cloudflare's wrangler environments."""
    if getattr(args, "env", None) is None:
        return {}
    if not callable(getattr(module, "with_environment", None)):
        raise UserError(f"--env names a wrangler environment; the {platform_name} platform has none (drop --env)")
    return {"env": args.env}


def _with_config_source(verdict: Any, args: argparse.Namespace, config: ProjectConfig, scenario_path: Path) -> Any:
    """The verdict with ``provenance.config`` naming the config file and the settings of the
    provenance it supplied (seed, budget, run cap: those the command line left unsaid), when it
    supplied any."""
    if config.path is None:
        return verdict
    supplied = [
        name for name, flag, value in (
            ("seed", args.seed, config.seed),
            ("budget-ms", args.budget_ms, config.budget_ms),
            ("max-runs", args.max_runs, config.max_runs),
        )
        if flag is None and value is not None
    ]
    if not supplied:
        return verdict
    where = os.path.relpath(config.path.absolute(), scenario_path.absolute().parent)
    source = ConfigSource(file=Path(where).as_posix(), settings=supplied)
    return verdict.with_fields(provenance=attrs.evolve(verdict.provenance, config=source))


def _first(*values: Any) -> Any:
    """The first value that is not None: the flag, then the config, then the default."""
    return next((value for value in values if value is not None), None)


def _engine_check():
    try:
        from eutaxy.engine.check import check_verdict
    except ImportError as error:
        raise UserError(f"the engine (eutaxy.engine.check.check_verdict) is not available: {error}") from None
    return check_verdict


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _seed(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a seed such as 's1', got an empty string")
    return text
