"""Headless Chromium for the HTML report's tests: a page's DOM after its script ran, its element boxes, a screenshot.

Chromium is Debian's ``chromium``, which tools/test installs before ``bazel test``. Under
Bazel (``TEST_SRCDIR`` is set) or in CI (``CI`` is set) a missing Chromium fails the test:
a pass there must mean the page was rendered. A plain pytest run on a developer machine
without it skips, saying so.

The boxes are read by the page itself: a copy of it gets one more script after its own,
which measures the elements a reader sees (``getBoundingClientRect``, after the page's
script laid the timeline out and scrolled), presses the help box's Dismiss button, and
writes what it found as JSON into the DOM, which ``--dump-dom`` prints.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

#: Seconds Chromium may take to load a local page on a busy CI machine (a run takes about two).
CHROMIUM_TIMEOUT_S = 120

#: The elements whose boxes must not overlap one another (unless one holds the other).
BOXED = (
    "header h1, header p, nav a, h2, h3, body > p, .hint, .legend, .timeline .axis, .timeline .lane, .timeline .point,"
    " #panel, table.provenance, table.divergence, table.state, body > pre, body > ul"
)

#: Measures the page as it opened (viewport coordinates), then presses the help box's Dismiss button.
_MEASURE = """
(function () {
  var found = Array.prototype.slice.call(document.querySelectorAll(%s));
  var boxes = found.map(function (element, index) {
    var box = element.getBoundingClientRect();
    var holders = [];
    for (var up = element.parentElement; up; up = up.parentElement) {
      var at = found.indexOf(up);
      if (at >= 0) holders.push(at);
    }
    return {index: index, tag: element.tagName.toLowerCase(), id: element.id, classes: String(element.className),
            text: (element.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 80),
            left: box.left, top: box.top, right: box.right, bottom: box.bottom, holders: holders};
  });
  var first = document.querySelector('.timeline .point.named');
  var panel = document.getElementById('panel');
  var dismiss = document.getElementById('dismiss');
  var helpShown = !!document.getElementById('help') && !!panel && !panel.hidden;
  if (dismiss) dismiss.click();
  return {
    viewport: {width: window.innerWidth, height: window.innerHeight, scrollX: window.scrollX, scrollY: window.scrollY},
    scrollWidth: document.documentElement.scrollWidth,
    firstNamed: first ? found.indexOf(first) : null,
    helpShown: helpShown,
    helpDismissed: helpShown && !document.getElementById('help') && panel.hidden,
    boxes: boxes
  };
})()
"""


def required() -> bool:
    """Chromium must be there: under Bazel (tools/test installs it first) or in CI."""
    return bool(os.environ.get("TEST_SRCDIR") or os.environ.get("CI"))


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is not None:
        return found
    why = "chromium is not installed (apt-get install -y chromium; tools/test installs it)"
    if required():
        pytest.fail(why + ": under Bazel and in CI the HTML report's browser tests must run")
    pytest.skip(why + ": the HTML report's browser tests run under Bazel and in CI")


def _run(page: Path, scratch: Path, *flags: str) -> subprocess.CompletedProcess:
    # Chromium's own sandbox needs namespaces Bazel's sandbox and containers do not give;
    # the page is our own local file, so it runs without it, with a profile in scratch.
    scratch.mkdir(parents=True, exist_ok=True)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    result = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         f"--user-data-dir={scratch / 'profile'}", *flags, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S, env={**os.environ, "HOME": str(home)},
    )
    assert 0 == result.returncode, result.stderr[-2000:]
    return result


def rendered_dom(page: Path, scratch: Path) -> str:
    """The DOM Chromium built after running the page's script, as HTML."""
    return _run(page, scratch, "--dump-dom").stdout


def opened(page: Path, scratch: Path, width: int, height: int, shot: Path | None = None) -> dict:
    """The page as it opens in a ``width`` x ``height`` viewport: its element boxes (and a PNG of it at ``shot``).

    Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``:
    commands on its fd 3, answers on its fd 4, each a JSON text ended by a NUL), which
    sets the viewport exactly, waits for the page's load event, then takes the screenshot
    and runs the measuring script in the page.
    """
    with _Browser(scratch) as browser:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        browser.call("Page.enable", {}, session)
        browser.call("Page.navigate", {"url": page.resolve().as_uri()}, session)
        browser.event("Page.loadEventFired", session)
        if shot is not None:
            data = browser.call("Page.captureScreenshot", {"format": "png"}, session)["data"]
            shot.parent.mkdir(parents=True, exist_ok=True)
            shot.write_bytes(base64.b64decode(data))
        answer = browser.call("Runtime.evaluate", {"expression": _MEASURE % json.dumps(BOXED), "returnByValue": True}, session)
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"]["value"]


class _Browser:
    """Headless Chromium spoken to over the DevTools protocol on a pipe; events are kept until asked for."""

    def __init__(self, scratch: Path) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        home = scratch / "home"
        home.mkdir(exist_ok=True)
        commands, self._to_browser = os.pipe()
        self._from_browser, answers = os.pipe()

        def onto_3_and_4() -> None:
            # Copies first, so that moving one onto 3 or 4 never closes the other.
            incoming, outgoing = os.dup(commands), os.dup(answers)
            os.dup2(incoming, 3)
            os.dup2(outgoing, 4)

        self._log = scratch / "chromium.log"
        self._process = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={scratch / 'profile'}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log.open("wb"),
            env={**os.environ, "HOME": str(home)}, close_fds=False, preexec_fn=onto_3_and_4,
        )
        os.close(commands)
        os.close(answers)
        self._deadline = time.monotonic() + CHROMIUM_TIMEOUT_S
        self._buffer = b""
        self._events: list[dict] = []
        self._next_id = 0

    def __enter__(self) -> "_Browser":
        return self

    def __exit__(self, *_: object) -> None:
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                assert "error" not in answer, (method, answer["error"])
                return answer.get("result", {})
            if "method" in answer:
                self._events.append(answer)

    def event(self, method: str, session: str) -> dict:
        while True:
            for at, event in enumerate(self._events):
                if event["method"] == method and event.get("sessionId") == session:
                    return self._events.pop(at).get("params", {})
            self._events.append(self._read())

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            left = self._deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(left, 0))
            assert ready, f"Chromium did not answer within {CHROMIUM_TIMEOUT_S} s"
            chunk = os.read(self._from_browser, 1 << 16)
            assert chunk, "Chromium closed its DevTools pipe: " + self._log.read_text(errors="replace")[-2000:]
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)


def overlaps(boxes: list[dict], slack: float = 0.5) -> list[tuple[dict, dict]]:
    """Pairs of visible boxes that overlap by more than ``slack`` pixels each way, neither holding the other."""
    shown = [b for b in boxes if b["right"] - b["left"] > 0 and b["bottom"] - b["top"] > 0]
    pairs = []
    for at, one in enumerate(shown):
        for other in shown[at + 1:]:
            if one["index"] in other["holders"] or other["index"] in one["holders"]:
                continue
            wide = min(one["right"], other["right"]) - max(one["left"], other["left"])
            high = min(one["bottom"], other["bottom"]) - max(one["top"], other["top"])
            if wide > slack and high > slack:
                pairs.append((one, other))
    return pairs
