"""The CLI's exit codes, one meaning each.

``check`` maps the simulation verdict onto them; other commands use 0, 2 and 3.
An uncaught Python exception would exit 1 and read as VIOLATED, which is why every
command's failures are caught and mapped to 2 or 3.
"""

#: BOUNDED, or a command that did what it was asked.
EXIT_BOUNDED = EXIT_OK = 0
#: VIOLATED (check), or a refuted or conflicting spec (report).
EXIT_VIOLATED = EXIT_FAILED = 1
#: UNSUPPORTED, or input Eutaxy could not use: the message says what to fix; nothing was written.
EXIT_UNSUPPORTED = EXIT_INPUT = 2
#: A bug in Eutaxy itself (kept apart from UNSUPPORTED); the traceback is on stderr.
EXIT_INTERNAL = 3
#: Interrupted from the keyboard, as shells count it.
EXIT_INTERRUPTED = 130
