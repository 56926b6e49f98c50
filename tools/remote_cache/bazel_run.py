"""Bazel in a throwaway output base, and what its own output says about the cache.

The check must not disturb the workspace's real output base (its server, its
action cache, its outputs, the bazel-* links to them), so every command here
passes `--output_base=<temp>` and `--symlink_prefix=/`, and `shutdown` ends
with that server gone and the directory expunged. What happened to each action is read from two things Bazel
writes itself: the process summary line (`INFO: 3 processes: 2 remote cache
hit, 1 internal.`) and the execution log (one JSON record per spawn, with
`remoteCacheHit`). Nothing is inferred from timing.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import Mapping, Sequence

#: Generous for a two-action build; only a wedged server takes this long.
COMMAND_SECONDS = 300
#: If the check dies before `shutdown`, the throwaway server exits by itself.
SERVER_IDLE_SECONDS = 120

#: On every command. --symlink_prefix=/ makes Bazel create (and, on clean,
#: delete) no bazel-* convenience symlinks: the workspace's own point at its
#: real output base and must survive the check untouched.
QUIET = ("--color=no", "--curses=no", "--symlink_prefix=/")

#: Summary kinds that are not an action running on this machine.
NOT_LOCAL = frozenset({"remote cache hit", "disk cache hit", "internal", "remote"})

_SUMMARY = re.compile(r"^INFO: (\d+) process(?:es)?(?:: (.*?))?\.\s*$")


class BazelError(RuntimeError):
    """A Bazel command could not run at all (as opposed to a cache miss)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Spawn:
    """One action's record in the execution log."""

    mnemonic: str
    #: e.g. "Executing genrule //tools/remote_cache:probe"
    progress: str
    #: e.g. "remote cache hit", "linux-sandbox"
    runner: str
    remote_cache_hit: bool
    #: Input path -> content digest: what makes two spawns' cache keys differ.
    inputs: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: The command's first word.
    program: str = ""

    @property
    def action(self) -> tuple[str, str, str]:
        """What names the same action in two runs: its progress message, mnemonic and program."""
        return self.progress, self.mnemonic, self.program

    @property
    def writes_test_xml(self) -> bool:
        """Bazel's own test.xml for a test that wrote none: its arguments hold the test's duration, so it never hits."""
        return self.program.endswith("/generate-xml.sh")


@dataclasses.dataclass(frozen=True, slots=True)
class Build:
    """One `bazel build` as Bazel reported it."""

    returncode: int
    #: Bazel's stderr (its INFO/WARNING/ERROR lines), shown when a check fails.
    log: str
    #: The process summary, kind -> count; empty if Bazel printed none.
    processes: Mapping[str, int]
    spawns: tuple[Spawn, ...]

    @property
    def remote_cache_hits(self) -> int:
        return self.processes.get("remote cache hit", 0)

    @property
    def ran_here(self) -> int:
        """Actions this machine executed itself (sandboxed, local, worker...)."""
        return sum(n for kind, n in self.processes.items() if kind not in NOT_LOCAL)

    def summary_line(self) -> str:
        return next((l for l in self.log.splitlines() if _SUMMARY.match(l)), "(no process summary)")

    def tests_line(self) -> str:
        return next((line for line in self.log.splitlines() if _TESTS.match(line)), "(no test summary)")


def parse_summary(log: str) -> dict[str, int]:
    """Bazel's `INFO: N processes: a kind, b kind.` line as {kind: count}; the last one wins."""
    counts: dict[str, int] = {}
    for line in log.splitlines():
        match = _SUMMARY.match(line)
        if not match:
            continue
        counts = {}
        for part in (match.group(2) or "").split(", "):
            if part:
                number, _, kind = part.partition(" ")
                counts[kind] = counts.get(kind, 0) + int(number)
    return counts


_TESTS = re.compile(r"^Executed (\d+) out of (\d+) tests?\b")


def parse_tests(log: str) -> tuple[int, int] | None:
    """`bazel test`'s `Executed 0 out of 67 tests: 67 tests pass.` as (executed, total); None if absent."""
    for line in reversed(log.splitlines()):
        match = _TESTS.match(line)
        if match:
            return int(match.group(1)), int(match.group(2))
    return None


def parse_execution_log(text: str) -> tuple[Spawn, ...]:
    """The JSON execution log is concatenated objects, not one document: decode them in turn."""
    decoder = json.JSONDecoder()
    spawns = []
    index = 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return tuple(spawns)
        record, index = decoder.raw_decode(text, index)
        spawns.append(
            Spawn(
                mnemonic=record.get("mnemonic", ""),
                progress=record.get("progressMessage", ""),
                runner=record.get("runner", ""),
                remote_cache_hit=bool(record.get("remoteCacheHit", False)),
                inputs={i["path"]: i.get("digest", {}).get("hash", "") for i in record.get("inputs", [])},
                program=(record.get("commandArgs") or [""])[0],
            )
        )


def differing_inputs(spawn: Spawn, then: Spawn) -> list[str]:
    """The inputs whose content differs between two runs of one action."""
    return sorted(path for path in spawn.inputs.keys() | then.inputs.keys() if spawn.inputs.get(path) != then.inputs.get(path))


@dataclasses.dataclass(frozen=True, slots=True)
class ThrowawayBazel:
    """`bazel --output_base=<temp> ...` in the workspace; `shutdown` leaves nothing behind."""

    bazel: str
    workspace: Path
    output_base: Path
    #: The server's java.io.tmpdir: created on first use, inside the check's temp dir.
    jvm_tmp: Path

    def _run(self, args: Sequence[str], seconds: int = COMMAND_SECONDS) -> subprocess.CompletedProcess:
        self.jvm_tmp.mkdir(parents=True, exist_ok=True)
        command = [
            self.bazel,
            f"--output_base={self.output_base}",
            f"--max_idle_secs={SERVER_IDLE_SECONDS}",
            # The server writes the raw execution log to a temp file it never
            # deletes; keep such files inside the check's temp dir.
            f"--host_jvm_args=-Djava.io.tmpdir={self.jvm_tmp}",
            *args,
        ]
        try:
            return subprocess.run(
                command,
                cwd=self.workspace,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=seconds,
            )
        except FileNotFoundError as error:
            raise BazelError(f"cannot run {self.bazel!r} (set BAZEL=/path/to/bazel): {error}") from error
        except subprocess.TimeoutExpired as error:
            raise BazelError(f"{' '.join(args[:1])} did not finish in {seconds} s") from error

    def build(
        self, target: str, cache_url: str, execution_log: Path, command: str = "build", seconds: int = COMMAND_SECONDS
    ) -> Build:
        """Build (or test) target (patterns split on spaces) with cache_url as the only cache, every override explicit.

        The flags undo anything an rc file might add that would blur the
        result: a disk cache (would answer instead of the server), remote
        execution, downloads skipped. --remote_timeout keeps a dead server from
        stalling the check for a minute per request.
        """
        done = self._run(
            [
                command,
                *QUIET,
                "--noshow_progress",
                "--disk_cache=",
                "--remote_executor=",
                f"--remote_cache={cache_url}",
                "--remote_accept_cached",
                "--remote_upload_local_results",
                "--remote_download_outputs=all",
                "--remote_timeout=10",
                f"--execution_log_json_file={execution_log}",
                "--",
                *target.split(),
            ],
            seconds,
        )
        spawns = parse_execution_log(execution_log.read_text()) if execution_log.exists() else ()
        return Build(
            returncode=done.returncode,
            # `bazel test`'s per-test lines and `Executed N out of M tests` go to stdout.
            log=done.stderr + done.stdout,
            processes=parse_summary(done.stderr),
            spawns=spawns,
        )

    def clean(self) -> None:
        """Drop the output tree and the local action cache, so only the server can answer."""
        done = self._run(["clean", *QUIET])
        if done.returncode != 0:
            raise BazelError(f"bazel clean failed:\n{done.stderr}")

    def shutdown(self) -> None:
        """Expunge the output base (which stops its server), then make sure no server is left."""
        if not self.output_base.exists():
            return
        expunged = self._run(["clean", "--expunge", *QUIET])
        stopped = self._run(["shutdown"])
        if expunged.returncode != 0 or stopped.returncode != 0:
            raise BazelError(f"could not stop the throwaway Bazel server:\n{expunged.stderr}{stopped.stderr}")
