"""Spec verdicts as text: the one drawing of the spec ladder's verdicts, a block per spec module.

``eutaxy report`` (``eutaxy.prover.report.render_text``) and ``eutaxy check``'s Specs
section (``eutaxy.report.text``) both draw their modules with :func:`spec_module_lines`.
What each says around the blocks stays with it (the report's headline and its "not a
pass" list; the check's note that specs never change the simulation verdict). How the
two differ inside a block is a :class:`SpecLayout`, one field per difference, so the
differences are named in one place: :data:`REPORT_LAYOUT` and :data:`CHECK_LAYOUT`.

The input is a module as the prover writes it (``eutaxy.prover.report``'s JSON: ``module``,
``spec``, ``error``, ``diagnostics``, ``skipped``, ``properties``); values in it are in
the spec ladder's encoding (:mod:`eutaxy.spec.values`) and are written as JavaScript
source would write them (:func:`show_encoded`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import attrs

from eutaxy.spec.values import decode, show

__all__ = ["CHECK_LAYOUT", "REPORT_LAYOUT", "WORD_WIDTH_MIN", "SpecLayout", "show_encoded", "spec_module_lines"]

#: Verdict words are padded to at least this width (CONFLICT, the longest kind), so names line up.
WORD_WIDTH_MIN = 8


@attrs.frozen(kw_only=True)
class SpecLayout:
    """How one command draws spec verdicts; each field is one way the two commands differ."""

    #: Put before a module's header line; the module's other lines are indented two more.
    indent: str
    #: Errors and compiler messages are printed whole, later lines under the first (else the first line only).
    whole_messages: bool
    #: A skipped export names the line it is on.
    skipped_line_numbers: bool
    #: A TESTED verdict short of its target says so in its word: ``TESTED (21 of 100)``.
    shortfall_in_word: bool
    #: The ladder ran on a simulation's calls: TESTED counts drawn inputs and says what CHECKED
    #: saw, PROVEN gives the ladder's detail, and nothing is said about edges.
    beside_simulation: bool
    #: Each engine's own answer gets a line under its property (what it rests on, or why it did not decide).
    engine_lines: bool = False


#: ``eutaxy report``: modules at the left margin, messages whole.
REPORT_LAYOUT = SpecLayout(indent="", whole_messages=True, skipped_line_numbers=True, shortfall_in_word=True,
                           beside_simulation=False, engine_lines=True)
#: ``eutaxy check``'s Specs section: indented under the section, one line per message.
CHECK_LAYOUT = SpecLayout(indent="  ", whole_messages=False, skipped_line_numbers=False, shortfall_in_word=False,
                          beside_simulation=True)


def show_encoded(value: Any) -> str:
    """A value in the spec ladder's encoding, as JavaScript source writes it (``12n``, ``-0``, ``{ a: 1 }``)."""
    return show(decode(value))


def _unchanged(text: str) -> str:
    return text


def spec_module_lines(module: Mapping[str, Any], layout: SpecLayout, *,
                      cut: Callable[[str], str] = _unchanged) -> list[str]:
    """One module's block: its header, its messages and skipped exports, then a line per property.

    ``cut`` shortens a long argument list or result (the check's report cuts values to
    its width; the spec report prints them whole).
    """
    inner = layout.indent + "  "
    spec = module.get("spec")
    lines = [f"{layout.indent}{module.get('module') or '?'}" + (f"  (spec {spec})" if spec else "")]
    if module.get("detail"):
        lines.append(f"{inner}{module['detail']}")
    if module.get("error"):
        lines.extend(_message(inner, "error: ", str(module["error"]), layout))
    for diagnostic in module.get("diagnostics") or []:
        lines.extend(_message(inner, "compiler: ", str(diagnostic), layout))
    for skipped in module.get("skipped") or []:
        if isinstance(skipped, Mapping):
            at = f" (line {skipped.get('line', '?')})" if layout.skipped_line_numbers else ""
            lines.append(f"{inner}skipped {skipped.get('name', '?')}{at}: {skipped.get('reason', '')}")
    properties = [p for p in module.get("properties") or [] if isinstance(p, Mapping)]
    words = [_word(p, layout) for p in properties]
    word_width = max([WORD_WIDTH_MIN, *(len(w) for w in words)])
    name_width = max((len(str(p.get("property", "?"))) for p in properties), default=0)
    for word, prop in zip(words, properties, strict=True):
        lines.append(f"{inner}{word:<{word_width}} {str(prop.get('property', '?')):<{name_width}}  "
                     f"{_why(prop, layout, cut)}")
        if layout.engine_lines:
            lines.extend(f"{inner}    {line}" for line in _engine_lines(prop, cut))
        for args in (prop.get("tested") or {}).get("inputs", []):
            lines.append(f"{inner}    input {prop.get('function')}({', '.join(show_encoded(a) for a in args)})")
    return lines


def _message(inner: str, label: str, text: str, layout: SpecLayout) -> list[str]:
    first, *rest = text.splitlines() or [""]
    if not layout.whole_messages:
        return [f"{inner}{label}{first}"]
    return [f"{inner}{label}{first}"] + [f"{inner}{' ' * len(label)}{line}" for line in rest]


def _word(prop: Mapping[str, Any], layout: SpecLayout) -> str:
    """The verdict word: the kind in capitals, and ``TESTED (21 of 100)`` when TESTED fell short of its target."""
    kind = str(prop.get("kind"))
    word = kind.upper()
    tested = prop.get("tested") or {}
    inside = (prop.get("counts") or {}).get("tested", 0)
    target = tested.get("target", 0)
    if layout.shortfall_in_word and kind == "tested" and target and inside < target and not tested.get("wholeDomain"):
        word = f"{word} ({inside} of {target})"
    return word


def _why(prop: Mapping[str, Any], layout: SpecLayout, cut: Callable[[str], str]) -> str:
    """What the verdict rests on, after its word and name."""
    kind = prop.get("kind")
    counts = prop.get("counts") or {}
    tested = prop.get("tested") or {}
    detail = prop.get("detail") or ""
    short = "; fewer than --min-inside inputs inside" if prop.get("belowMinInside") else ""
    if kind == "tested":
        if layout.beside_simulation:
            return (f"held on {counts.get('tested', 0)} distinct drawn inputs ({tested.get('draws', 0)} draws)"
                    + _checked_beside(prop) + short)
        return (f"held on {counts.get('tested', 0)} distinct inputs "
                f"({tested.get('draws', 0)} draws, {tested.get('edges', 0)} edges)"
                + (f"; {detail}" if detail else "") + short)
    if kind in ("refuted", "conflict"):
        return _counterexample_text(prop, cut) + (f"; {detail}" if detail and kind == "conflict" else "")
    if kind == "proven" and not layout.beside_simulation:
        engine = prop.get("engine") or {}
        held = f"; held on {counts['tested']} TESTED inputs" if counts.get("tested") else ""
        return f"by {engine.get('name', '?')} {engine.get('version', '')}".rstrip() + held
    if kind == "unknown":
        reasons = ", ".join(str(r) for r in prop.get("reasons") or []) or "unknown"
        return (f"{reasons}: {detail}" if detail else reasons) + short
    return detail + short


def _engine_lines(prop: Mapping[str, Any], cut: Callable[[str], str]) -> list[str]:
    """One line per engine answer: PROVEN with its assumptions, REFUTED with the replayed model, UNKNOWN with why."""
    out = []
    for answer in prop.get("engines") or []:
        if not isinstance(answer, Mapping):
            continue
        engine = answer.get("engine") or {}
        name = f"{engine.get('name', '?')} {engine.get('version', '')}".rstrip()
        kind = str(answer.get("kind"))
        detail = answer.get("detail") or ""
        if kind == "proven":
            out.append(f"{name}: PROVEN, assuming: " + "; ".join(str(a) for a in answer.get("assumptions") or []))
        elif kind == "refuted":
            cx = answer.get("counterexample") or {}
            args = ", ".join(show_encoded(a) for a in cx.get("args") or [])
            out.append(f"{name}: REFUTED, its model replayed on the real function: {prop.get('function') or '?'}"
                       f"({cut(args)}): {_outcome_text(cx.get('outcome') or {})}")
        else:
            reasons = ", ".join(str(r) for r in answer.get("reasons") or []) or "unknown"
            refused = answer.get("unsupported") or {}
            where = ""
            if refused:
                place = refused.get("file") or "?"
                if refused.get("function"):
                    place = f"{place} ({refused['function']})"
                where = f" [{refused.get('construct', '?')}, {place} line {refused.get('line', '?')}]"
            out.append(f"{name}: {kind.upper()} {reasons}{where}: {detail}".rstrip(": "))
    return out


def _checked_beside(prop: Mapping[str, Any]) -> str:
    """What CHECKED saw on the simulator's calls, after a TESTED verdict."""
    checked = prop.get("checked") or {}
    if checked.get("kind") == "checked":
        return f"; also held on {(prop.get('counts') or {}).get('checked', 0)} of the simulator's inputs"
    if checked:
        return f"; not CHECKED: {checked.get('detail') or 'no recorded call was inside the claim'}"
    return ""


def _counterexample_text(prop: Mapping[str, Any], cut: Callable[[str], str]) -> str:
    """``at TESTED: f(1, "a"): claim false``, and where the simulator made the call when it did."""
    cx = prop.get("counterexample") or {}
    rung = str(prop.get("rung") or "?").upper()
    args = ", ".join(show_encoded(a) for a in cx.get("args") or [])
    text = f"at {rung}: {prop.get('function') or '?'}({cut(args)}): {_outcome_text(cx.get('outcome') or {})}"
    call = cx.get("call")
    if isinstance(call, Mapping):
        text += " -- a call the simulator made"
        seen = call.get("firstSeen")
        if isinstance(seen, Mapping):
            text += (f" (first in run {seen.get('run', '?')}, {seen.get('invocation', '?')}"
                     f" before effect #{seen.get('ordinal', '?')}; it returned {cut(show_encoded(call.get('result')))})")
    return text


def _outcome_text(outcome: Mapping[str, Any]) -> str:
    kind = outcome.get("kind")
    if kind == "false":
        return "claim false"
    if kind == "threw":
        return f"{outcome.get('phase', 'ensures')} threw {outcome.get('name', '')}: {outcome.get('message', '')}".rstrip(": ")
    return str(kind or "failed")
