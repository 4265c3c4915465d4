"""Open pages in headless Chromium over its DevTools pipe: errors, drawn elements, fonts used, screenshots.

CI's browser test and `docs/make_pictures.py` both use it, so the README pictures show pages that passed the
same checks. Standard library only: `--remote-debugging-pipe` speaks NUL-terminated JSON on fds 3 and 4.
"""
import base64
import fcntl
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--remote-debugging-pipe")
WAIT = 60.0  # seconds for any one answer from the browser
HANGUL = "\uac00"  # 가: a font covers Korean when fontconfig says it has this character
# What a page must show, measured in the browser (feedback pages and the class report alike).
CHECKS = {
    "korean": r"/[\uac00-\ud7a3]/.test(document.body.innerText)",
    "heatmap_cells": "[...document.querySelectorAll('table.heatmap td')].filter(td => { const box = "
                     "td.getBoundingClientRect(); return box.width > 8 && box.height > 8 && "
                     "getComputedStyle(td).backgroundColor !== 'rgba(0, 0, 0, 0)'; }).length",
    "heatmap_values": "[...document.querySelectorAll('table.heatmap td')].map(td => td.innerText.trim())",
    "charts": "[...document.querySelectorAll('svg.chart')].filter(svg => svg.getBoundingClientRect().width > 100)"
              ".map(svg => svg.getAttribute('aria-label'))",
    "chart_bars": "document.querySelectorAll('svg.chart rect.bar').length",
    "title": "document.title",
}
KOREAN_SELECTORS = ("h1", "h2", "figcaption", "table.heatmap th", "svg.chart text")  # fonts read where present


class BrowserError(RuntimeError):
    """Chromium is missing, died, or did not answer in time."""


def executable():
    """The Chromium binary on PATH, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def hangul_fonts():
    """Family names (every spelling fontconfig knows) of the installed fonts that have Hangul glyphs."""
    done = subprocess.run(["fc-list", f":charset={ord(HANGUL):x}", "family"], capture_output=True, text=True,
                          timeout=60)
    return {name.strip() for line in done.stdout.splitlines() for name in line.split(",") if name.strip()}


@dataclass
class Visit:
    """What one page did in the browser."""

    url: str
    errors: list = field(default_factory=list)  # console errors, uncaught exceptions, failed loads
    answers: dict = field(default_factory=dict)  # {name: value of a JavaScript expression}
    fonts: dict = field(default_factory=dict)  # {CSS selector: [font family names used for its text]}


class Browser:
    """One headless Chromium with an empty profile; use as a context manager."""

    def __init__(self, width=1100, height=900, env=None):
        binary = executable()
        if binary is None:
            raise BrowserError("chromium is not installed (Debian: apt-get install -y chromium)")
        self.size = (width, height)
        self.profile = tempfile.mkdtemp(prefix="grader-chromium-")
        to_browser, self._send_fd = _high(os.pipe())
        self._read_fd, from_browser = _high(os.pipe())
        # Chromium reads commands from fd 3 and writes answers to fd 4.
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True, pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(to_browser, 3), os.dup2(from_browser, 4)))
        os.close(to_browser)
        os.close(from_browser)
        os.set_blocking(self._read_fd, False)
        self._buffer, self._next_id, self.events = b"", 0, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Ask the browser to quit (kill its process group if it does not), and remove its profile."""
        if self.process.poll() is None:
            try:
                os.write(self._send_fd, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        for fd in (self._send_fd, self._read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _messages(self, deadline):
        """Read what the browser sent until `deadline`; yield each JSON message."""
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                yield json.loads(raw)
            if self.process.poll() is not None:
                raise BrowserError(f"chromium exited ({self.process.returncode})")
            try:
                chunk = os.read(self._read_fd, 1 << 20)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if not chunk:
                raise BrowserError("chromium closed its DevTools pipe")
            self._buffer += chunk
        raise BrowserError("chromium did not answer in time")

    def call(self, method, session=None, **params):
        """Send one DevTools command; return its result (events meanwhile are kept in `self.events`)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        for answer in self._messages(time.monotonic() + WAIT):
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)
        raise BrowserError(method)  # pragma: no cover - _messages raises first

    def wait_for(self, method, session, timeout=WAIT):
        """Wait for an event of `method` in `session`."""
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        for event in self._messages(time.monotonic() + timeout):
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        raise BrowserError(method)  # pragma: no cover

    def visit(self, page, expressions=None, font_selectors=(), screenshot=None):
        """Load `page` (a file path), evaluate `expressions` {name: JavaScript}, read the fonts used by each
        selector's first element, optionally save a full-page PNG; return a Visit."""
        url = Path(page).resolve().as_uri()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        try:
            for domain in ("Page", "Runtime", "Log", "DOM", "CSS"):
                self.call(f"{domain}.enable", session)
            self.events.clear()
            self.call("Page.navigate", session, url=url)
            self.wait_for("Page.loadEventFired", session)
            visit = Visit(url)
            for name, expression in (expressions or {}).items():
                visit.answers[name] = self.evaluate(session, expression)
            for selector in font_selectors:
                used = self.fonts(session, selector)
                if used is not None:
                    visit.fonts[selector] = used
            if screenshot is not None:
                self.screenshot(session, screenshot)
            visit.errors = _errors(event for event in self.events if event.get("sessionId") == session)
            return visit
        finally:
            self.call("Target.closeTarget", targetId=target)

    def inspect(self, page, screenshot=None):
        """Visit `page` with the standard CHECKS and the fonts of its Korean text (KOREAN_SELECTORS)."""
        return self.visit(page, CHECKS, KOREAN_SELECTORS, screenshot)

    def evaluate(self, session, expression):
        """The JSON value of a JavaScript expression in the page."""
        answer = self.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails'].get('text')}")
        return answer["result"].get("value")

    def fonts(self, session, selector):
        """The font families Chromium really used to draw the text of the first element matching `selector`
        (None when nothing matches)."""
        root = self.call("DOM.getDocument", session, depth=0)["root"]["nodeId"]
        node = self.call("DOM.querySelector", session, nodeId=root, selector=selector)["nodeId"]
        if not node:
            return None
        return [f["familyName"] for f in self.call("CSS.getPlatformFontsForNode", session, nodeId=node)["fonts"]]

    def screenshot(self, session, target):
        """Save the whole page (its full height, the browser's width) as a PNG."""
        height = self.evaluate(session, "Math.ceil(document.documentElement.scrollHeight)")
        self.call("Emulation.setDeviceMetricsOverride", session, width=self.size[0], height=int(height),
                  deviceScaleFactor=1, mobile=False)
        data = self.call("Page.captureScreenshot", session, format="png")["data"]
        Path(target).write_bytes(base64.b64decode(data))
        return target


def problems(visit, fonts_with_hangul):
    """What is wrong with a visited page: errors, no Korean text, Korean text drawn without a Hangul font."""
    found = list(visit.errors)
    if not visit.answers.get("korean"):
        found.append("no Korean text on the page")
    for selector, used in visit.fonts.items():
        if not set(used) & set(fonts_with_hangul):
            found.append(f"{selector}: Korean text drawn with {used}, none of which has Hangul glyphs")
    return found


def _high(fds):
    """The pipe's fds moved above 9, so that placing the child's ends on 3 and 4 cannot overwrite one of them."""
    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds)
    for fd in fds:
        os.close(fd)
    return moved


def _errors(events):
    """Console errors, uncaught exceptions and error log entries among DevTools events, as text."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            found.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            found.append("log: " + str(params["entry"].get("text")))
    return found
