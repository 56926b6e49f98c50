"""Goal files: a module's open goals beside its spec file as ``<spec>.goals.lean``, the start of a proof file.

``eutaxy report --goals`` writes one for every module Lean answered with open
goals: two header lines naming the SHA-256 of the module source and of the
spec file the goals were written for, each goal described in comments (its
statement and Lean's first diagnostic line), then one ``-- proof:`` part per
goal with nothing under it. Copied to ``<spec>.props.lean`` and filled with
lemmas and tactics, it is a supplied proof file and is checked as one; the
header makes it stale once either file changes. Every line is checked against
the words a proof file may not use, so the template is accepted as copied: a
diagnostic holding one is left out with a note.

A module Lean answered with no open goal has its goal file removed; a module
Lean gave no answer for keeps whatever was there (no answer is not "no goals").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .engine import ModuleGoals
from .proofs import MODULE_HASH, SPEC_HASH, goals_path, part_name, proof_path, sha256_of
from .toolchain import LEAN_VERSION
from .words import refused_words


def render(goals: ModuleGoals) -> str:
    """The goal file's text for one module's open goals."""
    spec, module = Path(goals.spec), Path(goals.module)
    lines = [f"{MODULE_HASH} {sha256_of(goals.module)} {module.name}",
             f"{SPEC_HASH} {sha256_of(goals.spec)} {spec.name}",
             f"-- Open goals of {spec.name}, written by eutaxy report --goals for Lean {LEAN_VERSION}.",
             f"-- Copy this file to {proof_path(spec).name}, put lemmas above the first proof part and tactics",
             "-- under each part; it is then checked as a supplied proof. Each part starts after the statement",
             "-- shown is unfolded. The two lines above make it stale once either file changes.",
             ""]
    for prop, (statement, diagnostic) in goals.goals.items():
        name = part_name(prop)
        said = (f"Lean said: {diagnostic}" if not refused_words(diagnostic)
                else "Lean's message is left out: it holds a word a proof file may not use")
        lines.append(f"-- {name}: the tactic script left this goal open; {said}")
        if refused_words(statement):
            lines.append("--   (the statement is left out: it holds a word a proof file may not use)")
        else:
            lines.extend(f"--   {line}" for line in statement.split("\n"))
        lines.append("")
    for prop in goals.goals:
        lines.append(f"-- proof: {part_name(prop)}")
        lines.append("")
    text = "\n".join(lines).rstrip("\n") + "\n"
    refused = refused_words(text)
    assert not refused, f"a goal file would use a refused word: {refused[0].describe('the template')}"
    return text


def write_goals(all_goals: dict[str, ModuleGoals]) -> list[dict[str, Any]]:
    """Write (or remove) each answered module's goal file; what was done, by spec file, in spec order."""
    done = []
    for spec in sorted(all_goals):
        goals = all_goals[spec]
        path = goals_path(spec)
        if goals.goals:
            path.write_text(render(goals), encoding="utf-8")
            done.append({"spec": spec, "file": str(path), "action": "written", "goals": sorted(goals.goals)})
        elif path.exists():
            path.unlink()
            done.append({"spec": spec, "file": str(path), "action": "removed", "goals": []})
    return done
