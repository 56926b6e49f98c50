"""A stand-in for ``lean``'s command line, built by the tests: NOT Lean, and never taken for Lean's verdict.

The tests write this file as an executable named ``lean`` with a ``plan.json``
beside it saying how to answer each theorem of the file it is given. It
answers ``--version`` as Lean does and ``--json FILE`` with one JSON message
per line (``severity``, ``pos``, ``data``), the shape of Lean's ``--json``
output, for the cases under test:

- ``proved``: Eutaxy's ``#check`` shows the statement, ``#print axioms`` lists propext;
- ``open``: an ``unsolved goals`` error inside the theorem (and sorryAx among its axioms);
- ``sorry``: no error, a warning, and ``sorryAx`` among the axioms;
- ``extra_axiom``: the axioms include one outside Lean's standard three;
- ``wrong_check``: ``#check`` shows another statement;
- ``silent``: no message at all for the theorem.

``definitions_error`` adds an error outside every theorem; ``sleep_s`` waits
before answering (the deadline test); the file given and the process id are
written beside the script (and each run appended to ``runs``) so the tests can read what Lean would
have been given, and how often it was started.
"""

import json
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv):
    plan = json.loads((HERE / "plan.json").read_text())
    if argv[1:] == ["--version"]:
        print(f"Lean (version {plan.get('version', '4.30.0')}, x86_64-unknown-linux-gnu, commit stand-in, Release)")
        return 0
    assert argv[1] == "--json", argv
    text = Path(argv[2]).read_text()
    (HERE / "given.lean").write_text(text)
    (HERE / "pid").write_text(str(os.getpid()))
    with open(HERE / "runs", "a") as runs:
        runs.write(f"{os.getpid()}\n")
    if plan.get("sleep_s"):
        time.sleep(plan["sleep_s"])
    lines = text.splitlines()
    messages = []

    def say(severity, line, data):
        messages.append({"fileName": argv[2], "pos": {"line": line, "column": 0}, "severity": severity,
                         "data": data})

    if plan.get("definitions_error"):
        say("error", 2, "unknown identifier 'f_missing'")
    theorems = {}
    for number, line in enumerate(lines, start=1):
        found = re.match(r"^theorem (\S+) : (\S+) := by$", line)
        if found:
            theorems[found.group(1)] = (number, found.group(2))
    for number, line in enumerate(lines, start=1):
        check = re.match(r"^#check @(\S+)$", line)
        axioms = re.match(r"^#print axioms (\S+)$", line)
        name = (check or axioms).group(1) if (check or axioms) else None
        if name is None:
            continue
        how = plan.get("theorems", {}).get(name, plan.get("default", "proved"))
        start, statement = theorems[name]
        if how == "silent":
            continue
        if check:
            say("information", number, f"{name} : {'True' if how == 'wrong_check' else statement}")
            if how == "open":
                say("error", start + 3, "unsolved goals\nv_a : Int\n⊢ False")
            if how == "sorry":
                say("warning", start, "declaration uses 'sorry'")
        else:
            listed = {"proved": "propext", "open": "propext, sorryAx", "sorry": "sorryAx",
                      "extra_axiom": "propext, eutaxy_planted", "wrong_check": "propext"}[how]
            say("information", number, f"'{name}' depends on axioms: [{listed}]")
    for message in messages:
        print(json.dumps(message))
    return 1 if any(m["severity"] == "error" for m in messages) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
