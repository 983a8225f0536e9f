"""A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe` (stdlib only).

Used by the report's browser test (tests/test_report_browser.py), its benchmark
(benchmarks/report_browser.py) and the docs screenshots. Chromium reads commands on fd 3 and
writes answers and events on fd 4, one JSON object each, ended by a NUL byte; no port, no
websocket, nothing to install but Chromium itself.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The path of a Chromium binary (`$CHROMIUM` first), or None."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit if os.path.exists(explicit) else None
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(Exception):
    """The browser answered a command with an error, went away, or took too long."""


class Browser:
    """One headless Chromium with one page attached (flat session mode)."""

    def __init__(self, binary: str, *, width: int = 1400, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="acp-report-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # in the child: fd 3 reads our commands, fd 4 answers
            # Copy first: a pipe end may already sit at 3 or 4 (and dup2 onto itself would
            # keep its close-on-exec flag).
            commands, answers = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds,  # noqa: PLW1509 (the fds must sit at 3 and 4 exactly)
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        targets = self.call("Target.getTargets", timeout=30)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    # -- wire ----------------------------------------------------------------------------

    def _read_one(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("timed out waiting for the browser")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CdpError("the browser closed the pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, *, timeout: float = 60, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer (events seen meanwhile are kept)."""
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            command["sessionId"] = self.session
        os.write(self._to_child, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_one(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise CdpError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method: str, *, timeout: float = 60) -> dict[str, Any]:
        """Wait for an event (one already received counts), and forget it."""
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(i)
            message = self._read_one(deadline)
            if "method" in message:
                self.events.append(message)

    # -- page ----------------------------------------------------------------------------

    def open(self, url: str, *, timeout: float = 120) -> None:
        """Navigate and wait for the load event."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout=timeout)

    def evaluate(self, expression: str, *, timeout: float = 60) -> Any:
        """Evaluate JavaScript in the page; returns its value (JSON-compatible)."""
        answer = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
            timeout=timeout,
        )
        if "exceptionDetails" in answer:
            raise CdpError(f"evaluate: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the first element matching `selector`."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; const r = e.getBoundingClientRect();"
            " return [r.left + Math.min(r.width / 2, 200), r.top + r.height / 2]; })()"
        )
        if box is None:
            raise CdpError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self) -> bytes:
        """The page as a PNG."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                found.append(str(params.get("exceptionDetails", {}).get("text")))
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "assert",
            ):
                found.append(" ".join(str(a.get("value")) for a in params.get("args", ())))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(str(params["entry"].get("text")))
        return found

    def close(self) -> None:
        try:
            self.session = ""
            self.call("Browser.close", timeout=10)
        except (CdpError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def png_colours(png: bytes, *, limit: int = 1 << 16) -> int:
    """How many distinct pixel colours an 8-bit RGB or RGBA PNG has (stops counting at `limit`).

    A blank or failed page is one or two colours; a drawn report has hundreds.
    """
    import struct
    import zlib

    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", header[:10])
    if depth != 8 or colour_type not in (2, 6):
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour_type}")
    bpp = 3 if colour_type == 2 else 4
    data = zlib.decompress(b"".join(idat))
    stride = width * bpp
    previous = bytearray(stride)
    colours: set[bytes] = set()
    for y in range(height):
        start = y * (stride + 1)
        kind, row = data[start], bytearray(data[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                row[i] = (row[i] + pred) & 0xFF
        if y % 4 == 0 and len(colours) < limit:
            colours.update(bytes(row[i : i + bpp]) for i in range(0, stride, bpp * 4))
        previous = row
    return len(colours)
