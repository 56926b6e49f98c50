"""The words a supplied proof file may not use, wherever they stand.

A proof file is code in the user's repository, trusted as the spec file is;
what Eutaxy guarantees is narrower: the statement is Eutaxy's, Lean's kernel
accepted the proof, and it rests on no axiom beyond Lean's standard three.
Text that could bend that (register code or syntax, switch checks off, add
axioms or trusted code, scope hypotheses, print a message shaped like Lean's)
is refused bluntly, not policed: any ``#``, any ``@[``, and every token below
refuse the whole file, in comments and strings too, since telling those apart
would mean lexing Lean. A word inside a longer name (``List.prefix_append``)
is that name and passes.

The list changes on two occasions only: a legitimate proof is refused and the
rule narrows, or the pinned Lean release adds a command that runs code while a
file is checked and the word is added in the same change.
"""

from __future__ import annotations

import re

import attrs

#: Tokens refused wherever they stand.
REFUSED_WORDS = frozenset({
    # switch checks off or trust unchecked code
    "sorry", "admit", "axiom", "unsafe", "opaque", "partial", "implemented_by", "extern", "native_decide",
    "set_option", "unseal", "seal",
    # register code or syntax that runs while the file is checked
    "macro", "macro_rules", "syntax", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "elab",
    "elab_rules", "by_elab", "attribute", "initialize", "builtin_initialize", "simproc", "dsimproc",
    # bring in other files, or scope names and hypotheses over what follows
    "import", "section", "namespace", "variable", "include", "omit", "universe", "export", "local", "scoped",
})
#: Token prefixes refused (``run_cmd``, ``run_tac``, ``run_elab``, ``run_meta``; ``declare_syntax_cat``, ...).
REFUSED_PREFIXES = ("run_", "declare_", "register_")
#: Character sequences refused anywhere: every ``#`` command, every attribute.
REFUSED_TEXT = ("#", "@[")

_TOKEN = re.compile(r"[A-Za-z_\u00c0-\uffff][A-Za-z0-9_'!?\u00c0-\uffff]*(?:\.[A-Za-z_\u00c0-\uffff][A-Za-z0-9_'!?\u00c0-\uffff]*)*")


@attrs.frozen
class RefusedWord:
    """One refused word: what it is and the 1-based line it stands on."""

    word: str
    line: int

    def describe(self, file_name: str) -> str:
        return f"{file_name} line {self.line} uses {self.word!r}, which a proof file may not use"


def refused_words(text: str) -> list[RefusedWord]:
    """Every refused word of ``text``, in order (a line may hold several)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for sequence in REFUSED_TEXT:
            if sequence in line:
                found.append(RefusedWord(sequence, number))
        for match in _TOKEN.finditer(line.replace("«", " ").replace("»", " ")):
            # A trailing ' ! or ? is still the word (sorry' in a message, a tactic variant such as admit!).
            token = match.group(0).rstrip("'!?")
            if token in REFUSED_WORDS or token.startswith(REFUSED_PREFIXES):
                found.append(RefusedWord(token, number))
    return found
