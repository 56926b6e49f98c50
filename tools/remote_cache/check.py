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
