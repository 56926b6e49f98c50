"""Public Worker projects checked as a new user checks them (issue 32 item 6).

Each project's folder (``<name>/project/``, its upstream files unmodified) is copied as
``npm ci`` leaves it: its ``node_modules`` is the hermetic install of ``npm-lock/``
(``@eutaxy_real_projects`` under Bazel, else the cache, pinned by ``npm-lock/sha256.json``).
``eutaxy draft`` writes its scenario; the committed ``<name>/<name>.sim.py`` must be that
draft with only its marked holes filled; then it is checked the way the corpus drafts are
(packages/cli/tests/test_cli_draft.py: no faults, a handful of runs) and its verdict must be
the one the project's README records.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from eutaxy.cli.main import main
from eutaxy.cloudflare import toolchain
from eutaxy.cloudflare.bindings.d1 import SESSION_ASSUMPTION

HERE = Path(__file__).resolve().parent
LOCK_DIR = HERE / "npm-lock"

#: What each project's check says (its README says why): (verdict kind, cause or None).
VERDICTS = {
    "berdzerd-website": ("bounded", None),
    "chanfana-openapi-template": ("bounded", None),
    "d1-template": ("bounded", None),
    "durable-chat-template": ("bounded", None),
    # Every request opens a D1 session (env.DB01.withSession): Miniflare's one database, no replica.
    "d1-starter-sessions-api-template": ("bounded", None),
}


def projects() -> list[str]:
    return sorted(path.parent.name for path in HERE.glob("*/project"))


def installed_modules() -> Path:
    """The node_modules ``npm ci`` would leave: ``EUTAXY_REAL_PROJECTS_NODE_MODULES`` (Bazel's copy), else the cache."""
    given = os.environ.get("EUTAXY_REAL_PROJECTS_NODE_MODULES")
    if given:
        return Path(given)
    return toolchain.install_toolchain(lock_dir=LOCK_DIR, log=lambda _message: None).location / "node_modules"


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def holes_as_wildcards(draft: str) -> re.Pattern[str]:
    """The draft with each ``todo("hole", "...")`` free: the filled scenario must match it whole."""
    parts = re.split(r'todo\("\w+", "[^"]*"\)', draft)
    return re.compile("(.+?)".join(re.escape(part) for part in parts), re.DOTALL)


def test_there_are_real_projects():
    assert sorted(VERDICTS) == projects()


def test_every_project_has_its_licence_and_source():
    for name in projects():
        # The project's own LICENSE, or its repository's beside the project when it has none.
        assert (HERE / name / "project" / "LICENSE").is_file() or (HERE / name / "LICENSE").is_file(), name
        readme = (HERE / name / "README.md").read_text()
        assert re.search(r"commit [0-9a-f]{40}", readme), name


def test_the_holes_pattern_admits_only_hole_edits():
    draft = 'a = todo("events", "x")\nb = 1\n'
    assert holes_as_wildcards(draft).fullmatch('a = [1, 2]\nb = 1\n')
    assert not holes_as_wildcards(draft).fullmatch('a = [1, 2]\nb = 2\n')


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_a_real_project_drafted_and_filled_checks_as_recorded(name, tmp_path):
    folder = tmp_path / name
    shutil.copytree(HERE / name / "project", folder)
    if (folder / "package.json").is_file():  # what `npm ci` leaves
        (folder / "node_modules").symlink_to(installed_modules(), target_is_directory=True)
    code, out, err = run_cli("draft", str(folder), "--json")
    assert 0 == code, err
    draft = json.loads(out)
    filled = (HERE / name / f"{name}.sim.py").read_text()
    assert holes_as_wildcards(draft["source"]).fullmatch(filled), "the filled scenario differs from the draft outside its holes"
    for extra in (HERE / name).glob("*.sql"):
        shutil.copy(extra, folder / extra.name)
    assert filled.count('"maxFaultsPerRun": 1,') == 1
    path = folder / f"{name}.sim.py"
    path.write_text(filled.replace('"maxFaultsPerRun": 1,', '"maxFaultsPerRun": 0,'))
    code, out, err = run_cli("check", str(path), "--max-runs", "3", "--budget-ms", "300000", "--no-regression", "--json")
    verdict = json.loads(out) if out.strip() else {"kind": "error"}
    summary = {key: verdict.get(key) for key in ("kind", "cause", "violations", "message") if verdict.get(key)}
    kind, cause = VERDICTS[name]
    assert (kind, cause) == (verdict["kind"], (verdict.get("cause") or {}).get("kind")), f"{summary}\n{err[-3000:]}"
    if kind == "bounded":
        assert 0 == code, summary
        # A verdict whose runs opened a D1 session says read replication is not modelled; no other does.
        assumed = verdict["provenance"]["assumptions"]
        assert (SESSION_ASSUMPTION in assumed) == (name == "d1-starter-sessions-api-template"), assumed
