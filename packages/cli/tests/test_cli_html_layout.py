"""The HTML report as a reader opens it: four pages of real checks in headless Chromium at 1280x800.

Four checks of corpus cases write their pages with ``eutaxy check --html`` (runs capped, so
each takes seconds): a planted bug found with a fault (queue-duplicate-write), a bug an
interleaving alone shows (refund-lost-update), a fixed twin (BOUNDED) and the webhook
Worker with its payment API's charge reply left out (UNSUPPORTED, outbound_request).
Chromium opens each in a 1280x800 viewport (``chromium_page``, from the report package's
tests) and the element boxes say what a reader sees: the first effect the violation names
is inside the viewport as the page opens, nothing is wider than the viewport, no two
elements overlap (the help box included, and it can be dismissed), the navigation links
exactly the sections the page has, the comparison section is titled as the text report
titles it, and the provenance is a table of words, not JSON.

Each page's screenshot is kept with the test's outputs (Bazel's undeclared outputs, or the
test's tmp folder); ``EUTAXY_UPDATE_GOLDEN=1`` also writes the interleaving's over
docs/timeline.png, which the README shows.
"""

from __future__ import annotations

import html.parser
import io
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from eutaxy.cli.main import main
from eutaxy.report.text import render_text

# The browser driver is the report package's (//packages/report:test_support under Bazel).
sys.path.append(str(Path(__file__).resolve().parents[2] / "report" / "tests"))
import chromium_page

WIDTH, HEIGHT = 1280, 800
#: Enough runs for each planted bug to be found and shrunk, few enough for seconds a check.
MAX_RUNS = "20"
REPO = Path(__file__).resolve().parents[3]
#: The page docs/timeline.png is taken from.
DOCS_PAGE = "interleaving"

#: The corpus's webhook Worker whose payment API scripts no reply for the charge: its first request is UNSUPPORTED.
_UNSCRIPTED = '''\
from eutaxy.cloudflare import at_most_once_per_key, define_scenario, external, fetch_call, http

scenario = define_scenario(
    name="webhook-charge-unscripted",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    drive=http([{"method": "POST", "path": "/webhooks/order-paid", "body": {"orderId": "o-1", "amountCents": 1200}}],
               retries=0),
    externals=[external("payments-api", "api.pay.example",
                        responses=[{"method": "POST", "path": "/v1/refunds", "status": 200, "body": {}}])],
    invariants=[at_most_once_per_key("charged-once-per-order", fetch_call("payments-api"), "args.body.orderId")],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
'''

#: Page name -> (corpus case, its scenario file in the case folder (or written there), the exit code, the verdict).
PAGES = {
    "fault": ("queue-duplicate-write", "queue-duplicate-write.sim.py", 1, "violated"),
    "interleaving": ("refund-lost-update", "refund-lost-update.sim.py", 1, "violated"),
    "twin": ("queue-duplicate-write", "fixed/queue-duplicate-write-fixed.sim.py", 0, "bounded"),
    "unsupported": ("webhook-double-charge", "webhook-charge-unscripted.sim.py", 2, "unsupported"),
}


def _case(name: str) -> Path:
    for root in (Path.cwd(), REPO):
        if (root / "corpus" / "planted-bugs" / name).is_dir():
            return root / "corpus" / "planted-bugs" / name
    raise AssertionError(f"corpus/planted-bugs/{name} is not in the test's files")


@pytest.fixture(scope="module")
def pages(tmp_path_factory, toolchain) -> dict[str, tuple[Path, dict]]:
    """Each page's HTML file and its verdict, from one capped check of a copy of its corpus case."""
    chromium_page.chromium()  # skip or fail (as chromium_page says) before the checks, not after
    made = {}
    for page, (case, scenario, code, kind) in PAGES.items():
        folder = tmp_path_factory.mktemp(page) / case
        shutil.copytree(_case(case), folder, ignore=shutil.ignore_patterns("__pycache__", "*_regression_test.py", "test_*.py"))
        if page == "unsupported":
            (folder / scenario).write_text(_UNSCRIPTED, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        target = folder.parent / f"{page}.html"
        argv = ["check", str(folder / scenario), "--max-runs", MAX_RUNS, "--no-regression", "--json", "--html", str(target)]
        assert code == main(argv, stdout=out, stderr=err), err.getvalue()
        verdict = json.loads(out.getvalue())
        assert kind == verdict["kind"], verdict.get("cause")
        made[page] = (target, verdict)
    return made


class _Page(html.parser.HTMLParser):
    """The served page's navigation links, its sections (h2 id and text) and its provenance table's text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.sections: list[tuple[str, str]] = []
        self.provenance = ""
        self._open: list[str] = []
        self._in_table = 0
        self._text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and "nav" in self._open:
            self.links.append((attributes.get("href") or "", ""))
            self._text = []
        if tag == "h2":
            self.sections.append((attributes.get("id") or "", ""))
            self._text = []
        if tag == "table" and ("provenance" in (attributes.get("class") or "").split() or self._in_table):
            self._in_table += 1
        self._open.append(tag)

    def handle_endtag(self, tag):
        if self._open and self._open[-1] == tag:
            self._open.pop()
        if tag == "table" and self._in_table:
            self._in_table -= 1
        if self._text is not None and tag in ("a", "h2"):
            rows = self.links if tag == "a" else self.sections
            rows[-1] = (rows[-1][0], "".join(self._text).strip())
            self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if self._in_table:
            self.provenance += data + " "


def _outputs(tmp_path: Path) -> Path:
    return Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or tmp_path)


@pytest.mark.parametrize("page", list(PAGES))
def test_the_page_opens_on_the_named_effect_and_nothing_overlaps_at_1280x800(pages, page, tmp_path):
    """In a 1280x800 viewport: the first named effect is inside it, nothing is wider than it,
    no two element boxes overlap, and the help box shows and goes when dismissed."""
    path, verdict = pages[page]
    shot = _outputs(tmp_path) / f"timeline-{page}.png"
    opened = chromium_page.opened(path, tmp_path / "chromium", WIDTH, HEIGHT, shot=shot)
    assert {"width": WIDTH, "height": HEIGHT} == {k: opened["viewport"][k] for k in ("width", "height")}
    boxes = opened["boxes"]
    assert not chromium_page.overlaps(boxes), [(a["text"][:50], b["text"][:50]) for a, b in chromium_page.overlaps(boxes)]
    assert opened["scrollWidth"] <= WIDTH
    wider = [b["text"][:50] for b in boxes if b["left"] < -0.5 or b["right"] > WIDTH + 0.5]
    assert not wider, wider
    if verdict["kind"] == "violated":
        first = boxes[opened["firstNamed"]]
        assert 0 <= first["left"] and first["right"] <= WIDTH and 0 <= first["top"] and first["bottom"] <= HEIGHT, first
        assert opened["helpShown"] and opened["helpDismissed"]
    else:
        assert opened["firstNamed"] is None and not opened["helpShown"]
    assert shot.read_bytes().startswith(b"\x89PNG")
    if page == DOCS_PAGE and os.environ.get("EUTAXY_UPDATE_GOLDEN") == "1":
        shutil.copyfile(shot, REPO / "docs" / "timeline.png")


@pytest.mark.parametrize("page", list(PAGES))
def test_navigation_titles_and_provenance_read_as_the_text_report_does(pages, page):
    """The navigation links exactly the page's sections, the comparison is titled as the text
    report titles it (an interleaving by the interleaving), and the provenance is words in a table."""
    path, verdict = pages[page]
    served = _Page()
    served.feed(path.read_text(encoding="utf-8"))
    assert [href for href, _ in served.links] == [f"#{anchor}" for anchor, _ in served.sections]
    sections = dict(served.sections)
    expected = {"violated": ["timeline", "code", "fault-free", "state", "schedule", "provenance", "report"]}.get(
        verdict["kind"], ["provenance", "report"])
    assert expected == list(sections)
    if "code" in sections:
        # Each line the trace's effects name, with the Worker's own code around it.
        text = path.read_text(encoding="utf-8")
        places = sorted({f'{e["source"]["file"]}:{e["source"]["line"]}' for e in verdict["trace"] if "source" in e})
        assert places and all(f"<figcaption>{place}</figcaption><pre>" in text for place in places), places
    if "fault-free" in sections:
        title = sections["fault-free"]
        assert dict(served.links)["#fault-free"] == title
        assert f"\n{title} (" in render_text(verdict)
        changed = verdict["faultFree"]["changed"]
        assert ("interleaving" in title) == (changed == "turns"), (changed, title)
    for bound, value in verdict["provenance"]["bounds"].items():
        assert f"{bound} {value}" in " ".join(served.provenance.split())
    assert "{" not in served.provenance and "[" not in served.provenance, served.provenance
