"""Headless Chromium driven over the DevTools protocol on a pipe, for the view's browser test.

`--remote-debugging-pipe` makes Chromium read protocol commands from its file
descriptor 3 and write answers and events to 4, each a JSON text ended by a NUL byte.
That is all a test needs (no WebSocket, no port, no Python dependency, no Node at test
time): `Browser` starts it with a private profile, attaches to its page and sends
commands; every event that arrives is kept in `events` so a test can check what the
page requested from the network, logged or threw.

    with Browser.start(tmp_path) as browser:
        browser.call("Page.navigate", url="file:///...")
        value = browser.evaluate("document.title")

`find()` gives the executable (`PWC_TEST_CHROMIUM`, else `chromium` or
`chromium-browser` or `google-chrome` on PATH) or `None`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TIMEOUT = 30.0  # seconds for one protocol answer (a cold start on a busy 2-core machine)

FLAGS = (
    "--headless",
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--disable-extensions",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--window-size=900,900",
)


def find() -> str | None:
    """The Chromium to drive, or `None` when there is none."""
    given = os.environ.get("PWC_TEST_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class ProtocolError(RuntimeError):
    """A command the browser answered with an error."""


class Browser:
    """One headless Chromium and a session on its page."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, answers: int) -> None:
        self.process = process
        self._commands = commands
        self._answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next = 0
        self.session: str | None = None
        self.events: list[dict[str, Any]] = []
        threading.Thread(target=self._read, args=(answers,), daemon=True).start()

    @classmethod
    @contextlib.contextmanager
    def start(cls, profile: Path, executable: str | None = None) -> Iterator[Browser]:
        """Chromium with a private profile under `profile`, attached to its first page."""
        executable = executable or find()
        assert executable, "no chromium to start"
        to_browser, commands = os.pipe()
        answers, from_browser = os.pipe()

        def descriptors() -> None:  # in the child: the pipe ends at 3 and 4
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        flags = [*FLAGS, f"--user-data-dir={profile}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        # A spawn the fixtures do not give: a browser, with the protocol on descriptors 3 and 4.
        process = subprocess.Popen(
            [executable, *flags, "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=descriptors,
        )
        os.close(to_browser)
        os.close(from_browser)
        browser = cls(process, commands, answers)
        try:
            browser.attach()
            yield browser
        finally:
            browser.close()

    def _read(self, descriptor: int) -> None:
        buffer = b""
        with open(descriptor, "rb", buffering=0) as stream:
            while chunk := stream.read(65536):
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for message in messages:
                    self._answers.put(json.loads(message))
        self._answers.put(None)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command (to `session`, or the browser) and wait for its answer."""
        self._next += 1
        number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._answers.get(timeout=TIMEOUT)
            if answer is None:
                raise ProtocolError(f"the browser closed the pipe before answering {method}")
            if answer.get("id") == number:
                if "error" in answer:
                    raise ProtocolError(f"{method}: {answer['error'].get('message')}")
                return dict(answer.get("result", {}))
            if "method" in answer:
                self.events.append(answer)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event `method` not waited for yet (kept in `events`, waited for if need be)."""
        while True:
            for event in self.events:
                if event["method"] == method and not event.get("_seen"):
                    event["_seen"] = True
                    return event
            answer = self._answers.get(timeout=TIMEOUT)
            if answer is None:
                raise ProtocolError(f"the browser closed the pipe before {method}")
            if "method" in answer:
                self.events.append(answer)

    def open(self, url: str) -> None:
        """Load `url` in the page and wait for its load event."""
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the attached page."""
        return self.send(method, self.session, **params)

    def attach(self) -> None:
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def evaluate(self, expression: str) -> Any:
        """The value of `expression` in the page (awaited when it is a promise)."""
        answer = self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ProtocolError(f"the page threw: {text}")
        return answer["result"].get("value")

    def mouse(self, kind: str, x: float, y: float) -> None:
        """A real mouse event at page coordinates (`mouseMoved`, `mousePressed` ...)."""
        extra = {"button": "left", "clickCount": 1} if kind != "mouseMoved" else {}
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **extra)

    def click(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def screenshot(self, path: Path) -> bytes:
        """The whole page as PNG, written to `path`."""
        metrics = self.call("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={
                "x": 0,
                "y": 0,
                "width": metrics["width"],
                "height": metrics["height"],
                "scale": 1,
            },
        )
        data = base64.b64decode(shot["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError, ProtocolError, queue.Empty):
            self.send("Browser.close")
        with contextlib.suppress(OSError):
            os.close(self._commands)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
