"""The HTML report: the verdict as one self-contained page, the shrunk trace drawn as a timeline.

``eutaxy check --html report.html`` writes it. The page needs nothing but itself: the
style and the script are inline, nothing is fetched, so it opens offline and from a CI
artifact. It reads without JavaScript: the timeline is a CSS grid with one lane (row)
per invocation and one column per effect point in log order, which is virtual-time
order (each column is headed with its time from the run's start in seconds, as the text
report writes times: ``+0.003 s``); injected faults are
marked ``!!`` and outlined, the effects the violation names are highlighted, and every
point holds its full arguments and result in a ``<details>``. Each point the user's code
made links to the lines around its source in the Code section (read from the user's file
when the page is rendered, ``excerpts.py``), as does an uncaught error's line. The sections after it give
the comparison with the fault-free run (titled as the text report titles it: what the
fault, the short batch or the interleaving changed), the state after the run, the
schedule and the provenance (a table of its fields in words); the navigation links only
the sections the page has. The script wraps the timeline's columns onto further lines so
that the lanes fit the window, opens the page on the first named effect, and adds
navigation: click or Tab to a point to see it whole in the panel under the timeline (in
the page's flow, so it covers nothing; its help line can be dismissed), the arrow keys
step through the log, ``f`` and ``n`` jump to the next fault and the next named effect.

Like the text report it reads the typed verdict (plain data is structured first, and data
that does not read as a verdict gets the text report's account of why). The page holds no
date and no random id, so the same verdict gives the same bytes.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any, Mapping

from eutaxy.core.canonical import to_json
from eutaxy.core.effect_points import fault_name, group_points, seconds_text
from eutaxy.core.effects import FAULT, SNAPSHOT, Effect
from eutaxy.core.faults import FAULT_MEANINGS
from eutaxy.core.verdict_data import VerdictDataError, as_verdict, verdict_data
from eutaxy.core.verdicts import Bounded, SimulationVerdict, Unsupported, Violated, cause_explanation

from eutaxy.report.excerpts import Excerpt, excerpts, place_of
from eutaxy.report.text import (
    CUTS_MEANING,
    _failure_text,
    _group_lines,
    _label,
    _live,
    _point as _text_point,
    _start_ms,
    _styled,
    _violation_effects,
    bounded_summary,
    cut_text,
    fault_free_heading,
    fault_free_outcome,
    headline_parts,
    render_text,
    undetermined_text,
)

__all__ = ["render_html"]


_STYLE = """
:root { --fault: #b00020; --named: #ffe08a; --line: #c8ccd4; --ink: #1d2330; --muted: #5b6372; --card: 13rem; }
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
.timeline.fitted { overflow-x: visible; }
.axis { font-size: 11px; color: var(--muted); text-align: center; border-bottom: 1px dashed var(--line); }
.axis.later { margin-top: 1rem; }
.lane { font-weight: 600; position: sticky; left: 0; background: #fafbfc; padding: .35rem .3rem; border-right: 2px solid var(--line);
  max-width: 14rem; overflow-wrap: anywhere; }
.point { border: 1px solid var(--line); border-radius: 5px; background: #fff; padding: .3rem .4rem;
  min-width: var(--card); max-width: 19rem; overflow-wrap: anywhere; }
.timeline.fitted .point { min-width: 0; max-width: none; }
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
table.provenance > tbody > tr > th { white-space: nowrap; background: #f0f2f5; }
table.inner { margin: 0; }
table.inner th, table.inner td { border-color: #e1e4ea; font-weight: normal; padding: .1rem .4rem; vertical-align: baseline; }
#panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .6rem; margin: .4rem 0 0; }
#panel[hidden] { display: none; }
#help { margin: 0; }
#help button { margin-left: .6rem; font: inherit; font-size: 12px; }
.hint { color: var(--muted); font-size: 12px; }
a.source { font-family: ui-monospace, monospace; font-size: 11px; }
.excerpt { margin: .5rem 0; } .excerpt figcaption { font-family: ui-monospace, monospace; font-weight: 600; }
.excerpt pre { background: #fff; border: 1px solid var(--line); padding: .3rem .5rem; overflow-x: auto; white-space: pre; }
.excerpt mark { background: var(--named); }
"""

# The script adds only what a reader does with the page: the timeline's columns wrap onto
# further lines (each with the lanes' names again) so that the lanes fit the window's width,
# the page opens on the first effect the violation names, and clicks, Tab or the keys
# select a point to read whole in the panel under the timeline (whose help line the
# reader may dismiss); it sits in the page's flow, so it covers nothing.
_SCRIPT = """
(function () {
  var timeline = document.querySelector('.timeline');
  if (!timeline) return;
  var points = Array.prototype.slice.call(timeline.querySelectorAll('.point'));
  var lanes = Array.prototype.slice.call(timeline.querySelectorAll('.lane'));
  var axes = Array.prototype.slice.call(timeline.querySelectorAll('.axis'));
  var corner = axes.shift();
  var served = timeline.getAttribute('style');
  var panel = document.getElementById('panel');
  var selected = document.getElementById('selected');
  var current = -1;
  function put(element, row, column) {
    element.style.gridRow = String(row);
    element.style.gridColumn = String(column);
  }
  function repeat(element) {
    var copy = element.cloneNode(true);
    copy.classList.add('repeat');
    copy.removeAttribute('data-lane');
    copy.setAttribute('aria-hidden', 'true');
    timeline.appendChild(copy);
    return copy;
  }
  function fit() {
    Array.prototype.slice.call(timeline.querySelectorAll('.repeat')).forEach(function (copy) { copy.remove(); });
    timeline.classList.remove('fitted');
    timeline.setAttribute('style', served);
    var label = 0;
    lanes.forEach(function (lane) { label = Math.max(label, lane.getBoundingClientRect().width); });
    var card = parseFloat(getComputedStyle(points[0]).minWidth) || 200;
    var gap = parseFloat(getComputedStyle(timeline).columnGap) || 0;
    var room = timeline.clientWidth - label - gap;
    var perLine = Math.max(1, Math.min(axes.length, Math.floor((room + gap) / (card + gap))));
    var rows = lanes.length + 1;
    timeline.classList.add('fitted');
    timeline.style.gridTemplateColumns = 'max-content repeat(' + perLine + ', minmax(0, 1fr))';
    for (var line = 0; line * perLine < axes.length; line++) {
      var head = line === 0 ? corner : repeat(corner);
      head.classList.toggle('later', line > 0);
      put(head, line * rows + 1, 1);
      lanes.forEach(function (lane, index) { put(line === 0 ? lane : repeat(lane), line * rows + 2 + index, 1); });
    }
    axes.forEach(function (axis, column) {
      axis.classList.toggle('later', column >= perLine);
      put(axis, Math.floor(column / perLine) * rows + 1, column % perLine + 2);
    });
    points.forEach(function (point) {
      var column = Number(point.getAttribute('data-column'));
      put(point, Math.floor(column / perLine) * rows + 2 + Number(point.getAttribute('data-row')), column % perLine + 2);
    });
    timeline.setAttribute('data-per-line', String(perLine));
  }
  function select(index) {
    if (index < 0 || index >= points.length) return;
    if (current >= 0) points[current].classList.remove('selected');
    current = index;
    var point = points[index];
    point.classList.add('selected');
    point.focus({preventScroll: true});
    point.scrollIntoView({block: 'nearest', inline: 'nearest'});
    var detail = point.querySelector('details');
    selected.innerHTML = '';
    var head = document.createElement('div');
    head.className = 'what';
    head.textContent = point.getAttribute('data-invocation') + ' point ' + (index + 1) + ' of ' + points.length;
    selected.appendChild(head);
    if (detail) {
      var body = detail.cloneNode(true);
      body.open = true;
      selected.appendChild(body);
    }
    var link = point.querySelector('a.source');
    var excerpt = link && document.getElementById(link.getAttribute('href').slice(1));
    if (excerpt) {
      var copy = excerpt.cloneNode(true);
      copy.removeAttribute('id');
      selected.appendChild(copy);
    }
    panel.hidden = false;
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
    var inTimeline = points.indexOf(document.activeElement) >= 0;
    if (inTimeline && (event.key === 'ArrowRight' || event.key === 'ArrowDown')) { select(current + 1); event.preventDefault(); }
    else if (inTimeline && (event.key === 'ArrowLeft' || event.key === 'ArrowUp')) { select(current - 1); event.preventDefault(); }
    else if (event.key === 'f') { next('.faulted'); }
    else if (event.key === 'n') { next('.named'); }
  });
  document.getElementById('dismiss').addEventListener('click', function () {
    var help = document.getElementById('help');
    help.parentNode.removeChild(help);
    panel.hidden = !selected.firstChild;
  });
  fit();
  window.addEventListener('resize', fit);
  panel.hidden = false;
  document.body.classList.add('navigable');
  document.body.setAttribute('data-points', String(points.length));
  // Open on the first effect the violation names, unless the address names a section.
  var first = timeline.querySelector('.point.named');
  if (first && !window.location.hash) {
    var box = first.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight || box.left < 0 || box.right > window.innerWidth) {
      first.scrollIntoView({block: 'center', inline: 'nearest'});
    }
  }
})();
"""

def render_html(verdict: SimulationVerdict | Mapping[str, Any], *, source_root: str | Path | None = None) -> str:
    """The verdict as one self-contained HTML page (no network); equal verdicts give equal text.

    ``source_root`` is the project's folder, which the sources in the verdict are relative
    to (the Worker's config folder, the AWS scenario's): the Code section's excerpts are read
    from the files there. None: the Code section names each line without its code.
    """
    try:
        verdict = as_verdict(verdict)
    except VerdictDataError:
        return _unreadable_page(verdict)
    kind = verdict.kind
    word, where, tail = headline_parts(verdict)
    sections: list[tuple[str, str, list[str]]] = []
    if isinstance(verdict, Violated):
        code = _excerpts(verdict, source_root)
        # Lanes and cells are drawn as the text report draws them (resends named, keys kept in cuts).
        with _styled(verdict):
            sections.append(("timeline", "Timeline", _timeline(verdict, code)))
            if code:
                sections.append(("code", "Code", _code(code)))
            if verdict.fault_free is not None:
                sections.append(("fault-free", fault_free_heading(verdict).title, _fault_free(verdict)))
        sections.append(("state", "State after the run", _state(verdict)))
        sections.append(("schedule", "Schedule", _schedule(verdict)))
    sections.append(("provenance", "Provenance", _provenance(verdict)))
    sections.append(("report", "Text report", [
        '<h2 id="report">Text report</h2>',
        # The page holds everything the verdict does, so every run's console output too.
        f'<pre class="mono">{_e(render_text(verdict, logs=True))}</pre>',
    ]))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(word)} {_e(where)}: Eutaxy</title>",
        f"<style>{_STYLE}</style></head><body>",
        # The text report's headline: its first line, then (BOUNDED) what the verdict rests on.
        f'<header><h1><span class="word {_e(kind)}">{_e(word)}</span> {_e(where)}: {_e(tail)}</h1>',
        _headline_detail(verdict),
        "</header>",
        # Only the sections this page has, under the titles they carry.
        "<nav>" + "".join(f'<a href="#{anchor}">{_e(title)}</a>' for anchor, title, _ in sections) + "</nav>",
    ]
    for _, _, lines in sections:
        parts += lines
    if isinstance(verdict, Violated) and verdict.trace:
        parts.append(f"<script>{_SCRIPT}</script>")
    parts.append("</body></html>")
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
    return "".join(f"<p>{_e(paragraph.replace(chr(10), ' '))}</p>" for paragraph in bounded_summary(verdict))


# ---------------------------------------------------------------------------- timeline


def _timeline(verdict: Violated, code: list[Excerpt]) -> list[str]:
    live = _live(verdict.trace)
    anchors = {excerpt.place: f"src-{number}" for number, excerpt in enumerate(code)}
    groups = group_points(live)
    named = _violation_effects(verdict.violation)
    lanes: list[str] = []
    for group in groups:
        invocation = group[0][1].invocation
        if invocation not in lanes:
            lanes.append(invocation)
    # Times as the text report writes them: seconds from the run's start (+0.003 s).
    start = _start_ms(live)
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
    columns = f"grid-template-columns: max-content repeat({len(groups)}, minmax(var(--card), max-content));"
    lines.append(f'<div class="timeline" role="list" style="{columns}">')
    lines.append('<div class="axis corner" style="grid-row:1;grid-column:1">virtual time</div>')
    for column, group in enumerate(groups, start=2):
        label = seconds_text(group[0][1].time - start) if start is not None else ""
        lines.append(f'<div class="axis" style="grid-row:1;grid-column:{column}">{_e(label)}</div>')
    # How each invocation that failed ended (its uncaught error is part of the trace), under its lane's name.
    failed = {one.invocation: one for one in verdict.invocations if one.own_failure}
    for row, invocation in enumerate(lanes, start=2):
        failure = ""
        if invocation in failed:
            error = failed[invocation].error
            link = _source_link(error.at, anchors) if error is not None and error.at else ""
            failure = f'<div class="fault">{_e(_failure_text(failed[invocation]))}</div>{link}'
        lines.append(
            f'<div class="lane" style="grid-row:{row};grid-column:1" data-lane="{_e(invocation)}">{_e(_label(invocation))}{failure}</div>'
        )
    for number, group in enumerate(groups):
        invocation = group[0][1].invocation
        lines.append(_point(group, number, lanes.index(invocation), named, anchors))
    lines.append("</div>")
    # Under the timeline, in the page's flow (it covers nothing): the point the reader selected, read whole.
    lines.append('<aside id="panel" aria-live="polite" hidden><p id="help" class="hint">Click a point or Tab to it, '
                 "then the arrow keys step through the log; f: next fault, n: next named effect."
                 '<button type="button" id="dismiss">Dismiss</button></p><div id="selected"></div></aside>')
    return lines


def _point(group: list[tuple[int, Effect]], number: int, lane: int, named: set[int], anchors: Mapping[str, str]) -> str:
    """One effect point's card in its lane's row (``data-row``, from 0) and its column (``data-column``, log order)."""
    head = group[0][1]
    source = next((effect.source for _, effect in group if effect.source is not None), None)
    link = _source_link(source.text(), anchors) if source is not None else ""
    invocation = head.invocation
    faults = [effect for _, effect in group if effect.kind == FAULT]
    classes = ["point"]
    if any(index in named for index, _ in group):
        classes.append("named")
    if faults:
        classes.append("faulted")
    first, *_ = _group_lines(group)
    # Named as the text report names it: one ordinal per effect in its invocation (a Core
    # decision has none of its own), a result after nested points as `end of #0`.
    what = _text_point(group).key
    summary = first[len(what):].strip() if first.startswith(what) else first
    fault_html = "".join(
        f'<div class="fault" data-fault="{_e(fault_name(f))}">!! {_e(fault_name(f))}'
        f'{_e(" (" + FAULT_MEANINGS[fault_name(f)] + ")") if fault_name(f) in FAULT_MEANINGS else ""}</div>'
        for f in faults
    )
    records = to_json([effect.to_data() for _, effect in group])
    return (
        f'<div class="{" ".join(classes)}" id="point-{number}" role="listitem" tabindex="0" style="grid-row:{lane + 2};grid-column:{number + 2}"'
        f' data-row="{lane}" data-column="{number}" data-invocation="{_e(invocation)}" data-target="{_e(head.target)}" data-op="{_e(head.op)}"'
        f' data-ordinal="{_e(head.ordinal)}">'
        f'<div class="what">{_e(what)}</div><div class="mono">{_e(summary)}</div>{fault_html}{link}'
        f'<details><summary>records</summary><pre>{_e(records)}</pre></details></div>'
    )


def _source_link(place: str, anchors: Mapping[str, str]) -> str:
    """A link from a point (or a lane's error) to its line's excerpt in the Code section."""
    anchor = anchors.get(place)
    return f'<div><a class="source" href="#{_e(anchor)}">{_e(place)}</a></div>' if anchor else ""


# ---------------------------------------------------------------------------- code


def _excerpts(verdict: Violated, root: str | Path | None) -> list[Excerpt]:
    """The excerpts of every line the trace names: each effect's source and each uncaught error's line."""
    places = [(effect.source.file, effect.source.line) for _, effect in _live(verdict.trace) if effect.source is not None]
    for one in verdict.invocations:
        place = place_of(one.error.at) if one.error is not None and one.error.at else None
        if place is not None:
            places.append(place)
    return excerpts(places, root)


def _code(code: list[Excerpt]) -> list[str]:
    lines = [
        '<h2 id="code">Code</h2>',
        '<p class="hint">The lines of your code that made the trace\'s effects (and threw its errors), '
        "read from the files when this page was written.</p>",
    ]
    for number, excerpt in enumerate(code):
        if not excerpt.lines:
            body = '<p class="hint">(the file could not be read when this page was written)</p>'
        else:
            width = len(str(excerpt.lines[-1][0]))
            body = "<pre>" + "\n".join(
                (f"<mark>{_e(f'{line:>{width}} > {text}')}</mark>" if line == excerpt.line else _e(f"{line:>{width}}   {text}"))
                for line, text in excerpt.lines
            ) + "</pre>"
        lines.append(f'<figure class="excerpt" id="src-{number}"><figcaption>{_e(excerpt.place)}</figcaption>{body}</figure>')
    return lines


# ---------------------------------------------------------------------------- sections


def _fault_free(verdict: Violated) -> list[str]:
    """The trace beside the same events run without what set it apart, titled as the text report titles it."""
    fault_free = verdict.fault_free
    assert fault_free is not None
    heading = fault_free_heading(verdict)
    lines = [f'<h2 id="fault-free">{_e(heading.title)}</h2>']
    if fault_free.changed == "nothing":
        return lines + ["<p>Nothing: the shrunk run injects no fault and takes every turn in arrival order, "
                        "so the bug shows in a plain run of these events.</p>"]
    run = heading.run[0].upper() + heading.run[1:]
    lines.append(f"<p>{_e(run)}. {_e(fault_free_outcome(fault_free, verdict))}</p>")
    split = fault_free.divergence
    if split is None:
        same = "Both runs log the same effects" + ("; only the state after them differs." if fault_free.state_differs else ".")
        return lines + [f"<p>{same}</p>"]
    agreed = max(split.agreed_points, 0)
    lines.append("<p>" + ("The runs part at the first effect point:" if agreed == 0
                          else "Both runs agree on the first effect point, then part:" if agreed == 1
                          else f"Both runs agree on the first {agreed} effect points, then part:") + "</p>")
    ours = _cell_texts(split.violating)
    theirs = _cell_texts(split.fault_free)
    lines.append(f'<table class="divergence"><tr><th>{_e(heading.left)}</th><th>{_e(heading.right)}</th></tr>')
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
        cells.append(f"{_label(group[0][1].invocation)} {first} " + " ".join(line.strip() for line in rest))
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


#: The provenance fields in reading order (what ran, how it was cut, how it shrank); any other field follows by name.
_PROVENANCE_ORDER = ("seed", "runs", "schedules", "faultsInjected", "schedulePoints", "completed", "bounds", "boundsReached",
                     "replayed", "notReplayed", "shrinkReplays", "shrinkCapped", "shrinkPasses")
#: Provenance fields the page words elsewhere: the assumptions' list, and the cuts' section in the text report's words.
_PROVENANCE_ELSEWHERE = ("assumptions", "cuts", "undetermined")
#: Field names whose words alone would mislead (the text report's words for them).
_PROVENANCE_LABELS = {"schedules": "distinct schedules"}


def _provenance(verdict: SimulationVerdict) -> list[str]:
    """The provenance as a table of its fields in words, nested values as tables of their own (never raw JSON)."""
    provenance = verdict_data(verdict)["provenance"]
    fields = [f for f in _PROVENANCE_ORDER if f in provenance]
    fields += sorted(f for f in provenance if f not in fields and f not in _PROVENANCE_ELSEWHERE)
    lines = ['<h2 id="provenance">Provenance</h2>', '<table class="provenance">']
    for field in fields:
        lines.append(f"<tr><th>{_e(_field_words(field))}</th><td>{_value_html(provenance[field])}</td></tr>")
    lines.append("</table>")
    lines += _cuts(verdict)
    assumptions = provenance.get("assumptions") or []
    if assumptions:
        lines.append("<h3>Assumptions</h3><ul>" + "".join(
            f"<li>{_e(a if isinstance(a, str) else to_json(a))}</li>" for a in assumptions) + "</ul>")
    return lines


def _field_words(field: str) -> str:
    """``faultsInjected`` -> ``faults injected``."""
    return _PROVENANCE_LABELS.get(field) or re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", field).lower()


def _value_html(value: Any) -> str:
    """A provenance value for reading: words for scalars, a list joined, a mapping as a two-column table
    (its keys as written, such as a bound's name), a list of records as a table with a column per field."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return '<table class="inner">' + "".join(
            f'<tr><th class="mono">{_e(key)}</th><td>{_value_html(item)}</td></tr>' for key, item in value.items()) + "</table>"
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        if all(isinstance(item, Mapping) for item in value):
            columns = list(dict.fromkeys(key for item in value for key in item))
            head = "".join(f"<th>{_e(_field_words(key))}</th>" for key in columns)
            rows = "".join("<tr>" + "".join(f"<td>{_value_html(item.get(key))}</td>" for key in columns) + "</tr>" for item in value)
            return f'<table class="inner"><tr>{head}</tr>{rows}</table>'
        return _e(", ".join(item if isinstance(item, str) else to_json(item) for item in value))
    return _e(value if isinstance(value, str) else to_json(value))


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
