"""The self-check can fail: bugs planted in a copy of core are each caught by the properties.

Method: copy core's source tree (and spec's, which core builds on: spec owns how a
JavaScript number is written) to a temporary directory, apply one textual replacement
(a planted bug) per mutant, and run only the property tests that bear on the mutated code
in a subprocess whose PYTHONPATH puts the mutant first. A mutant is caught when that run
fails its tests (exit status 1). The unmutated copy must pass under the same harness, and
must be the code the subprocess imports, or a "caught" count would mean nothing.

Run alone with ``-m mutation`` (or ``python3 packages/core/tests/test_mutation.py``);
deselect with ``-m 'not mutation'``.
"""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import attrs
import pytest

TESTS = pathlib.Path(__file__).resolve().parent
SOURCE = TESTS.parent / "src"
#: spec's package, copied beside core's so a mutant may plant a bug in what core calls there.
SPEC_PACKAGE = TESTS.parents[1] / "spec" / "src" / "eutaxy" / "spec"
PROPERTIES = TESTS / "test_properties.py"

#: Two cores: the subprocesses run two at a time.
WORKERS = 2
#: One mutant's run is a few seconds on an idle machine; a hang is a harness failure, not a
#: catch. The limit is generous because the unmutated baseline run took over 120 s under a
#: load of 16 on two cores (Bazel beside other test suites).
MUTANT_TIMEOUT_S = 600
#: Print each mutant's outcome and time (the script form sets it).
VERBOSE = False


@attrs.frozen
class Mutant:
    name: str
    module: str  # file under eutaxy/core/
    old: str
    new: str
    tests: str  # a pytest -k expression over test_properties.py


MUTANTS = (
    # --- at_most_once_per_key ---
    Mutant("once and unique: a key or value shared by two is fine", "violations.py",
           "if len(members) > 1]", "if len(members) > 2]", "at_most_once or unique"),
    Mutant("once: only the first shared key reported", "delivery_checks.py",
           "keys=[text for text, _ in shared],", "keys=[text for text, _ in shared[:1]],", "at_most_once"),
    # --- at_least_once ---
    Mutant("at_least_once: only the first expectation checked", "delivery_checks.py",
           'map(to_json, invariant["expected"])', 'map(to_json, invariant["expected"][:1])', "at_least_once and not per_message"),
    # --- at_least_once_per_message ---
    Mutant("per_message: an event without a body key passes quietly", "delivery_checks.py",
           "            keyless.append(event_id)\n", "", "per_message"),
    Mutant("per_message: the first event is not expected", "delivery_checks.py",
           "    for event in events:\n", "    for event in events[1:]:\n", "per_message"),
    # --- every_row ---
    Mutant("every_row: one condition holding is enough", "state_checks.py",
           "failing = [row for row in selected if not all(row_matches(row, c) for c in conditions)]",
           "failing = [row for row in selected if not any(row_matches(row, c) for c in conditions)]", "every_row"),
    Mutant("state checks: a missing snapshot passes", "state_checks.py",
           '            return _no_snapshot(invariant, invariant["query"])\n', "            return None\n",
           "every_row or unique or implies or references or aggregate"),
    Mutant("queries: the where conditions are ignored", "state_checks.py",
           "return index, [row for row in all_rows if all(row_matches(row, c) for c in conditions)]",
           "return index, list(all_rows)", "every_row or unique or implies or references"),
    # --- unique ---
    Mutant("unique: nulls count as shared values", "state_checks.py",
           "if value is MISSING or value is None:", "if value is MISSING:", "unique or references"),
    # --- implies ---
    Mutant("implies: an effect without a key passes", "state_checks.py",
           "if text is None or text not in present:", "if text is not None and text not in present:", "implies"),
    Mutant("implies: only the first unmatched effect counts", "state_checks.py",
           "        if text is None or text not in present:\n            unmatched.append(effect_index)",
           "        if (text is None or text not in present) and not unmatched:\n            unmatched.append(effect_index)", "implies"),
    # --- references ---
    Mutant("references: a named row is the orphan", "state_checks.py",
           "if text is not None and text not in named:", "if text is not None and text in named:", "references"),
    Mutant("references: a missing target snapshot passes", "state_checks.py",
           "        return _no_snapshot(invariant, target)\n", "        return None\n", "references"),
    # --- refines ---
    Mutant("refines: an effect with no decision passes", "refines.py",
           "    if decision_index is None:\n        return key,", "    if decision_index is None:\n        return None\n        return key,", "refines"),
    Mutant("refines: the earliest decision counts, not the latest", "refines.py",
           "    for index in range(before - 1, -1, -1):\n        effect = effects[index]\n        if effect.kind == DECISION",
           "    for index in range(0, before):\n        effect = effects[index]\n        if effect.kind == DECISION", "refines"),
    Mutant("refines: another invocation's decision counts", "refines.py",
           "if effect.kind == DECISION and effect.target == target and effect.invocation == invocation:",
           "if effect.kind == DECISION and effect.target == target:", "refines"),
    Mutant("refines: a follows path missing on one side agrees", "refines.py",
           "if effect_value is MISSING or decision_value is MISSING or to_json(effect_value) != to_json(decision_value):",
           "if effect_value is not MISSING and decision_value is not MISSING and to_json(effect_value) != to_json(decision_value):", "refines"),
    Mutant("refines: the invocation's own write makes its read stale", "refines.py",
           'if effect.invocation != invocation and matches(state["write"], effect)',
           'if matches(state["write"], effect)', "refines"),
    Mutant("refines: a read after the decision counts", "refines.py",
           "read_index = _latest_read(effects, decision_index,", "read_index = _latest_read(effects, index,", "refines"),
    Mutant("refines: the write just before the effect is not seen", "refines.py",
           "for index in range(after + 1, before):", "for index in range(after + 1, before - 1):", "refines"),
    # --- in_order_per_key ---
    Mutant("in_order: an equal value counts as out of order", "order_checks.py",
           "        if position and highest > value:\n", "        if position and highest >= value:\n", "in_order"),
    Mutant("in_order: the earlier effect of a pair is not named", "order_checks.py",
           "        if position and lowest < value:\n            involved.add(index)\n",
           "        if position and lowest < value:\n            pass\n", "in_order"),
    Mutant("in_order: a number and a string order together", "order_checks.py",
           "by_class.setdefault(value_class, [])", "by_class.setdefault(\"any\" if value_class else None, [])", "in_order"),
    Mutant("selectors: keys and groups compared by str, not canonical JSON", "selectors.py",
           "            groups.setdefault(to_json(value), []).append(index)", "            groups.setdefault(str(value), []).append(index)",
           "at_most_once or at_least_once or in_order or interval"),
    Mutant("in_order: only the first broken group reported", "order_checks.py",
           "            first = (group, *found[1])\n", "            first = (group, *found[1])\n            break\n", "in_order or interval"),
    # --- min_interval_per_key / max_interval_per_key ---
    Mutant("min_interval: exactly ms apart is too close", "order_checks.py",
           "if effects[b].time - effects[a].time < ms]", "if effects[b].time - effects[a].time <= ms]", "min_interval"),
    Mutant("min_interval: pairs compared in log order, not time order", "order_checks.py",
           "        ordered = _by_time(effects, indices)\n        close =", "        ordered = indices\n        close =", "min_interval"),
    Mutant("min_interval: only the first close pair's effects named", "order_checks.py",
           "        for a, b in close:\n", "        for a, b in close[:1]:\n", "min_interval"),
    Mutant("max_interval: the span measured from the first in the log", "order_checks.py",
           "        earliest, latest = effects[ordered[0]].time, effects[ordered[-1]].time",
           "        earliest, latest = effects[indices[0]].time, effects[ordered[-1]].time", "max_interval"),
    Mutant("max_interval: only the latest effect named", "order_checks.py",
           "effects[i].time - earliest > ms or latest - effects[i].time > ms}", "effects[i].time - earliest > ms}", "max_interval"),
    Mutant("max_interval: exactly ms apart is too far", "order_checks.py",
           "        if latest - earliest <= ms:\n", "        if latest - earliest < ms:\n", "max_interval"),
    # --- aggregate ---
    Mutant("aggregate: null values counted", "state_checks.py",
           "present = [value for value in values if value is not MISSING and value is not None]",
           "present = [value for value in values if value is not MISSING]", "aggregate"),
    Mutant("aggregate: a string in a sum is skipped", "state_checks.py",
           "            if order_class(value) != \"number\":\n                return MISSING, value\n",
           "            if order_class(value) != \"number\":\n                continue\n", "aggregate"),
    Mutant("aggregate: min is max", "state_checks.py",
           "(min(present) if fn == \"min\" else max(present))", "max(present)", "aggregate"),
    Mutant("aggregate: an absent group value is not the null group", "state_checks.py",
           "to_json(None if group is MISSING else group)", "to_json(group)", "aggregate"),
    Mutant("aggregate: an empty table has no sum", "state_checks.py",
           "    if group_by is None and not groups:\n        groups[\"\"] = []\n", "", "aggregate"),
    Mutant("aggregate: only the first group checked", "state_checks.py",
           "    for group, rows in groups.items():\n        result, refused",
           "    for group, rows in list(groups.items())[:1]:\n        result, refused", "aggregate"),
    # --- selectors ---
    Mutant("selectors: a * target matches only exactly", "selectors.py",
           "return target.startswith(pattern[:-1])", "return target == pattern[:-1]", "selector"),
    Mutant("selectors: an op list matches its first op only", "selectors.py",
           "    return op in pattern\n", "    return op == pattern[0]\n", "selector"),
    Mutant("selectors: a missing value is not neq", "selectors.py",
           "return actual is MISSING or to_json(actual) != to_json(expected)",
           "return actual is not MISSING and to_json(actual) != to_json(expected)", "selector"),
    Mutant("selectors: booleans order as numbers", "selectors.py",
           "    if isinstance(left, bool) or isinstance(right, bool):\n        return False\n", "", "selector"),
    Mutant("selectors: kind is ignored", "selectors.py",
           "if kind is not None and effect.kind != kind:", "if False:", "selector"),
    Mutant("selectors: gte is gt", "selectors.py",
           "            return actual >= expected", "            return actual > expected", "selector or every_row"),
    # --- to_json ---
    Mutant("to_json: object keys unsorted", "canonical.py",
           "    entries.sort(key=lambda entry: (string_order(entry[0]), string_order(entry[1])))\n", "", "to_json"),
    Mutant("to_json: true written as 1", "canonical.py",
           '    elif value is True:\n        parts.append("true")', '    elif value is True:\n        parts.append("1")', "to_json"),
    Mutant("to_json: integral floats keep .0", "spec/values.py",
           'return digits + "0" * (n - k)', 'return digits + "0" * (n - k) + ".0"', "to_json"),
    Mutant("to_json: -0.0 written as -0", "spec/values.py",
           '    if x == 0:\n        return "0"', '    if x == 0:\n        return "-0" if math.copysign(1, x) < 0 else "0"', "to_json"),
    Mutant("to_json: sets in iteration order", "canonical.py",
           "_write_array([text for _, text in sorted(_set_entries(value, path))], parts)",
           "_write_array([text for _, text in _set_entries(value, path)], parts)", "to_json"),
    # --- may_redeliver ---
    Mutant("may_redeliver: maxRedeliveries off by one", "faults.py",
           "redeliveries >= max_redeliveries", "redeliveries > max_redeliveries", "redeliver"),
    Mutant("may_redeliver: a cut taken for the platform's dead letter", "faults.py",
           "        return REDELIVERY_CUT", "        return REDELIVERY_DEAD_LETTER", "redeliver"),
    Mutant("may_redeliver: the first delivery counted as a redelivery", "faults.py",
           "redeliveries = attempts - 1", "redeliveries = attempts", "redeliver"),
)


def _environment(source_root: pathlib.Path) -> dict[str, str]:
    env = dict(os.environ)
    rest = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(source_root) + (os.pathsep + rest if rest else "")
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["EUTAXY_PROPERTIES_DETECT_ONLY"] = "1"
    return env


def _plant(workdir: pathlib.Path, mutant: Mutant | None) -> pathlib.Path:
    """A fresh copy of core's source with the mutant applied; returns its source root."""
    root = workdir / "src"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SPEC_PACKAGE, root / "eutaxy" / "spec", ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        # A bare file name is core's; "spec/values.py" names a file of spec's copy.
        path = root / "eutaxy" / (mutant.module if "/" in mutant.module else f"core/{mutant.module}")
        text = path.read_text(encoding="utf-8")
        count = text.count(mutant.old)
        assert 1 == count, f"mutant {mutant.name!r}: its text occurs {count} times in {mutant.module}"
        path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
    return root


def _run_properties(source_root: pathlib.Path, tests: str) -> subprocess.CompletedProcess:
    """Run the selected properties on the copy; the temporary directory is the working
    directory, so Hypothesis's cache files land there and vanish with it."""
    command = [
        sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
        "--rootdir", str(TESTS), str(PROPERTIES), "-k", tests,
    ]
    return subprocess.run(
        command, env=_environment(source_root), cwd=str(source_root.parent), capture_output=True, text=True, timeout=MUTANT_TIMEOUT_S
    )


def _imported_from(source_root: pathlib.Path) -> list[str]:
    """Where the subprocess imports core and spec from: both must be the copies."""
    probe = [sys.executable, "-c", "import eutaxy.core.invariants as c, eutaxy.spec.values as s; print(c.__file__); print(s.__file__)"]
    return subprocess.run(probe, env=_environment(source_root), capture_output=True, text=True, check=True).stdout.split()


def _try(mutant: Mutant) -> tuple[Mutant, int, str, float]:
    """Run one mutant: (mutant, exit status, output tail, seconds); a timeout is status -1."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="eutaxy-mutant-") as workdir:
        root = _plant(pathlib.Path(workdir), mutant)
        try:
            result = _run_properties(root, mutant.tests)
        except subprocess.TimeoutExpired:
            return mutant, -1, "timed out", time.monotonic() - started
        return mutant, result.returncode, result.stdout[-400:], time.monotonic() - started


def run_mutation() -> tuple[int, list[str]]:
    """Plant every mutant; return the count caught and a line for each one missed."""
    with tempfile.TemporaryDirectory(prefix="eutaxy-baseline-") as workdir:
        root = _plant(pathlib.Path(workdir), None)
        imported = _imported_from(root)
        assert all(path.startswith(str(root)) for path in imported), f"the subprocess does not import the copies: {imported}"
        tests = " or ".join(sorted({mutant.tests for mutant in MUTANTS}, key=str))
        baseline = _run_properties(root, tests)
        assert 0 == baseline.returncode, "the unmutated copy fails:\n" + baseline.stdout[-3000:]
    missed = []
    caught = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for mutant, status, output, seconds in pool.map(_try, MUTANTS):
            if VERBOSE:
                print(f"  {'caught' if status == 1 else 'MISSED'} in {seconds:.1f}s: {mutant.name}")
            if status == 1:
                caught += 1
            else:
                missed.append(f"{mutant.name} (exit {status}): {output}")
    return caught, missed


@pytest.mark.mutation
def test_every_planted_bug_is_caught():
    """Each planted bug makes the relevant property tests fail."""
    caught, missed = run_mutation()
    print(f"mutation: caught {caught}/{len(MUTANTS)} planted bugs")
    assert not missed, f"caught {caught}/{len(MUTANTS)}; missed:\n" + "\n".join(missed)


def test_every_checker_has_a_mutant():
    """At least one planted bug per checker, and in to_json, selectors and may_redeliver."""
    names = " ".join(mutant.name for mutant in MUTANTS)
    parts = (
        "once:", "at_least_once:", "per_message:", "every_row:", "unique:", "implies:", "references:", "refines:",
        "in_order:", "min_interval:", "max_interval:", "aggregate:", "selectors:", "to_json:", "may_redeliver:",
    )
    for part in parts:
        assert part in names


if __name__ == "__main__":
    VERBOSE = True
    count, misses = run_mutation()
    print(f"mutation: caught {count}/{len(MUTANTS)} planted bugs")
    for line in misses:
        print("MISSED", line)
    sys.exit(1 if misses else 0)
