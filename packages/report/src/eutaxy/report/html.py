"""The HTML report: the verdict as one self-contained page, the shrunk trace drawn as a timeline.

``eutaxy check --html report.html`` writes it. The page needs nothing but itself: the
style and the script are inline, nothing is fetched, so it opens offline and from a CI
artifact. It reads without JavaScript: the timeline is a CSS grid with one lane (row)
per invocation and one column per effect point in log order, which is virtual-time
order (each column is headed with its offset from the first effect); injected faults are
marked ``!!`` and outlined, the effects the violation names are highlighted, and every
point holds its full arguments and result in a ``<details>``. The sections after it give
what the fault changed, the state after the run, the schedule and the provenance. The
script only adds navigation: click or Tab to a point to see it whole in the side panel,
the arrow keys step through the log, ``f`` and ``n`` jump to the next fault and the next
named effect.

Like the text report it reads the typed verdict (plain data is structured first, and data
that does not read as a verdict gets the text report's account of why). The page holds no
date and no random id, so the same verdict gives the same bytes.
"""

from __future__ import annotations

import html
from typing import Any, Mapping

from eutaxy.core.canonical import to_json
from eutaxy.core.effect_points import fault_name, group_points, invocation_label
from eutaxy.core.effects import FAULT, SNAPSHOT, Effect
from eutaxy.core.faults import FAULT_MEANINGS
from eutaxy.core.invocation_outcomes import THREW, TIMED_OUT
from eutaxy.core.verdict_data import VerdictDataError, as_verdict, verdict_data
from eutaxy.core.verdicts import Bounded, SimulationVerdict, Unsupported, Violated, cause_explanation

from eutaxy.report.text import (
    CUTS_MEANING,
    _failure_text,
    _group_lines,
    _live,
    _violation_effects,
    cut_text,
    fault_free_outcome,
    render_text,
    undetermined_text,
)

__all__ = ["render_html"]

_WORDS = {"violated": "VIOLATED", "bounded": "BOUNDED", "unsupported": "UNSUPPORTED"}

_STYLE = """
:root { --fault: #b00020; --named: #ffe08a; --line: #c8ccd4; --ink: #1d2330; --muted: #5b6372; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--ink); margin: 0; padding: 1.2rem 1.6rem; background: #fafbfc; }
h1 { font-size: 1.35rem; margin: 0 0 .3rem; }
h1 .word { padding: .1rem .45rem; border-radius: 4px; color: #fff; background: #444; }
h1 .word.violated { background: var(--fault); } h1 .word.bounded { background: #2e7d32; }
h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; border-bottom: 1px solid var(--line); }
nav a { margin-right: 1rem; }
code, pre, .mono { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; }
.timeline { display: grid; gap: 6px; overflow-x: auto; padding-bottom: .6rem; align-items: start; }
.axis { font-size: 11px; color: var(--muted); text-align: center; border-bottom: 1px dashed var(--line); }
.lane { font-weight: 600; position: sticky; left: 0; background: #fafbfc; padding: .35rem .3rem; border-right: 2px solid var(--line); }
.point { border: 1px solid var(--line); border-radius: 5px; background: #fff; padding: .3rem .4rem; min-width: 11rem; max-width: 19rem; }
.point:focus, .point.selected { outline: 3px solid #3b6fd8; }
.point.named { background: var(--named); border-color: #c99a00; }
.point.faulted { border: 2px solid var(--fault); }
.point .what { font-weight: 600; }
.point .result { color: #2e5d2e; }
.fault { color: var(--fault); font-weight: 700; }
.legend span { margin-right: 1.2rem; }
.legend .swatch { display: inline-block; width: .9rem; height: .9rem; vertical-align: middle; border: 1px solid var(--line); margin-right: .3rem; }
table { border-collapse: collapse; margin: .3rem 0; }
td, th { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; vertical-align: top; }
#panel { position: fixed; right: 1rem; bottom: 1rem; width: 28rem; max-height: 45vh; overflow: auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .6rem; box-shadow: 0 2px 10px rgba(0,0,0,.15); display: none; }
body.navigable #panel { display: block; }
.hint { color: var(--muted); font-size: 12px; }
"""

_SCRIPT = """
(function () {
  var points = Array.prototype.slice.call(document.querySelectorAll('.timeline .point'));
  var panel = document.getElementById('panel');
  var current = -1;
  function select(index) {
    if (index < 0 || index >= points.length) return;
    if (current >= 0) points[current].classList.remove('selected');
    current = index;
    var point = points[index];
    point.classList.add('selected');
    point.focus();
    point.scrollIntoView({block: 'nearest', inline: 'nearest'});
    var detail = point.querySelector('details');
    panel.innerHTML = '';
    var head = document.createElement('div');
    head.className = 'what';
    head.textContent = point.getAttribute('data-invocation') + ' point ' + (index + 1) + ' of ' + points.length;
    panel.appendChild(head);
    if (detail) {
      var body = detail.cloneNode(true);
      body.open = true;
      panel.appendChild(body);
    }
  }
  function next(selector) {
    for (var i = current + 1; i < points.length; i++) {
      if (points[i].matches(selector)) { select(i); return; }
    }
  }
  points.forEach(function (point, index) {
    point.addEventListener('click', function () { select(index); });
    point.addEventListener('focus', function () { if (current !== index) select(index); });
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') { select(current + 1); event.preventDefault(); }
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') { select(current - 1); event.preventDefault(); }
    else if (event.key === 'f') { next('.faulted'); }
    else if (event.key === 'n') { next('.named'); }
  });
  document.body.classList.add('navigable');
  document.body.setAttribute('data-points', String(points.length));
  panel.textContent = 'Click a point, or use the arrow keys; f: next fault, n: next named effect.';
})();
"""


def render_html(verdict: SimulationVerdict | Mapping[str, Any]) -> str:
    """The verdict as one self-contained HTML page (no network); equal verdicts give equal text."""
    try:
        verdict = as_verdict(verdict)
    except VerdictDataError:
        return _unreadable_page(verdict)
    kind = verdict.kind
    scenario = verdict.scenario or "scenario"
    platform = verdict.platform
    where = f"{scenario} ({platform})" if platform else scenario
    word = _WORDS.get(kind, kind.upper() or "VERDICT")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(word)} {_e(where)}: Eutaxy</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<header><h1><span class="word {_e(kind)}">{_e(word)}</span> {_e(where)}</h1>',
        _headline_detail(verdict),
        "</header>",
        '<nav><a href="#timeline">Timeline</a><a href="#fault-free">What the fault changed</a>'
        '<a href="#state">State after the run</a><a href="#schedule">Schedule</a>'
        '<a href="#provenance">Provenance</a><a href="#report">Text report</a></nav>',
    ]
    if isinstance(verdict, Violated):
        parts += _timeline(verdict)
        parts += _fault_free(verdict)
        parts += _state(verdict)
        parts += _schedule(verdict)
    parts += _provenance(verdict)
    parts += [
        '<h2 id="report">Text report</h2>',
        # The page holds everything the verdict does, so every run's console output too.
        f'<pre class="mono">{_e(render_text(verdict, logs=True))}</pre>',
        '<aside id="panel" aria-live="polite"></aside>',
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _unreadable_page(data: Any) -> str:
    """Data that is not a verdict of this schema: the text report's account of it, escaped."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Eutaxy: an unreadable verdict</title></head><body>',
        f'<pre class="mono">{_e(render_text(data))}</pre>',
        "</body></html>",
    ]) + "\n"


def _e(value: Any) -> str:
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def _headline_detail(verdict: SimulationVerdict) -> str:
    if isinstance(verdict, Violated):
        violation = verdict.violation
        name = violation.invariant or "(unnamed invariant)"
        return f'<p>Invariant broken: <b>{_e(name)}</b> ({_e(violation.invariant_kind or "?")})</p><p class="mono">{_e(violation.message)}</p>'
    if isinstance(verdict, Unsupported):
        return (
            f'<p>Cause: <b>{_e(verdict.cause.kind or "unknown")}</b>: {_e(verdict.cause.detail)}</p>'
            f"<p>{_e(cause_explanation(verdict.cause.kind))}</p>"
        )
    assert isinstance(verdict, Bounded), verdict.kind
    return "<p>No invariant broke in the runs explored within the bounds below: bounded, not verified.</p>"


# ---------------------------------------------------------------------------- timeline


def _timeline(verdict: Violated) -> list[str]:
    live = _live(verdict.trace)
    groups = group_points(live)
    named = _violation_effects(verdict.violation)
    lanes: list[str] = []
    for group in groups:
        invocation = group[0][1].invocation
        if invocation not in lanes:
            lanes.append(invocation)
    start = min((effect.time for _, effect in live), default=None)
    lines = [
        '<h2 id="timeline">Timeline of the shrunk trace</h2>',
        '<p class="hint">One lane per invocation, one column per effect point in log (virtual-time) order'
        + f"; events kept: {_e(', '.join(verdict.kept_events))}"
        + ".</p>",
        '<p class="legend"><span><span class="swatch" style="background:var(--named)"></span>an effect the violation names</span>'
        '<span><span class="swatch" style="border:2px solid var(--fault)"></span>an injected fault (!!)</span></p>',
    ]
    if not groups:
        return lines + ["<p>(no effects)</p>"]
    columns = f"grid-template-columns: max-content repeat({len(groups)}, minmax(11rem, max-content));"
    lines.append(f'<div class="timeline" role="list" style="{columns}">')
    lines.append('<div class="axis" style="grid-row:1;grid-column:1">virtual time</div>')
    for column, group in enumerate(groups, start=2):
        label = f"+{group[0][1].time - start} ms" if start is not None else ""
        lines.append(f'<div class="axis" style="grid-row:1;grid-column:{column}">{_e(label)}</div>')
    # How each invocation that failed ended (its uncaught error is part of the trace), under its lane's name.
    failures = {one.invocation: _failure_text(one) for one in verdict.invocations if one.outcome in (THREW, TIMED_OUT)}
    for row, invocation in enumerate(lanes, start=2):
        failure = f'<div class="fault">{_e(failures[invocation])}</div>' if invocation in failures else ""
        lines.append(
            f'<div class="lane" style="grid-row:{row};grid-column:1" data-lane="{_e(invocation)}">{_e(invocation_label(invocation))}{failure}</div>'
        )
    for number, group in enumerate(groups):
        invocation = group[0][1].invocation
        lines.append(_point(group, number, lanes.index(invocation) + 2, number + 2, named))
    lines.append("</div>")
    return lines


def _point(group: list[tuple[int, Effect]], number: int, row: int, column: int, named: set[int]) -> str:
    head = group[0][1]
    invocation = head.invocation
    faults = [effect for _, effect in group if effect.kind == FAULT]
    classes = ["point"]
    if any(index in named for index, _ in group):
        classes.append("named")
    if faults:
        classes.append("faulted")
    first, *_ = _group_lines(group)
    what = f"#{head.ordinal} {head.target}" + (f" {head.op}" if head.op and head.kind != FAULT else "")
    summary = first[len(what):].strip() if first.startswith(what) else first
    fault_html = "".join(
        f'<div class="fault" data-fault="{_e(fault_name(f))}">!! {_e(fault_name(f))}'
        f'{_e(" (" + FAULT_MEANINGS[fault_name(f)] + ")") if fault_name(f) in FAULT_MEANINGS else ""}</div>'
        for f in faults
    )
    records = to_json([effect.to_data() for _, effect in group])
    return (
        f'<div class="{" ".join(classes)}" id="point-{number}" role="listitem" tabindex="0" style="grid-row:{row};grid-column:{column}"'
        f' data-invocation="{_e(invocation)}" data-target="{_e(head.target)}" data-op="{_e(head.op)}"'
        f' data-ordinal="{_e(head.ordinal)}">'
        f'<div class="what">{_e(what)}</div><div class="mono">{_e(summary)}</div>{fault_html}'
        f'<details><summary>records</summary><pre>{_e(records)}</pre></details></div>'
    )


# ---------------------------------------------------------------------------- sections


def _fault_free(verdict: Violated) -> list[str]:
    fault_free = verdict.fault_free
    lines = ['<h2 id="fault-free">What the fault changed</h2>']
    if fault_free is None:
        return lines + ["<p>This verdict carries no fault-free run.</p>"]
    changed = fault_free.changed
    if changed == "nothing":
        return lines + ["<p>Nothing: the shrunk run injects no fault and takes every turn in arrival order, "
                        "so the bug shows in a plain run of these events.</p>"]
    other = {"turns": "in arrival order", "batches": "with the platform's batches"}.get(changed, "without the faults")
    lines.append(f"<p>The same events run {_e(other)}. {_e(fault_free_outcome(fault_free, verdict))}</p>")
    split = fault_free.divergence
    if split is None:
        return lines + ["<p>Both runs log the same effects.</p>"]
    lines.append(f"<p>Both runs agree on the first {_e(split.agreed_points)} effect points, then part:</p>")
    ours = _cell_texts(split.violating)
    theirs = _cell_texts(split.fault_free)
    lines.append(f'<table class="divergence"><tr><th>in the trace</th><th>{_e(other)}</th></tr>')
    for row in range(max(len(ours), len(theirs))):
        left = ours[row] if row < len(ours) else ""
        right = theirs[row] if row < len(theirs) else ""
        lines.append(f'<tr><td class="mono">{_e(left)}</td><td class="mono">{_e(right)}</td></tr>')
    lines.append("</table>")
    return lines


def _cell_texts(effects: tuple[Effect, ...]) -> list[str]:
    cells = []
    for group in group_points(list(enumerate(effects))):
        first, *rest = _group_lines(group)
        cells.append(f"{invocation_label(group[0][1].invocation)} {first} " + " ".join(line.strip() for line in rest))
    return [cell.strip() for cell in cells]


def _state(verdict: Violated) -> list[str]:
    lines = ['<h2 id="state">State after the run</h2>']
    snapshots = [effect for effect in verdict.trace if effect.kind == SNAPSHOT]
    if not snapshots:
        return lines + ["<p>(no state snapshot)</p>"]
    for snapshot in snapshots:
        rows = list((snapshot.payload if isinstance(snapshot.payload, dict) else {}).get("rows") or [])
        title = f"{snapshot.target} {snapshot.op}"
        lines.append(f"<h3>{_e(title)}: {len(rows)} row{'' if len(rows) == 1 else 's'}</h3>")
        columns: list[str] = []
        for row in rows:
            for key in row if isinstance(row, dict) else []:
                if key not in columns:
                    columns.append(key)
        if not columns:
            lines += [f'<pre>{_e(to_json(row))}</pre>' for row in rows]
            continue
        lines.append('<table class="state"><tr>' + "".join(f"<th>{_e(c)}</th>" for c in columns) + "</tr>")
        for row in rows:
            lines.append("<tr>" + "".join(f'<td class="mono">{_e(to_json(row.get(c)))}</td>' for c in columns) + "</tr>")
        lines.append("</table>")
    return lines


def _schedule(verdict: Violated) -> list[str]:
    faults = verdict.schedule.faults
    turns = verdict.schedule.turns
    lines = ['<h2 id="schedule">Schedule (what the regression test replays)</h2>']
    if faults:
        lines.append("<ul>" + "".join(
            f"<li>{_e(f.invocation)} effect #{_e(f.ordinal)}: <span class=\"fault\">{_e(f.fault)}</span></li>"
            for f in faults) + "</ul>")
    else:
        lines.append("<p>No faults injected.</p>")
    if verdict.schedule.batches:
        lines.append("<ul>" + "".join(
            f"<li>{_e(b.invocation)}: short batch of {_e(b.size)}</li>" for b in verdict.schedule.batches) + "</ul>")
    if turns:
        lines.append(f"<p>Turn picks: <code>{_e(' '.join(str(t) for t in turns))}</code></p>")
    return lines


def _provenance(verdict: SimulationVerdict) -> list[str]:
    provenance = verdict_data(verdict)["provenance"]
    lines = ['<h2 id="provenance">Provenance</h2>', "<table>"]
    for field in sorted(k for k in provenance if k != "assumptions"):
        value = provenance[field]
        lines.append(f'<tr><th>{_e(field)}</th><td class="mono">{_e(value if isinstance(value, str) else to_json(value))}</td></tr>')
    lines.append("</table>")
    lines += _cuts(verdict)
    assumptions = provenance.get("assumptions") or []
    if assumptions:
        lines.append("<h3>Assumptions</h3><ul>" + "".join(
            f"<li>{_e(a if isinstance(a, str) else to_json(a))}</li>" for a in assumptions) + "</ul>")
    return lines


def _cuts(verdict: SimulationVerdict) -> list[str]:
    """Each bound that cut runs and each break a cut left undetermined, in the text report's words."""
    provenance = verdict.provenance
    if not provenance.cuts and not provenance.undetermined:
        return []
    items = [cut_text(count, provenance.runs) for count in provenance.cuts]
    items += [undetermined_text(count) for count in provenance.undetermined]
    return [
        f'<h3 id="cuts">Cuts</h3><p>{_e(CUTS_MEANING[0].upper() + CUTS_MEANING[1:])}.</p>',
        "<ul>" + "".join(f"<li>{_e(item)}</li>" for item in items) + "</ul>",
    ]
