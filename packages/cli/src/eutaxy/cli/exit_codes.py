"""The CLI's exit codes, one meaning each.

``check`` and ``report`` take theirs from the one function that decides them,
``eutaxy.core.verdicts.exit_code`` (the simulation verdict, the spec verdicts beside it,
and whether less was checked than given); other commands use 0, 2 and 3. An uncaught
Python exception would exit 1 and read as VIOLATED, which is why every command's
failures are caught and mapped to 2 or 3.
"""

from eutaxy.core.verdicts import BOUNDED, UNSUPPORTED, VIOLATED, exit_code

#: BOUNDED, or a command that did what it was asked.
EXIT_BOUNDED = EXIT_OK = exit_code(BOUNDED)
#: VIOLATED (check), or a refuted or conflicting spec (report).
EXIT_VIOLATED = EXIT_FAILED = exit_code(VIOLATED)
#: UNSUPPORTED, or input Eutaxy could not use: the message says what to fix; nothing was written.
EXIT_UNSUPPORTED = EXIT_INPUT = exit_code(UNSUPPORTED)
#: A bug in Eutaxy itself (kept apart from UNSUPPORTED); the traceback is on stderr.
EXIT_INTERNAL = 3
#: Interrupted from the keyboard, as shells count it.
EXIT_INTERRUPTED = 130
