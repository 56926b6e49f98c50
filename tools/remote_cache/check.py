#!/usr/bin/env python3
"""Check that Bazel here really takes actions from an HTTP remote cache.

CI's speed depends on the remote cache answering, and a cache that silently
misses (a wrong URL path, a key that changes from one run to the next, a
server that accepts PUTs but loses them) looks exactly like a slow green build.
So the test command runs this after `bazel test //...`:

1. start a real HTTP cache on loopback (nginx WebDAV over a temp dir);
2. in a throwaway output base, build //tools/remote_cache:probe against it:
   every action must run here (the cache is new) and the cache must then hold
   ac/ and cas/ entries;
3. `bazel clean`, build again: Bazel's process summary and execution log must
   say every action was a remote cache hit and none ran here;
4. negative control: `bazel clean`, build against an empty cache path on the
   same server: the step-3 test must reject it, or the check is blind.

Nothing is left running, pass or fail: the Bazel server is expunged and shut
down, nginx is stopped, the temp dir is removed (keep it with --keep).

  --force-miss  point step 3 at the empty cache: the check must fail (exit 1)
  --self-test   run the check with --force-miss and pass only if it fails
                because of the miss (shows that the check can fail)

With --suite the same question is asked of the whole test suite, and the
check is what runs the suite (tools/test calls it in place of its first
`bazel test //...` when no other cache is configured):

1. start the loopback cache; `bazel clean` in the workspace (a result its
   output base already holds would not run again, so it would never be
   uploaded), then `bazel test //...` there, in its own output base, uploading
   to the cache (a failing test fails the check with Bazel's exit status);
2. copy the checkout (the files git tracks or would track, as they are now)
   to a new folder and run `bazel test //...` there in a throwaway output base
   against the same cache: every test must be reported cached (`Executed 0
   out of N tests`) and every action a remote cache hit, none run here. An
   action whose key names the checkout's path or its output base (a
   generated file holding an absolute path) fails this step;
3. negative control: change one test's source in the copy and test again:
   the step-2 verdict must reject it, or the check is blind.

Exit status: 0 pass, 1 the cache was missed or is unusable, 2 the check
could not run (no nginx, Bazel failed to build, a wedged command).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

import bazel_run
import cache_server

TARGET = "//tools/remote_cache:probe"
#: The line a failing check prints; --self-test looks for it.
MISS_MARKER = "remote-cache-check: FAIL"
PREFIX = "remote-cache-check:"


class CheckFailed(Exception):
    """The cache was not used the way CI needs it to be."""


def say(message: str) -> None:
    print(f"{PREFIX} {message}", flush=True)


def _tail(text: str, lines: int = 25) -> str:
    kept = text.strip().splitlines()[-lines:]
    return "\n".join("    " + line for line in kept) or "    (empty)"


def cold_problems(build: bazel_run.Build, cache_root: Path) -> list[str]:
    """What is wrong with the first build: it must run every action and fill the cache."""
    problems = []
    if build.returncode != 0:
        return [f"the first build failed (exit {build.returncode})"]
    if not build.spawns:
        problems.append("the execution log recorded no actions")
    if build.remote_cache_hits or any(s.remote_cache_hit for s in build.spawns):
        problems.append("the first build hit a cache that should have been empty")
    if build.ran_here < len(build.spawns) or not build.ran_here:
        problems.append(f"not every action ran here: {build.summary_line()}")
    for kind in ("ac", "cas"):
        entries = list((cache_root / kind).glob("*")) if (cache_root / kind).is_dir() else []
        if not entries:
            problems.append(f"the cache holds no {kind}/ entries after the first build")
    return problems


def warm_problems(build: bazel_run.Build, actions: int) -> list[str]:
    """What is wrong with a rebuild after `bazel clean`: every action must come from the cache."""
    if build.returncode != 0:
        return [f"the rebuild failed (exit {build.returncode})"]
    problems = []
    if build.remote_cache_hits != actions:
        problems.append(f"{build.remote_cache_hits} of {actions} actions were remote cache hits: {build.summary_line()}")
    if build.ran_here:
        problems.append(f"{build.ran_here} actions ran here instead of coming from the cache")
    missed = [s.progress or s.mnemonic for s in build.spawns if not s.remote_cache_hit]
    if missed:
        problems.append("the execution log shows misses: " + "; ".join(missed))
    if len(build.spawns) != actions:
        problems.append(f"the execution log has {len(build.spawns)} actions, the first build had {actions}")
    return problems


def run_check(workspace: Path, bazel: str, workdir: Path, force_miss: bool) -> None:
    """Steps 1-4 of the module docstring; raises CheckFailed with the evidence."""
    with cache_server.running_cache(workdir) as cache:
        say(f"cache server: nginx at {cache.url}, serving {cache.root}")
        main_url, empty_url = f"{cache.url}/main", f"{cache.url}/empty"
        runner = bazel_run.ThrowawayBazel(
            bazel=bazel, workspace=workspace, output_base=workdir / "output_base", jvm_tmp=workdir / "jvm_tmp"
        )
        try:
            started = time.monotonic()
            cold = runner.build(TARGET, main_url, workdir / "cold.log.json")
            say(f"first build ({main_url}): {cold.summary_line()}")
            if cold.returncode != 0:
                raise bazel_run.BazelError(f"building {TARGET} failed:\n{_tail(cold.log)}")
            problems = cold_problems(cold, cache.root / "main")
            if problems:
                raise CheckFailed("\n".join(problems) + "\n  Bazel said:\n" + _tail(cold.log))
            actions = len(cold.spawns)
            stored = {k: len(list((cache.root / "main" / k).iterdir())) for k in ("ac", "cas")}
            say(f"cache now holds {stored['ac']} ac/ and {stored['cas']} cas/ entries")

            runner.clean()
            warm_url = empty_url if force_miss else main_url
            warm = runner.build(TARGET, warm_url, workdir / "warm.log.json")
            say(f"after bazel clean ({warm_url}{', forced miss' if force_miss else ''}): {warm.summary_line()}")
            problems = warm_problems(warm, actions)
            if problems:
                raise CheckFailed(
                    "the rebuild did not take its actions from the cache:\n  "
                    + "\n  ".join(problems)
                    + "\n  Bazel said:\n"
                    + _tail(warm.log)
                    + "\n  nginx error log:\n"
                    + _tail(cache.error_log.read_text() if cache.error_log.exists() else "")
                )
            say(f"all {actions} actions were remote cache hits, none ran here")

            if not force_miss:
                runner.clean()
                control = runner.build(TARGET, empty_url, workdir / "control.log.json")
                say(f"negative control ({empty_url}): {control.summary_line()}")
                if not warm_problems(control, actions):
                    raise CheckFailed("a build against an empty cache passed the hit test: the check is blind")
                say("the hit test rejects a build that missed the cache")
            say(f"bazel time {time.monotonic() - started:.1f} s")
        except BaseException:
            _shutdown(runner, quiet=True)
            raise
        _shutdown(runner, quiet=False)


#: A suite run in a throwaway output base: repository rules (the venv, the Node
#: toolchains) run again and every test's outputs come back from the cache.
SUITE_SECONDS = 3600
#: The file the negative control changes in the copy: a test's own source, so
#: exactly one test target must run again.
CONTROL_FILE = Path("tools/remote_cache/test_check.py")


def suite_problems(run: bazel_run.Build, first: Sequence[bazel_run.Spawn] = ()) -> list[str]:
    """What is wrong with `bazel test //...` in a fresh checkout: every test and action must come from the cache."""
    if run.returncode != 0:
        return [f"the suite failed in the copy (exit {run.returncode})"]
    problems = []
    tests = bazel_run.parse_tests(run.log)
    if tests is None or tests[1] == 0:
        problems.append("Bazel reported no tests")
    elif tests[0]:
        problems.append(f"tests ran instead of coming from the cache: {run.tests_line()}")
    # A test that writes no test.xml (lint.py's) gets one from Bazel's generate-xml.sh after
    # the cached result comes back; that step names the test's duration, so it always runs here.
    missed = [s for s in run.spawns if not s.remote_cache_hit and not s.writes_test_xml]
    # An action the first run did not execute (its own output base already held it) was
    # never uploaded, so its miss says nothing about its key; the first run must have
    # executed every test (run_suite checks), so no test is let through this way.
    ran_first = {s.action: s for s in first}
    if first:
        missed = [s for s in missed if s.action in ran_first]
    if missed:
        problems.append(f"{len(missed)} actions missed the cache: " + "; ".join(s.progress or s.mnemonic for s in missed[:20]))
    for spawn in missed[:5] if first else ():
        changed = bazel_run.differing_inputs(spawn, ran_first[spawn.action])
        problems.append(f"{spawn.progress}: inputs unlike the first run's: " + ", ".join(changed[:8]))
    return problems


def copy_checkout(workspace: Path, dest: Path) -> int:
    """The files git tracks or would track (not ignored), as they are in the working tree; their count."""
    listed = subprocess.run(
        ["git", "-C", str(workspace), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        stdin=subprocess.DEVNULL, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    copied = 0
    for name in filter(None, listed):
        source = workspace / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree, not yet in git
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
        copied += 1
    return copied


def run_suite(workspace: Path, bazel: str, workdir: Path, targets: str) -> int:
    """Steps 1-3 of --suite; Bazel's exit status if the suite itself failed, else 0; raises CheckFailed."""
    with cache_server.running_cache(workdir) as cache:
        url = f"{cache.url}/suite"
        say(f"cache server: nginx at {cache.url}; bazel test {targets} here, uploading to {url}")
        # Results this output base already holds (CI reuses one for a clone at the same path)
        # would not run, so they would never be uploaded: the first run starts from none.
        say("bazel clean here: the first run must execute every action to upload it")
        cleaned = subprocess.run([bazel, "clean"], cwd=workspace, stdin=subprocess.DEVNULL)
        if cleaned.returncode != 0:
            raise bazel_run.BazelError(f"bazel clean in {workspace} failed (exit {cleaned.returncode})")
        started = time.monotonic()
        main_log = workdir / "main.log.json"
        main = subprocess.run(
            [bazel, "test", "--disk_cache=", "--remote_executor=", f"--remote_cache={url}",
             "--remote_upload_local_results", f"--execution_log_json_file={main_log}", "--", *targets.split()],
            cwd=workspace, stdin=subprocess.DEVNULL,
        )
        say(f"the suite here: exit {main.returncode} in {time.monotonic() - started:.0f} s")
        if main.returncode != 0:
            return main.returncode
        first = bazel_run.parse_execution_log(main_log.read_text())
        # Distinct test targets (a sharded test's shards are one target's runs).
        tests_run = len({s.progress.split(" (shard")[0] for s in first if s.mnemonic == "TestRunner"})
        say(f"the first run executed {len(first)} actions, running {tests_run} test targets")

        copy = workdir / "checkout"
        say(f"copied {copy_checkout(workspace, copy)} files to {copy}")
        runner = bazel_run.ThrowawayBazel(
            bazel=bazel, workspace=copy, output_base=workdir / "output_base", jvm_tmp=workdir / "jvm_tmp"
        )
        try:
            started = time.monotonic()
            warm = runner.build(targets, url, workdir / "suite.log.json", command="test", seconds=SUITE_SECONDS)
            say(f"the suite in the copy: {warm.tests_line()} {warm.summary_line()} ({time.monotonic() - started:.0f} s)")
            problems = suite_problems(warm, first)
            tests = bazel_run.parse_tests(warm.log)
            if tests is not None and tests_run < tests[1]:
                problems.append(
                    f"the first run ran {tests_run} of the {tests[1]} test targets: its output base held"
                    " results, which it does not upload"
                )
            if problems:
                raise CheckFailed(
                    "the suite in a fresh checkout did not come from the cache:\n  "
                    + "\n  ".join(problems) + "\n  Bazel said:\n" + _tail(warm.log)
                )
            say("every test was served from the cache and no action ran here but Bazel's test.xml writing")

            control = copy / CONTROL_FILE
            control.write_text(control.read_text() + "\n# changed by the remote cache check's negative control\n")
            changed = runner.build(targets, url, workdir / "control.log.json", command="test", seconds=SUITE_SECONDS)
            say(f"negative control ({CONTROL_FILE} changed): {changed.tests_line()}")
            if not suite_problems(changed):
                raise CheckFailed("a suite with a changed test passed the cached-suite test: the check is blind")
            say("the cached-suite test rejects a suite in which a test ran")
        except BaseException:
            _shutdown(runner, quiet=True)
            raise
        _shutdown(runner, quiet=False)
    return 0


def _shutdown(runner: bazel_run.ThrowawayBazel, quiet: bool) -> None:
    """Stop the throwaway server; a failure to stop is an error unless another one is already on its way."""
    try:
        runner.shutdown()
    except bazel_run.BazelError as error:
        if not quiet:
            raise
        say(f"ERROR: also, {error}")


def self_test(script: Path, workspace: Path, bazel: str) -> int:
    """Run the check with --force-miss; it must fail with exit 1 and say why."""
    say("self-test: running the check against an empty cache; it must fail")
    done = subprocess.run(
        [sys.executable, str(script), "--force-miss", "--workspace", str(workspace), "--bazel", bazel],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    for line in done.stdout.splitlines():
        print("  | " + line)
    if done.returncode == 1 and MISS_MARKER in done.stdout and "remote cache hits" in done.stdout:
        say("self-test PASS: a missed cache fails the check")
        return 0
    say(f"self-test FAIL: the forced miss gave exit {done.returncode}, expected 1 with a miss report")
    print(done.stderr, file=sys.stderr)
    return 1


def _default_workspace() -> Path:
    # absolute(), not resolve(): a workspace reached through a symlink stays that workspace.
    return Path(__file__).absolute().parents[2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force-miss", action="store_true", help="rebuild against an empty cache; must fail")
    parser.add_argument("--self-test", action="store_true", help="pass only if --force-miss fails")
    parser.add_argument("--workspace", type=Path, default=_default_workspace())
    parser.add_argument("--bazel", default=os.environ.get("BAZEL", "bazel"))
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (cache, logs, output base)")
    parser.add_argument("--suite", action="store_true", help="run the whole suite, then again from the cache in a copy")
    parser.add_argument("--targets", default="//...", help="with --suite: the test pattern (//... unless narrowed by hand)")
    args = parser.parse_args(argv)
    workspace = args.workspace.absolute()
    if not any((workspace / name).is_file() for name in ("WORKSPACE.bazel", "WORKSPACE")):
        say(f"ERROR: {workspace} is not a Bazel workspace")
        return 2
    if args.self_test:
        return self_test(Path(__file__).absolute(), workspace, args.bazel)

    # SIGTERM (a CI cancel, a timeout) must unwind through the finally blocks too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    workdir = Path(tempfile.mkdtemp(prefix="eutaxy-remote-cache-"))
    started = time.monotonic()
    try:
        if args.suite:
            failed = run_suite(workspace, args.bazel, workdir, args.targets)
            if failed:
                say(f"the suite failed (Bazel exit {failed}); the cache was not checked")
                return failed
        else:
            run_check(workspace, args.bazel, workdir, args.force_miss)
    except CheckFailed as failure:
        say(f"FAIL: {failure}")
        return 1
    except (cache_server.CacheServerError, bazel_run.BazelError) as error:
        say(f"ERROR: the check could not run: {error}")
        return 2
    finally:
        if args.keep:
            say(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    say(f"PASS in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
