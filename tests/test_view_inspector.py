"""Issue 36: the leaderboard view in a real MCP Apps host, the MCP Inspector's web client.

The official Inspector (npm `@modelcontextprotocol/inspector` 2.12.0; `.ci/run` installs
it and names its command in PWC_TEST_INSPECTOR_WEB) is a host built on the MCP Apps
SDK's host side: its Apps tab lists the tools that name an app, renders the app in its
sandbox proxy (a second origin: the double frame of web hosts) under the extension's
content security policy, and carries the app's tool calls to the server. It has no
model: a person picks a tool and fills in its arguments, which this test does in
headless Chromium (tests/chromium.py), with the installed server as the Inspector's
stdio server against the fake catalog's dated leaderboards.

The view's document is in an out-of-process frame the page cannot reach; the test
attaches to that frame over the DevTools protocol and looks: the rows of a real
`get_benchmark` call, the extra-data filter working (the host handed the view the
result's `_meta`), and a citation the Inspector asked of the server for the view.
Skipped without that Inspector or a Chromium.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import Browser, find
from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.installed import EXECUTABLE, InstalledServer
from tests.test_view_browser import _artefacts

INSPECTOR = os.environ.get("PWC_TEST_INSPECTOR_WEB")
STARTED = "is up and running at"
WAIT_MS = 20_000  # within a protocol answer's 30 s (a cold start on a busy machine)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        INSPECTOR is None or find() is None,
        reason="needs the MCP Inspector 2.x (PWC_TEST_INSPECTOR_WEB) and a chromium",
    ),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def inspector(tmp_path: Path, fake_catalog: FakeCatalog) -> Iterator[str]:
    """The Inspector's web client serving the installed server; yields its address."""
    assert INSPECTOR is not None
    fake_catalog.apply(HistoryBoards())
    server = InstalledServer(tmp_path / "server", api_url=fake_catalog.api_url)
    passed = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "PWC_API_URL")
    passed += ("PWC_MCP_LOCAL_CACHE_DIR",)
    port = _free_port()
    env = {
        **server.env,
        "HOME": str(tmp_path / "inspector"),  # its settings, not the server's home
        "CLIENT_PORT": str(port),
        "MCP_SANDBOX_PORT": str(_free_port()),
        "MCP_APP_ORIGIN_PORT": str(_free_port()),
        "MCP_AUTO_OPEN_ENABLED": "false",
        "DANGEROUSLY_OMIT_AUTH": "true",  # loopback, for this test's browser only
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    command = [INSPECTOR, "--web", str(EXECUTABLE)]
    command += [flag for key in passed for flag in ("-e", f"{key}={server.env[key]}")]
    # A spawn the fixtures do not give: a web host on loopback, in its own process
    # group so that its backend and the stdio server it starts end with it.
    process = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        said = []
        while not any(STARTED in line for line in said):
            line = lines.get(timeout=120)
            assert line is not None, "".join(said)
            said.append(line)
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# The page's helpers: wait for what a selector or a text finds, then give its centre.
HELPERS = """
window.probe = {
  find(selector, text) {
    const all = [...document.querySelectorAll(selector)];
    return text == null ? all[0] : all.find((e) => (e.innerText ?? "").trim() === text);
  },
  async centre(selector, text) {
    const until = Date.now() + WAIT_MS;
    let found;
    while (!(found = probe.find(selector, text))) {
      if (Date.now() > until) throw new Error(`nothing for ${selector} ${text ?? ""}`);
      await new Promise((wake) => setTimeout(wake, 50));
    }
    found.scrollIntoView({ block: "center" });
    const r = found.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  },
};
""".replace("WAIT_MS", str(WAIT_MS))


# Connected, or else the switch flipped again (a click before the page was ready is lost).
CONNECTED = """(async () => {
  const until = Date.now() + WAIT_MS;
  while (!probe.find("*", "Connected")) {
    if (Date.now() > until) throw new Error("never connected");
    const off = document.querySelector("input[type=checkbox]");
    if (probe.find("*", "Disconnected") && off && !off.checked) off.click();
    await new Promise((wake) => setTimeout(wake, 250));
  }
})()""".replace("WAIT_MS", str(WAIT_MS))


def _click(browser: Browser, selector: str, text: str | None = None) -> None:
    found = f"probe.centre({json.dumps(selector)}, {json.dumps(text)})"
    browser.click(*browser.evaluate(found))


class View:
    """The view's document in the Inspector's app frame (an out-of-process frame)."""

    def __init__(self, browser: Browser, target: str) -> None:
        self.browser = browser
        self.target = target
        attached = browser.send("Target.attachToTarget", targetId=target, flatten=True)
        self.session = attached["sessionId"]

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.send(
            "Runtime.evaluate",
            self.session,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        assert "exceptionDetails" not in answer, answer["exceptionDetails"]
        return answer["result"].get("value")

    def until(self, expression: str) -> Any:
        """`expression`'s value once it is truthy (within WAIT_MS)."""
        return self.evaluate(
            f"""(async () => {{
              const until = Date.now() + {WAIT_MS};
              for (;;) {{
                let value;
                try {{ value = {expression}; }} catch {{}}  // a frame not drawn yet
                if (value) return value;
                if (Date.now() > until) throw new Error("the view never showed it");
                await new Promise((wake) => setTimeout(wake, 50));
              }}
            }})()"""
        )


def _app_frames(browser: Browser) -> set[str]:
    targets = browser.send("Target.getTargets")["targetInfos"]
    return {t["targetId"] for t in targets if t["type"] == "iframe" and t["url"] == "about:srcdoc"}


def _view_frame(browser: Browser, before: View | None = None) -> View:
    """The app's frame, once the Inspector has made it (another than `before`'s)."""
    browser.evaluate(
        f"""(async () => {{
          const until = Date.now() + {WAIT_MS};
          while (!document.querySelector("iframe")) {{
            if (Date.now() > until) throw new Error("no app frame");
            await new Promise((wake) => setTimeout(wake, 50));
          }}
        }})()"""
    )
    for _ in range(WAIT_MS // 50):
        made = _app_frames(browser) - {before.target if before else ""}
        if made:
            (target,) = made
            return View(browser, target)
        browser.evaluate("new Promise((wake) => setTimeout(wake, 50))")
    raise AssertionError("the Inspector made no app frame")


def test_the_inspector_shows_the_view_and_carries_its_calls(inspector: str, tmp_path: Path) -> None:
    rows = "document.querySelectorAll('table.board tbody tr').length"
    models = (
        "[...document.querySelectorAll('table.board tbody tr')].map(r => r.children[1].textContent)"
    )
    with Browser.start(tmp_path / "profile") as browser:
        browser.open(inspector)
        browser.evaluate(HELPERS)
        # Connect to the server (the switch of its card), then the Apps tab lists the
        # three tools that name the view.
        _click(browser, "input[type=checkbox]")
        apps = "input[type=radio][value=Apps]"  # the tab, there once connected
        browser.evaluate(CONNECTED)
        browser.evaluate(f"probe.centre('{apps}').then(() => probe.find('{apps}').click())")
        for tool in ("get_benchmark", "sota_history", "results_table"):
            browser.evaluate(f"probe.centre('p, span, div', {json.dumps(tool)})")
        field = (
            "[...document.querySelectorAll('input')].find(e => (e.closest("
            "'.mantine-InputWrapper-root') || {innerText: ''}).innerText.startsWith('benchmark'))"
        )

        def open_app(tool: str, benchmark: str, before: View | None = None) -> View:
            _click(browser, "p, span, div", tool)
            browser.evaluate("probe.centre('button', 'Open App')")  # its form is there
            browser.evaluate(f"(() => {{ const e = {field}; e.scrollIntoView(); e.focus(); }})()")
            browser.call("Input.insertText", text=benchmark)
            _click(browser, "button", "Open App")
            return _view_frame(browser, before)

        # get_benchmark: the Inspector called it and handed the view the whole result,
        # `_meta` too: the extra-data filter works, in place.
        view = open_app("get_benchmark", "Vision History")
        assert view.until("document.body.dataset.view === 'leaderboard' && " + rows) == 13
        assert view.evaluate("document.querySelector('input[name=extra_data]').disabled") is False
        assert (
            view.evaluate("document.querySelectorAll('button[data-tool=cite_paper]').length") == 13
        )
        view.evaluate("document.querySelector('input[name=extra_data]').click()")
        assert view.evaluate(rows) == 12
        assert "BigPre-L" not in view.evaluate(models)

        # Cite: the Inspector asks the server for cite_paper and hands the view its answer.
        ref = view.evaluate("document.querySelector('tbody tr button.paper').dataset.ref")
        view.evaluate("document.querySelector('tbody tr button[data-tool=cite_paper]').click()")
        cited = view.until("document.querySelector('.called:not(.busy) pre')?.textContent")
        assert cited.startswith("@") and ref in view.evaluate(
            "document.querySelector('.called strong').textContent"
        )
        assert "Undated Marvel" in cited  # the first row's paper, from the fake catalog
        browser.screenshot(_artefacts(tmp_path) / "view-inspector.png")

        # results_table: its rows from `_meta`, the best in bold; "all settings" asks the
        # server for every group through the Inspector, and the table follows in place.
        _click(browser, "button", "Back to Input")
        view = open_app("results_table", "Settings Mix", before=view)
        assert view.until("document.body.dataset.view === 'results' && " + rows) == 3
        best = "[...document.querySelectorAll('td.best')].map(td => td.textContent)"
        assert view.evaluate(best) == ["72"]
        view.evaluate("document.querySelector('button.group[data-settings=all]').click()")
        assert view.until("document.querySelector('th[data-column=settings]') && " + rows) == 8
        assert view.evaluate(best) == ["78"]
        assert view.evaluate(models)[0] == "Extra-L"
        browser.screenshot(_artefacts(tmp_path) / "view-inspector-results.png")
