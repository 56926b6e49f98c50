"""Strings drawn by walking a regular expression, for a ``when`` that tests a whole-string pattern.

The walker reads JavaScript pattern syntax it can generate from (literals,
classes, groups, alternation, quantifiers, anchors) and refuses the rest
(lookaround, backreferences, property escapes, word boundaries, the ``v``
flag) with :class:`Refused`; the caller then samples over the pattern's own
characters. The walker never decides a match: the real RegExp, evaluated in
Node, has the last word on every draw.
"""

from __future__ import annotations

import string
from typing import Optional

import attrs

from .randomness import Draws

#: Extra repetitions past a quantifier's minimum; long runs add nothing a short one misses.
EXTRA_REPEATS_MAX = 4
#: The characters ``.`` and negated classes draw from.
PRINTABLE = string.ascii_letters + string.digits + " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
DIGITS = string.digits
WORD = string.ascii_letters + string.digits + "_"
SPACE = " \t\n"


class Refused(Exception):
    """Pattern syntax the walker does not generate from."""


@attrs.frozen
class Chars:
    options: str  # what it may produce (already resolved for negation)


@attrs.frozen
class Seq:
    items: tuple


@attrs.frozen
class Alt:
    options: tuple


@attrs.frozen
class Repeat:
    item: object
    low: int
    high: Optional[int]


@attrs.frozen
class Anchor:
    which: str


class _Parser:
    def __init__(self, pattern: str, flags: str) -> None:
        if "v" in flags:
            raise Refused("the v flag")
        self.src = pattern
        self.pos = 0
        self.unicode = "u" in flags

    def peek(self) -> str:
        return self.src[self.pos] if self.pos < len(self.src) else ""

    def take(self) -> str:
        ch = self.peek()
        self.pos += 1
        return ch

    def parse(self):
        node = self.alternation()
        if self.pos != len(self.src):
            raise Refused(f"unexpected {self.peek()!r} at {self.pos}")
        return node

    def alternation(self):
        options = [self.sequence()]
        while self.peek() == "|":
            self.take()
            options.append(self.sequence())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def sequence(self):
        items = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            items.append(self.quantified(atom))
        return Seq(tuple(items))

    def quantified(self, atom):
        ch = self.peek()
        if ch in ("*", "+", "?"):
            self.take()
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
        elif ch == "{" and self._brace_quantifier():
            low, high = self._brace_quantifier_parse()
        else:
            return atom
        if self.peek() == "?":
            self.take()  # lazy: the same language
        if isinstance(atom, Anchor):
            raise Refused("quantified anchor")
        return Repeat(atom, low, high)

    def _brace_quantifier(self) -> bool:
        end = self.src.find("}", self.pos)
        if end < 0:
            return False
        body = self.src[self.pos + 1:end]
        parts = body.split(",")
        return 1 <= len(parts) <= 2 and parts[0].isdigit() and all(p.isdigit() or p == "" for p in parts[1:])

    def _brace_quantifier_parse(self) -> tuple[int, Optional[int]]:
        end = self.src.find("}", self.pos)
        body = self.src[self.pos + 1:end]
        self.pos = end + 1
        parts = body.split(",")
        low = int(parts[0])
        if len(parts) == 1:
            return low, low
        return low, (int(parts[1]) if parts[1] else None)

    def atom(self):
        ch = self.take()
        if ch == "^":
            return Anchor("start")
        if ch == "$":
            return Anchor("end")
        if ch == ".":
            return Chars(PRINTABLE)
        if ch == "(":
            if self.peek() == "?":
                self.take()
                kind = self.take()
                if kind == ":":
                    pass
                elif kind == "<" and self.peek() not in ("=", "!"):
                    close = self.src.find(">", self.pos)
                    if close < 0:
                        raise Refused("unterminated group name")
                    self.pos = close + 1
                else:
                    raise Refused("lookaround")
            inner = self.alternation()
            if self.take() != ")":
                raise Refused("unterminated group")
            return inner
        if ch == "[":
            return self.char_class()
        if ch == "\\":
            return Chars(self.escape(in_class=False))
        if ch in ("*", "+", "?", "{", ")"):
            if ch == "{":
                return Chars("{")
            raise Refused(f"nothing to repeat at {self.pos - 1}")
        return Chars(ch)

    def escape(self, in_class: bool) -> str:
        ch = self.take()
        if ch == "":
            raise Refused("trailing backslash")
        if ch == "d":
            return DIGITS
        if ch == "D":
            return "".join(c for c in PRINTABLE if c not in DIGITS)
        if ch == "w":
            return WORD
        if ch == "W":
            return "".join(c for c in PRINTABLE if c not in WORD)
        if ch == "s":
            return SPACE
        if ch == "S":
            return "".join(c for c in PRINTABLE if c not in SPACE)
        if ch in "bB" and not in_class:
            raise Refused("word boundary")
        if ch == "b":
            return "\b"
        if ch.isdigit() and ch != "0":
            raise Refused("backreference")
        if ch == "k" and self.unicode or ch == "k" and self.peek() == "<":
            raise Refused("named backreference")
        if ch in "pP" and self.unicode:
            raise Refused("property escape")
        if ch == "c":
            raise Refused("control escape")
        simple = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}
        if ch in simple:
            return simple[ch]
        if ch == "x":
            digits = self.src[self.pos:self.pos + 2]
            self.pos += 2
            return chr(int(digits, 16))
        if ch == "u":
            if self.peek() == "{" and self.unicode:
                end = self.src.find("}", self.pos)
                code = int(self.src[self.pos + 1:end], 16)
                self.pos = end + 1
                return chr(code)
            digits = self.src[self.pos:self.pos + 4]
            self.pos += 4
            return chr(int(digits, 16))
        return ch

    def char_class(self) -> Chars:
        negate = self.peek() == "^"
        if negate:
            self.take()
        members: list[str] = []
        first = True
        while True:
            ch = self.take()
            if ch == "":
                raise Refused("unterminated class")
            if ch == "]" and not first:
                break
            if ch == "]" and first:
                break
            first = False
            if ch == "\\":
                piece = self.escape(in_class=True)
            else:
                piece = ch
            if len(piece) == 1 and self.peek() == "-" and self.src[self.pos + 1:self.pos + 2] not in ("]", ""):
                self.take()
                end = self.take()
                if end == "\\":
                    end = self.escape(in_class=True)
                    if len(end) != 1:
                        raise Refused("class range to a class escape")
                if ord(end) < ord(piece):
                    raise Refused("reversed class range")
                span = range(ord(piece), ord(end) + 1)
                if len(span) > 2000:
                    span = range(ord(piece), ord(piece) + 2000)
                members.append("".join(chr(c) for c in span))
            else:
                members.append(piece)
        chars = "".join(dict.fromkeys("".join(members)))
        if negate:
            chars = "".join(c for c in PRINTABLE if c not in chars)
        if not chars:
            raise Refused("empty class")
        return Chars(chars)


def parse(pattern: str, flags: str = ""):
    """The walkable tree of ``pattern``, or :class:`Refused`."""
    return _Parser(pattern, flags).parse()


def is_whole_string(pattern: str) -> bool:
    """Whether the pattern is anchored at both ends (``^...$``), so it tests the whole string."""
    if not pattern.startswith("^") or not pattern.endswith("$"):
        return False
    backslashes = len(pattern[:-1]) - len(pattern[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def walk(tree, draws: Optional[Draws], ignore_case: bool = False) -> str:
    """One string the tree describes; ``draws=None`` takes the plainest path (first options, fewest repeats)."""
    out: list[str] = []
    _walk(tree, draws, out, ignore_case)
    return "".join(out)


def _walk(node, draws: Optional[Draws], out: list[str], ignore_case: bool) -> None:
    if isinstance(node, Anchor):
        return
    if isinstance(node, Chars):
        ch = node.options[0] if draws is None else draws.choice(node.options)
        if ignore_case and draws is not None and draws.chance(0.3):
            ch = ch.swapcase()
        out.append(ch)
        return
    if isinstance(node, Seq):
        for item in node.items:
            _walk(item, draws, out, ignore_case)
        return
    if isinstance(node, Alt):
        _walk(node.options[0] if draws is None else draws.choice(node.options), draws, out, ignore_case)
        return
    if isinstance(node, Repeat):
        high = node.low + EXTRA_REPEATS_MAX if node.high is None else min(node.high, node.low + EXTRA_REPEATS_MAX)
        count = node.low if draws is None else draws.between(node.low, high)
        for _ in range(count):
            _walk(node.item, draws, out, ignore_case)
        return
    raise AssertionError(f"unknown regex node {node!r}")


def pattern_characters(pattern: str) -> str:
    """The fallback alphabet: the pattern's own characters, less its syntax."""
    chars = "".join(dict.fromkeys(c for c in pattern if c not in "^$()[]{}|*+?\\."))
    return chars or string.ascii_lowercase


def sample_strings(pattern: str, flags: str, draws: Draws, count: int, max_length: int) -> list[str]:
    """``count`` candidate strings for the pattern: walked where the walker takes it, sampled otherwise."""
    try:
        tree = parse(pattern, flags)
    except (Refused, ValueError):
        alphabet = pattern_characters(pattern)
        return ["".join(draws.choice(alphabet) for _ in range(draws.between(0, max_length)))
                for _ in range(count)]
    ignore_case = "i" in flags
    return [walk(tree, draws, ignore_case) for _ in range(count)]


def plainest(pattern: str, flags: str) -> Optional[str]:
    """The walk taking first options and fewest repeats, or ``None`` when the walker refuses."""
    try:
        return walk(parse(pattern, flags), None)
    except (Refused, ValueError):
        return None
