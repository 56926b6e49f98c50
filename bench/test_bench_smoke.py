"""Every script in bench/ runs at its smallest size (``--smoke``) and prints its figures.

So the benchmarks cannot rot unseen: a smoke run asserts only that the script completes
(exit 0) and prints the figures it exists for (the words naming them, beside a number),
never what any figure is: wall time is never asserted. Each script runs in a process of
its own, as a user runs it, with this checkout's packages and toolchains.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent

#: Each script, and words its output must hold: the figures it prints.
SCRIPTS = {
    "aws_queue.py": ["runs/s", "effects/s", "space not exhausted"],
    "cloudflare_concurrency.py": ["maxConcurrentInvocations 1:", "ratio (2 over 1)"],
    "cloudflare_start.py": ["to the first run", "whole check", "same JSON from every check: yes"],
    "cloudflare_growth.py": ["1. queue drive", "per-message ratio", "2. D1 table", "reset ratio", "snapshot ratio"],
    "cloudflare_queue.py": ["not exhausted after", "runs/s", "proxied/raw ratio"],
    "exhaustive.py": ["toy:", "ratios (sharing over reset)", "workerd:", "aws:", "schedules/s"],
    "cloudflare_twins.py": ["none exhausting its space", "ratio to baseline", "3. R2 reset", "4. Durable Object reset"],
    "jobs_speedup.py": ["byte-identical", "speed-up of --jobs 2 over --jobs 1"],
    "spec_smt.py": ["properties per second", "decided by smt"],
    "spec_smt_limits.py": ["rlimit", "contracts", "money"],
    "spec_tested.py": ["distinct assignments evaluated per second"],
    "time_to_violation.py": ["queue-duplicate-write", "aws-sqs-duplicate-write"],
}


def test_every_bench_script_has_a_smoke_run():
    """A script added to bench/ without an entry here fails: it would run nowhere."""
    assert sorted(SCRIPTS) == sorted(path.name for path in BENCH.glob("*.py") if not path.name.startswith("test_"))


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_the_script_completes_at_its_smallest_size_and_prints_its_figures(script, tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--smoke"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert done.returncode == 0, f"{script} --smoke exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    for words in SCRIPTS[script]:
        assert words in done.stdout, f"{script} --smoke printed no {words!r}:\n{done.stdout[-3000:]}"
    assert re.search(r"\d", done.stdout), done.stdout
