"""Errors that are the user's to fix.

A ``UserError`` carries a message that says what is wrong and how to fix it; the
CLI prints it and exits 2 without writing anything.
"""


class UserError(Exception):
    """Bad input: a scenario that does not load, a missing file, an unknown binding."""
