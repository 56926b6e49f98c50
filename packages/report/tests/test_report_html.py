"""The HTML report: one self-contained page, the shrunk trace as a timeline, checked in a real browser.

The browser test renders hand-made verdicts, loads each page in headless Chromium
(``chromium_page``: Debian's ``chromium``, which tools/test installs) and reads the DOM
Chromium built after running the page's script: every invocation of the trace has a lane,
every effect point and every injected fault is drawn, and the script made the page
navigable. Under Bazel and in CI a missing Chromium fails the test (a pass must mean the
page was rendered); a plain pytest run without it skips, saying why. The layout of pages
from real checks at 1280x800 is the CLI's test (test_cli_html_layout.py).
"""

from __future__ import annotations

import html
import html.parser
import re

import chromium_page
import pytest
import report_verdicts as verdicts

from eutaxy.report.html import render_html
from eutaxy.report.text import render_text


class _Dom(html.parser.HTMLParser):
    """The rendered DOM's lanes, points (with their faults) and the body's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.lanes: list[str] = []
        self.points: list[dict] = []
        self.body: dict = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "body":
            self.body = attributes
        if "data-lane" in attributes:
            self.lanes.append(attributes["data-lane"])
        if "point" in classes and "data-invocation" in attributes:
            self.points.append({**attributes, "faults": [], "classes": classes})
        if "fault" in classes and "data-fault" in attributes and self.points:
            self.points[-1]["faults"].append(attributes["data-fault"])


def _rendered_dom(page, scratch) -> _Dom:
    dom = _Dom()
    dom.feed(chromium_page.rendered_dom(page, scratch))
    return dom


def _expected(verdict: dict) -> tuple[list[str], list[tuple[str, str, str]], list[tuple[str, str, str, str]]]:
    """From the trace data: invocations, effect points (invocation, target, ordinal) and faults."""
    live = [e for e in verdict["trace"] if e["kind"] != "snapshot"]
    invocations = list(dict.fromkeys(e["invocation"] for e in live))
    points = list(dict.fromkeys((e["invocation"], e["target"], str(e["ordinal"])) for e in live))
    faults = [(e["invocation"], e["target"], str(e["ordinal"]), e["payload"]["fault"]) for e in live if e["kind"] == "fault"]
    return invocations, points, faults


@pytest.mark.parametrize("make", [verdicts.violated_with_fault_free, verdicts.aws_violated], ids=["cloudflare", "aws"])
def test_every_invocation_effect_and_fault_is_drawn_in_headless_chromium(make, tmp_path):
    """Chromium's DOM has a lane per invocation, a point per effect point, each fault on its point."""
    verdict = make()
    page = tmp_path / "report.html"
    page.write_text(render_html(verdict), encoding="utf-8")
    dom = _rendered_dom(page, tmp_path)
    invocations, points, faults = _expected(verdict)
    assert invocations == dom.lanes
    drawn = [(p["data-invocation"], p["data-target"], p["data-ordinal"]) for p in dom.points]
    assert set(points) == set(drawn)
    assert sorted(faults) == sorted(
        (p["data-invocation"], p["data-target"], p["data-ordinal"], fault) for p in dom.points for fault in p["faults"]
    )
    named = {(verdict["trace"][i]["invocation"], verdict["trace"][i]["target"], str(verdict["trace"][i]["ordinal"]))
             for i in verdict["violation"]["effects"]}
    assert named == {(p["data-invocation"], p["data-target"], p["data-ordinal"]) for p in dom.points if "named" in p["classes"]}
    # The script ran: it marked the page navigable and counted the points it steps through.
    assert "navigable" in dom.body.get("class", "").split()
    assert str(len(dom.points)) == dom.body.get("data-points")


def test_the_page_is_self_contained_and_deterministic():
    """Nothing is fetched (no URL, no external script, style or image), and equal verdicts give equal bytes."""
    page = render_html(verdicts.violated_with_fault_free())
    assert page == render_html(verdicts.violated_with_fault_free())
    lowered = page.lower()
    for outside in ("http:", "https:", "<link", " src=", "@import", "url("):
        assert outside not in lowered, outside
    assert page.startswith("<!DOCTYPE html>")


def test_each_section_is_there_and_other_verdicts_render_without_a_timeline():
    """A violation gets the timeline, what the fault changed, state, schedule and provenance; BOUNDED gets provenance."""
    page = render_html(verdicts.violated_with_fault_free())
    for anchor in ('id="timeline"', 'id="fault-free"', 'id="state"', 'id="schedule"', 'id="provenance"'):
        assert anchor in page
    assert "<th>without the fault</th>" in page and "crash_after" in page
    bounded = render_html(verdicts.bounded())
    assert 'id="timeline"' not in bounded and 'id="provenance"' in bounded and "BOUNDED" in bounded
    assert "UNSUPPORTED" in render_html(verdicts.unsupported())
    unreadable = render_html({"kind": "violated", "trace": [3, {"kind": "call"}], "violation": None})
    assert "could not read the verdict" in unreadable and "expected Effect @ $.trace[0]" in unreadable


def _cut_bounded():
    """A BOUNDED verdict whose provenance names two cuts and one undetermined break."""
    bounded = verdicts.bounded()
    bounded["provenance"] = dict(
        bounded["provenance"],
        runs=40,
        boundsReached=["maxRuns", "maxRedeliveries", "alarmsPerObject"],
        cuts=[
            {"bound": "maxRedeliveries", "runs": 12, "cuts": 15, "limit": 2, "platformLimit": 3, "where": ["Queue:orders"], "left": ["msg-1"]},
            {"bound": "alarmsPerObject", "runs": 40, "cuts": 40, "limit": 3, "where": ["DO:ROOM/r1"], "left": ["alarm.4"]},
        ],
        undetermined=[{"invariant": "balance never negative", "runs": 5, "bounds": ["maxRedeliveries"]}],
    )
    return bounded


def test_the_provenance_section_names_each_cut_and_undetermined_break_in_the_text_reports_words():
    """The cuts and undetermined breaks are written out beside the bounds, as the text report words them."""
    page = render_html(_cut_bounded())
    provenance = page[page.index('id="provenance"'):page.index('id="report"')]
    assert 'id="cuts"' in provenance
    assert "<li>maxRedeliveries cut 12 of 40 runs: explored up to 2 redeliveries of 3 (Queue:orders; left undone: msg-1)</li>" in provenance
    assert "alarmsPerObject cut 40 of 40 runs: explored up to 3 alarms per object, the next left pending (DO:ROOM/r1; left undone: alarm.4)" in provenance
    assert "undetermined: invariant &#x27;balance never negative&#x27; broke in 5 runs cut by maxRedeliveries; not a violation" in provenance
    for plain in (verdicts.bounded(), verdicts.violated_with_fault_free()):
        assert 'id="cuts"' not in render_html(plain) and "undetermined:" not in render_html(plain)


def _nav(page: str) -> list[str]:
    nav = page[page.index("<nav>"):page.index("</nav>")]
    return [part.split('"', 1)[0] for part in nav.split('href="#')[1:]]


def test_the_navigation_links_only_the_sections_the_page_has():
    """BOUNDED and UNSUPPORTED link provenance and the text report only; a violation without a
    fault-free run has no comparison section and no link to one; every link has its section."""
    for verdict in (verdicts.bounded(), verdicts.unsupported()):
        assert ["provenance", "report"] == _nav(render_html(verdict))
    plain = render_html(verdicts.violated())
    assert ["timeline", "state", "schedule", "provenance", "report"] == _nav(plain)
    assert 'id="fault-free"' not in plain
    page = render_html(verdicts.violated_with_fault_free())
    assert ["timeline", "fault-free", "state", "schedule", "provenance", "report"] == _nav(page)
    for anchor in _nav(page):
        assert f'id="{anchor}"' in page


def test_the_comparison_is_titled_as_the_text_report_titles_it():
    """An interleaving's comparison is "What the interleaving changed" in both forms, a fault's "What the fault changed"."""
    faulted = verdicts.violated_with_fault_free()
    interleaved = verdicts.violated_with_fault_free()
    interleaved["faultFree"]["changed"] = "turns"
    interleaved["schedule"] = {"faults": [], "turns": [0, 1]}
    for verdict, title in ((faulted, "What the fault changed"), (interleaved, "What the interleaving changed")):
        page = render_html(verdict)
        assert f'<h2 id="fault-free">{title}</h2>' in page and f'<a href="#fault-free">{title}</a>' in page
        assert f"\n{title} (" in render_text(verdict)
    assert "in arrival order" in render_html(interleaved) and "fault changed" not in render_html(interleaved)


def test_the_provenance_is_a_table_of_words_with_the_bounds_as_a_table_of_their_own():
    """Fields in words (``faults injected``), the bounds one row each under their own names, lists
    joined, flags as yes or no: no JSON in the table."""
    bounded = verdicts.bounded()
    bounded["provenance"] = dict(bounded["provenance"], completed=True)
    page = render_html(bounded)
    table = page[page.index('<table class="provenance">'):page.index("<h3>Assumptions</h3>")]
    assert "<tr><th>faults injected</th><td>180</td></tr>" in table
    assert "<tr><th>distinct schedules</th><td>12</td></tr>" in table
    assert "<tr><th>completed</th><td>yes</td></tr>" in table
    assert "<tr><th>bounds reached</th><td>maxFaultsPerRun, maxRedeliveries</td></tr>" in table
    assert '<tr><th class="mono">maxRedeliveries</th><td>2</td></tr>' in table
    assert "{" not in table and "[" not in table


def _sourced(verdict, tmp_path):
    """The verdict with each effect placed in a worker.ts written under tmp_path, and its first invocation threw at line 6."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "worker.ts").write_text("".join(f"line {n} <of> the worker\n" for n in range(1, 13)), encoding="utf-8")
    for effect in verdict["trace"]:
        if effect["kind"] != "snapshot":
            effect["source"] = {"file": "src/worker.ts", "line": 4 if effect["ordinal"] == 0 else 9, "column": 3}
    first = verdict["trace"][0]["invocation"]
    verdict["invocations"] = [
        {"invocation": first, "drive": "queue", "outcome": "threw", "ordinal": 0, "error": {"name": "TypeError", "message": "boom", "at": "src/worker.ts:6"}},
    ]
    return verdict


def test_each_point_links_to_the_lines_around_its_source_read_from_the_users_file(tmp_path):
    """Each point names its line and links to its excerpt (three lines each side, its own marked); so does a lane's error."""
    page = render_html(_sourced(verdicts.violated_with_fault_free(), tmp_path), source_root=tmp_path)
    assert ["timeline", "code", "fault-free", "state", "schedule", "provenance", "report"] == _nav(page)
    assert '<a class="source" href="#src-0">src/worker.ts:4</a>' in page
    assert '<a class="source" href="#src-1">src/worker.ts:6</a>' in page
    excerpt = page[page.index('id="src-0"'):page.index("</figure>", page.index('id="src-0"'))]
    assert "<figcaption>src/worker.ts:4</figcaption>" in excerpt
    expected = "\n".join(
        f"<mark>{n} &gt; line {n} &lt;of&gt; the worker</mark>" if n == 4 else f"{n}   line {n} &lt;of&gt; the worker"
        for n in range(1, 8)
    )
    assert f"<pre>{expected}</pre>" in excerpt
    (tmp_path / "again").mkdir()
    assert page == render_html(_sourced(verdicts.violated_with_fault_free(), tmp_path / "again"), source_root=tmp_path)


def test_a_source_whose_file_cannot_be_read_is_named_without_code(tmp_path):
    """No root, or a file that is not there: the Code section names the line and says the file could not be read."""
    verdict = _sourced(verdicts.violated_with_fault_free(), tmp_path)
    for root in (None, tmp_path / "elsewhere"):
        page = render_html(verdict, source_root=root)
        assert "<figcaption>src/worker.ts:4</figcaption>" in page and "could not be read" in page
        assert "line 4 &lt;of&gt;" not in page
    assert "code" not in _nav(render_html(verdicts.violated_with_fault_free()))


def test_a_lane_names_a_later_attempt_by_the_drive_that_delivered_it():
    """An inbound request sent again is a resend on the page as in the text report, not a redelivery."""
    verdict = verdicts.violated()
    verdict["invocations"] = [{"invocation": "msg-1#1", "drive": "http", "outcome": "crashed", "ordinal": 0},
                              {"invocation": "msg-1#2", "drive": "http", "outcome": "returned", "ordinal": 1}]
    page = render_html(verdict)
    assert "msg-1#2 (resend)" in page and "msg-1#2 (redelivery)" not in page
    assert "msg-1#2 (redelivery)" in render_html(verdicts.violated())


def test_the_time_axis_reads_seconds_from_the_runs_start_as_the_text_report_writes_times():
    """Each column is headed with its time as the text report writes times (``+30 s``), never ``+N ms``."""
    verdict = verdicts.aws_violated()
    page = render_html(verdict)
    axis = re.findall(r'<div class="axis" style="grid-row:1;grid-column:\d+">([^<]*)</div>', page)
    assert axis == ["+0 s", "+0.001 s", "+0.002 s", "+0.003 s", "+30 s", "+30.001 s", "+30.002 s"]
    assert "(redelivery, at +30 s)" in render_text(verdict)


@pytest.mark.parametrize("make", [verdicts.bounded, verdicts.violated, verdicts.unsupported])
def test_the_header_is_the_text_reports_headline(make):
    """The page opens with the text report's first line, and a BOUNDED page with what the text
    report says under it (the runs, why it is no proof), not a sentence of its own."""
    verdict = make()
    page = render_html(verdict)
    header = html.unescape(re.sub(r"<[^>]+>", "\n", page[page.index("<header>"):page.index("</header>")]))
    paragraphs = [" ".join(part.split()) for part in header.split("\n") if part.strip()]
    text = render_text(verdict).split("\n\n")
    word, rest = text[0].split("  ", 1)
    assert paragraphs[:2] == [word, rest]
    if verdict["kind"] == "bounded":
        said = text[1].splitlines()
        assert said[0].startswith("No invariant broke in 200 runs")
        assert " ".join(paragraphs[2:]) == " ".join(said)


def test_a_point_card_is_named_as_the_text_report_names_it_one_ordinal_per_effect():
    """A Core decision carries the ordinal of the point after it: its card, like its text line, has none."""
    verdict = verdicts.violated()
    verdict["trace"] = [
        {"target": "Core:decideRefund", "op": "decideRefund", "kind": "decision",
         "payload": {"args": [{"amount": 5}], "result": "refund"}, "invocation": "req-1#1", "ordinal": 0, "time": verdicts.START_MS},
        {"target": "D1:DB", "op": "run", "kind": "call", "payload": {"args": {"sql": "UPDATE x", "params": []}},
         "invocation": "req-1#1", "ordinal": 0, "time": verdicts.START_MS},
        {"target": "D1:DB", "op": "run", "kind": "result", "payload": {"args": {"sql": "UPDATE x", "params": []}, "result": {"changes": 1}},
         "invocation": "req-1#1", "ordinal": 0, "time": verdicts.START_MS},
    ]
    verdict["violation"]["effects"] = []
    names = re.findall(r'<div class="what">([^<]*)</div>', render_html(verdict))
    assert names == ["Core:decideRefund decideRefund decision", "#0 D1:DB run"]
