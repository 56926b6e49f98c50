"""The handler's own frames: where on a Python stack the user's code is, as a report names it.

One rule for both things a report places in the handler's code: the call that made an
effect (the live stack at the botocore boundary, ``UserFrames.call_site``) and the line an
uncaught error was raised at (its traceback, ``UserFrames.raised_at``). A frame is the
user's when its file is in the handler's folder; one in the handler's own folder (outside
the ``python_path`` folders, which hold the packages it is given) is preferred, so a call
made through a vendored boto3 or a layer's helper is placed at the handler's line that made
it. Among those, the innermost wins. Files are told relative to the scenario's folder with
``/`` between folders, so no path of this machine reaches a report.
"""

from __future__ import annotations

import os
import sys
from types import CodeType, FrameType
from typing import Iterable

import attrs

from eutaxy.core.effects import Source

__all__ = ["UserFrames"]

#: Frames read outward from the boundary before giving up: botocore's call path is about
#: fifteen deep, and a handler's own helpers add a few.
FRAMES_MAX = 64


@attrs.define(eq=False)
class UserFrames:
    """The user's folders and the scenario's, with what has been learnt of each code object."""

    #: The handler's folder first, then its python_path folders, absolute and normalised.
    folders: tuple[str, ...]
    #: The scenario's folder: files are told relative to it.
    root: str
    #: file name -> (rank, shown file): rank 0 the handler's own code, 1 a package's it is
    #: given, None not the user's. Few files run, so each is judged once. (Keyed by the file,
    #: not the code object: two functions with the same body and lines compare equal.)
    _ranks: dict[str, tuple[int | None, str]] = attrs.field(factory=dict, init=False)

    def call_site(self) -> Source | None:
        """The user's call that led here (the live stack, innermost first), or None when none is the user's."""
        frame: FrameType | None = sys._getframe(1)
        frames = []
        for _ in range(FRAMES_MAX):
            if frame is None:
                break
            frames.append((frame.f_code, frame.f_lineno, frame.f_lasti))
            frame = frame.f_back
        return self._best(frames)

    def raised_at(self, error: BaseException) -> Source | None:
        """The user's frame an uncaught error was raised in (innermost of its traceback), or None."""
        frames = []
        tb = error.__traceback__
        while tb is not None:
            frames.append((tb.tb_frame.f_code, tb.tb_lineno, tb.tb_lasti))
            tb = tb.tb_next
        return self._best(reversed(frames))

    def _best(self, frames: Iterable[tuple[CodeType, int | None, int]]) -> Source | None:
        """The first frame of the best rank, ``frames`` innermost first (code, line, last instruction)."""
        best: tuple[int, str, CodeType, int, int] | None = None
        for code, line, lasti in frames:
            rank, shown = self._rank(code)
            if rank is None or line is None or (best is not None and best[0] <= rank):
                continue
            best = (rank, shown, code, line, lasti)
            if rank == 0:
                break
        if best is None:
            return None
        _, shown, code, line, lasti = best
        return Source(file=shown, line=line, column=_column(code, lasti) or 1)

    def _rank(self, code: CodeType) -> tuple[int | None, str]:
        filename = code.co_filename
        known = self._ranks.get(filename)
        if known is None:
            known = self._ranks[filename] = _rank_of(filename, self.folders, self.root)
        return known


def _rank_of(filename: str, folders: tuple[str, ...], root: str) -> tuple[int | None, str]:
    # A frozen or generated module's "filename" (``<frozen os>``) is no path: made absolute,
    # it would land in the working directory, often the handler's own folder.
    if not os.path.isabs(filename):
        return None, ""
    path = os.path.normpath(filename)
    within = [folder for folder in folders if path.startswith(os.path.join(folder, ""))]
    if not within:
        return None, ""
    own, packages = folders[0], folders[1:]
    # The handler's folder may hold its python_path folder (``./vendor``): the deeper folder says what the file is.
    deepest = max(within, key=len)
    rank = 0 if deepest == own and deepest not in packages and not _installed(path, deepest) else 1
    shown = os.path.relpath(path, root) if root else os.path.basename(path)
    return rank, shown.replace(os.sep, "/")


def _installed(path: str, folder: str) -> bool:
    """Whether ``path`` is in a package installed into ``folder`` (a Lambda zip's root often holds
    them): its top folder there has a ``<name>-<version>.dist-info`` beside it of the same name
    (boto3, botocore, aws_lambda_powertools; a distribution named apart from its import name is
    not recognised, and its frames count as the handler's)."""
    top = os.path.relpath(path, folder).split(os.sep)[0]
    if top == os.path.basename(path):
        return False
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(name.endswith(".dist-info") and name.split("-")[0].lower() == top.lower() for name in names)


def _column(code: CodeType, lasti: int) -> int | None:
    """The column (from 1) of the instruction at ``lasti``, as a traceback places it; None when unknown.

    Read for the chosen frame only: it walks the code object's position table.
    """
    if lasti < 0:
        return None
    for index, position in enumerate(code.co_positions()):
        if index == lasti // 2:
            start = position[2]
            return None if start is None else start + 1
    return None

