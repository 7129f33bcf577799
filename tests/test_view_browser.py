"""Issue 36: the leaderboard view (an MCP App) in a real browser, as a person sees it.

The installed server (compact profile, the fake catalog with its dated leaderboards)
names the view on `sota_history`, `get_benchmark` and `results_table` and serves its
HTML; real calls give the results (with the view's data in their `_meta`), and the
answers to what the view asks the host to call. Headless Chromium (tests/chromium.py,
the DevTools protocol on a pipe) loads the test host page, built on the MCP Apps SDK's
host side (`AppBridge`, apps/leaderboard/test-host/), which shows the view in a frame
under the extension's default content security policy and hands it each call's input
and result. The test then looks at the page: the steps and points of the chart and
what hovering a point shows, the table's rows, a sort, the filters (extra training
data from the rows' flags in `_meta`), the theme, a paper opened through the host and
a citation asked of the server through it; a results table sorted, its best values
marked, another settings group asked for; what a host that passes no `_meta` gets;
and that nothing was requested from the network, logged as an error or thrown.

Screenshots are kept in `PWC_TEST_ARTEFACTS` (`.ci/run` sets it), else the test's
directory. Without a Chromium (`chromium` on PATH, or `PWC_TEST_CHROMIUM`) the test is
skipped; `.ci/run` installs Debian's and names it, so that there it runs or fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.chromium import Browser, find
from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.installed import InstalledServer

pytestmark = pytest.mark.e2e

HOST_PAGE = Path(__file__).parent / "data" / "view_host.html"
VIEW_URI = "ui://pwc/leaderboard"
VIEW_DATA = "pwc/view"
VIEWED = ("sota_history", "get_benchmark", "results_table")
DARK_BACKGROUND = "#101418"


def _result(result: Any) -> dict[str, Any]:
    """A CallToolResult as the host hands it to the view (the wire's JSON)."""
    return dict(result.model_dump(mode="json", by_alias=True, exclude_none=True))


@pytest.fixture
def served(tmp_path: Path, fake_catalog: FakeCatalog) -> dict[str, Any]:
    """What the installed server lists, serves and answers for the view."""
    fake_catalog.apply(HistoryBoards())
    home = InstalledServer(tmp_path / "home", api_url=fake_catalog.api_url)
    home.env["PWC_MCP_LOCAL_STRUCTURED"] = "compact"
    out: dict[str, Any] = {}

    async def script() -> None:
        async with home.session() as session:
            out["tools"] = {t.name: t for t in (await session.list_tools()).tools}
            out["resources"] = (await session.list_resources()).resources
            read = await session.read_resource(VIEW_URI)
            out["view"] = read.contents[0]
            calls = {
                "history": ("sota_history", {"benchmark": "Vision History"}),
                "empty": ("sota_history", {"benchmark": "Vision History", "as_of": "2001-01-01"}),
                "board": ("get_benchmark", {"benchmark": "imagenet-1k"}),
                # What the view's Cite button asks for (the host hands the view this answer).
                "cite": ("cite_paper", {"paper": "2603.11111"}),
                # The series the chart's "no extra training data" filter asks for.
                "no_extra": ("sota_history", {"benchmark": "Vision History", "extra_data": False}),
                # A leaderboard with one result trained with extra data (BigPre-L, 84.5).
                "vision_board": ("get_benchmark", {"benchmark": "Vision History"}),
                # The largest settings group, then all of them (what its button asks for).
                "results": ("results_table", {"benchmark": "Settings Mix"}),
                "results_all": ("results_table", {"benchmark": "Settings Mix", "settings": "all"}),
            }
            for key, (tool, arguments) in calls.items():
                result = await session.call_tool(tool, arguments)
                assert not result.is_error, result.content
                out[key] = (tool, arguments, _result(result))

    anyio.run(script)
    return out


def test_the_server_names_and_serves_the_view(served: dict[str, Any]) -> None:
    tools = served["tools"]
    for name in VIEWED:
        assert tools[name].meta == {"ui": {"resourceUri": VIEW_URI}}
    assert all(tools[name].meta is None for name in tools if name not in VIEWED)
    (listed,) = [r for r in served["resources"] if str(r.uri) == VIEW_URI]
    assert listed.mime_type == "text/html;profile=mcp-app"
    view = served["view"]
    assert view.mime_type == "text/html;profile=mcp-app"
    assert view.text.startswith("<!doctype html>")
    # Self-contained: no script, style sheet, image or frame is loaded from anywhere.
    lowered = view.text.lower()
    assert "<script src" not in lowered and "<link" not in lowered and "<iframe" not in lowered


def test_the_view_data_rides_in_the_results_meta(served: dict[str, Any]) -> None:
    # What the view needs beyond the halves: get_benchmark's extra-data flag of each row,
    # results_table's rows as data. Nothing else carries a result `_meta`.
    board = served["vision_board"][2]
    rows = board["structuredContent"]["evaluations"]["rows"]
    flags = board["_meta"][VIEW_DATA]["extra_data"]
    assert len(flags) == len(rows) and flags.count(True) == 1
    assert rows[flags.index(True)][1] == "BigPre-L"
    table = served["results_all"][2]
    data = table["_meta"][VIEW_DATA]
    assert data["metrics"] == [{"name": "Accuracy", "better": "higher"}]
    assert len(data["rows"]) == table["structuredContent"]["head"]["shown"] == 8
    first = data["rows"][0]
    assert (first["model"], first["values"], first["settings"]) == (
        "Extra-L",
        [78.0],
        "extra data, test split",
    )
    assert first["key"] in table["structuredContent"]["bib"]
    for key in ("history", "cite"):
        assert "_meta" not in served[key][2], key


def _frame_offset(browser: Browser, slot: str) -> tuple[float, float]:
    box = browser.evaluate(
        f"(() => {{ const r = document.querySelector('#{slot} iframe').getBoundingClientRect();"
        " return [r.left, r.top]; })()"
    )
    return box[0], box[1]


def _centre(browser: Browser, slot: str, selector: str) -> tuple[float, float]:
    """Page coordinates of the centre of `selector` in the view in `slot`."""
    found = f"host.view('{slot}').querySelector({json.dumps(selector)})"
    browser.evaluate(f"{found}.scrollIntoView({{block: 'center', inline: 'nearest'}})")
    left, top = _frame_offset(browser, slot)
    box = browser.evaluate(
        f"(r => [r.left + r.width / 2, r.top + r.height / 2])({found}.getBoundingClientRect())"
    )
    return left + box[0], top + box[1]


def _in_view(browser: Browser, slot: str, expression: str) -> Any:
    """`expression` evaluated with `doc` bound to the view's document in `slot`."""
    return browser.evaluate(f"(doc => {expression})(host.view('{slot}'))")


def _show(browser: Browser, slot: str, html: str, call: tuple[str, Any, Any], theme: str) -> str:
    tool, arguments, result = call
    shown = {"html": html, "tool": tool, "input": arguments, "result": result}
    shown["context"] = {"theme": theme}
    return str(browser.evaluate(f"host.show('{slot}', {json.dumps(shown)})"))


def _artefacts(tmp_path: Path) -> Path:
    where = Path(os.environ.get("PWC_TEST_ARTEFACTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.mark.skipif(
    find() is None, reason="no chromium on PATH (PWC_TEST_CHROMIUM names one); .ci/run installs it"
)
def test_a_person_sees_the_chart_and_the_table(served: dict[str, Any], tmp_path: Path) -> None:
    html = served["view"].text
    history = served["history"][2]["structuredContent"]
    board = served["board"][2]["structuredContent"]["evaluations"]
    with Browser.start(tmp_path / "profile") as browser:
        browser.open(HOST_PAGE.as_uri())
        assert _show(browser, "chart", html, served["history"], "light") == "history"
        assert _show(browser, "table", html, served["board"], "light") == "leaderboard"

        # The chart: one point per new best, the running best as a step line.
        steps = history["steps"]
        assert [s["score"] for s in steps] == [60.0, 71.5, 75.0, 80.25, 84.5]
        assert _in_view(browser, "chart", "doc.querySelectorAll('circle.point').length") == 5
        path = _in_view(browser, "chart", "doc.querySelector('path.step').getAttribute('d')")
        assert path.count("V") == 4 and path.count("H") == 5
        heights = _in_view(
            browser,
            "chart",
            "[...doc.querySelectorAll('circle.point')].map(c => +c.getAttribute('cy'))",
        )
        assert heights == sorted(heights, reverse=True)  # higher is better: each step rises
        label = _in_view(browser, "chart", "doc.querySelector('text.label.y').textContent")
        assert label == "Accuracy (higher is better ↑)"
        radius = _in_view(browser, "chart", "doc.querySelector('circle.point').getBBox().width")
        assert radius >= 10  # points a person can see and point at

        # Hovering the third point shows its model, paper, date and score.
        x, y = _centre(browser, "chart", "circle.point[data-index='2']")
        browser.mouse("mouseMoved", x, y)
        tip = _in_view(
            browser, "chart", "(t => t.hidden ? null : t.innerText)(doc.querySelector('.tooltip'))"
        )
        third = steps[2]
        assert tip is not None
        assert third["model"] in tip and third["paper"] in tip
        assert third["date"] in tip and "75" in tip and "+3.5" in tip

        # The table: every row, then sorted by a metric, best first, then reversed.
        count = "doc.querySelectorAll('table.board tbody tr').length"
        assert _in_view(browser, "table", count) == len(board["rows"])
        metric = next(iter(served["board"][2]["structuredContent"]["directions"]))
        column = board["columns"].index(metric)
        values = [row[column] for row in board["rows"] if row[column] is not None]
        cells = (
            "[...doc.querySelectorAll('table.board tbody tr')]"
            f".map(r => r.children[{column}].textContent)"
        )
        header = f"th[data-column={json.dumps(metric)}] button"
        browser.click(*_centre(browser, "table", header))
        sort = (
            f"doc.querySelector('th[data-column={json.dumps(metric)}]').getAttribute('aria-sort')"
        )
        assert _in_view(browser, "table", sort) == "descending"
        shown = [float(v) for v in _in_view(browser, "table", cells) if v]
        assert shown == sorted(values, reverse=True)
        browser.click(*_centre(browser, "table", header))
        assert _in_view(browser, "table", sort) == "ascending"
        assert [float(v) for v in _in_view(browser, "table", cells) if v] == sorted(values)

        # Filters in place: open code only, then at most 100M parameters.
        columns = board["columns"]
        if "open" in columns:
            opened = sum(1 for row in board["rows"] if row[columns.index("open")] is True)
            browser.click(*_centre(browser, "table", "input[name=open]"))
            assert _in_view(browser, "table", count) == opened
            browser.click(*_centre(browser, "table", "input[name=open]"))
        if "parameters" in columns:
            small = [
                row
                for row in board["rows"]
                if isinstance(row[columns.index("parameters")], int)
                and row[columns.index("parameters")] <= 100_000_000
            ]
            browser.click(*_centre(browser, "table", "input[name=max_parameters]"))
            browser.call("Input.insertText", text="100M")
            assert _in_view(browser, "table", count) == len(small)

        browser.mouse("mouseMoved", *_centre(browser, "chart", "circle.point[data-index='3']"))
        screenshot = _artefacts(tmp_path) / "view-light.png"
        assert browser.screenshot(screenshot).startswith(b"\x89PNG")

        # A paper opens through the host; a citation is asked of the server through it.
        first_paper = "table.board tbody tr button.paper"
        ref = _in_view(browser, "table", f"doc.querySelector('{first_paper}').dataset.ref")
        browser.click(*_centre(browser, "table", first_paper))
        asked = browser.evaluate("host.askedAtLeast(1)")
        assert asked == [{"slot": "table", "openLink": _paper_url(ref)}]
        cited = served["cite"][2]
        browser.evaluate(f"host.answers.cite_paper = {json.dumps(cited)}")
        browser.click(*_centre(browser, "table", "tbody tr button[data-tool=cite_paper]"))
        asked = browser.evaluate("host.askedAtLeast(2)")
        call = asked[1]["call"]
        assert (asked[1]["slot"], call["name"], call["arguments"]) == (
            "table",
            "cite_paper",
            {"paper": ref},
        )
        shown = browser.evaluate("host.until('table', '.called:not(.busy) pre')")
        assert shown == cited["content"][0]["text"] and "@" in shown

        # The chart's filters call sota_history again through the host: without extra
        # training data, the last new best is 82.0 (2022) instead of 84.5 (2021).
        browser.evaluate(f"host.answers.sota_history = {json.dumps(served['no_extra'][2])}")
        browser.click(*_centre(browser, "chart", "input[name=extra_data]"))
        asked = browser.evaluate("host.askedAtLeast(3)")
        call = asked[2]["call"]
        wanted = {"benchmark": "Vision History", "extra_data": False}
        assert (asked[2]["slot"], call["name"], call["arguments"]) == (
            "chart",
            "sota_history",
            wanted,
        )
        best = "body[data-view=history] circle.point.best[aria-label$=', 82']"
        browser.evaluate(f"host.until('chart', {json.dumps(best)})")
        checked = "doc.querySelector('input[name=extra_data]').checked"
        assert _in_view(browser, "chart", checked) is True

        # Dark: the host's theme and its variables reach the view.
        dark = {
            "theme": "dark",
            "styles": {"variables": {"--color-background-primary": DARK_BACKGROUND}},
        }
        for slot in ("chart", "table"):
            browser.evaluate(f"host.theme('{slot}', {json.dumps(dark)})")
        background = "getComputedStyle(doc.body).backgroundColor"
        assert _in_view(browser, "table", background) == "rgb(16, 20, 24)"
        scheme = "getComputedStyle(doc.documentElement).colorScheme"
        assert _in_view(browser, "chart", scheme) == "dark"
        browser.evaluate("document.body.classList.add('dark')")
        browser.screenshot(_artefacts(tmp_path) / "view-dark.png")

        # A result without dated rows says so.
        assert _show(browser, "chart", html, served["empty"], "light") == "history"
        empty = _in_view(browser, "chart", "doc.querySelector('.empty').textContent")
        assert empty == "No dated result on or before 2001-01-01."
        assert _in_view(browser, "chart", "doc.querySelectorAll('circle.point').length") == 0

    _assert_quiet(browser)


def _assert_quiet(browser: Browser) -> None:
    """Nothing but the host page was requested, and nothing was logged as an error or thrown."""
    requested = [
        e["params"]["request"]["url"]
        for e in browser.events
        if e["method"] == "Network.requestWillBeSent"
    ]
    assert requested == [HOST_PAGE.as_uri()]  # the host page itself, from disk; nothing else
    problems = [
        e["params"]
        for e in browser.events
        if e["method"] == "Runtime.exceptionThrown"
        or (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
        or (e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
    ]
    assert problems == []


def _without_meta(call: tuple[str, Any, Any]) -> tuple[str, Any, Any]:
    """The call as a host that passes no result `_meta` hands it to the view."""
    tool, arguments, result = call
    return tool, arguments, {k: v for k, v in result.items() if k != "_meta"}


@pytest.mark.skipif(
    find() is None, reason="no chromium on PATH (PWC_TEST_CHROMIUM names one); .ci/run installs it"
)
def test_a_person_filters_out_extra_data_and_reads_a_results_table(
    served: dict[str, Any], tmp_path: Path
) -> None:
    html = served["view"].text
    rows = "doc.querySelectorAll('table.board tbody tr').length"
    models = "[...doc.querySelectorAll('table.board tbody tr')].map(r => r.children[1].textContent)"
    with Browser.start(tmp_path / "profile") as browser:
        browser.open(HOST_PAGE.as_uri())

        # get_benchmark: the rows' extra-data flags (the result's `_meta`) make a column
        # and a filter applied in place, with no call: BigPre-L (84.5) used extra data.
        assert _show(browser, "table", html, served["vision_board"], "light") == "leaderboard"
        assert _in_view(browser, "table", rows) == 13
        flags = (
            "[...doc.querySelectorAll('table.board tbody tr')].map(r => r.children[5].textContent)"
        )
        assert _in_view(browser, "table", "doc.querySelectorAll('th')[5].dataset.column") == (
            "extra_data"
        )
        assert _in_view(browser, "table", flags).count("yes") == 1
        browser.click(*_centre(browser, "table", "input[name=extra_data]"))
        assert _in_view(browser, "table", rows) == 12
        assert "BigPre-L" not in _in_view(browser, "table", models)
        status = _in_view(browser, "table", "doc.querySelector('.scan').textContent")
        assert status.startswith("12 of 13 rows on page 1")
        # ... combined with open code only: EffNet-B7 is closed.
        browser.click(*_centre(browser, "table", "input[name=open]"))
        assert _in_view(browser, "table", rows) == 11
        assert browser.evaluate("host.asked") == []

        # A host that passes no `_meta`: the control is there, disabled, and says why.
        assert (
            _show(browser, "chart", html, _without_meta(served["vision_board"]), "light")
            == "leaderboard"
        )
        control = "doc.querySelector('input[name=extra_data]')"
        assert _in_view(browser, "chart", f"{control}.disabled") is True
        reason = f"{control}.closest('label').textContent"
        assert "this host passed no extra-data flags" in _in_view(browser, "chart", reason)
        assert _in_view(browser, "chart", "!doc.querySelector('th[data-column=extra_data]')")

        # results_table: the largest settings group, Accuracy's direction in its header
        # and its best value in bold; the other groups named, each a button.
        assert _show(browser, "results", html, served["results"], "light") == "results"
        assert _in_view(browser, "results", rows) == 3
        accuracy = "th[data-column='metric:0']"
        label = _in_view(browser, "results", f'doc.querySelector("{accuracy}").textContent')
        assert label == "Accuracy ↑"
        best = "[...doc.querySelectorAll('td.best')].map(td => td.textContent)"
        assert _in_view(browser, "results", best) == ["72"]
        assert _in_view(browser, "results", "!doc.querySelector('th[data-column=settings]')")
        groups = "[...doc.querySelectorAll('button.group')].map(b => b.dataset.settings)"
        assert _in_view(browser, "results", groups)[-1] == "all"

        # "all settings" asks the server for results_table again through the host; its
        # answer replaces the table in place, each row with its settings.
        everything = served["results_all"]
        browser.evaluate(f"host.answers.results_table = {json.dumps(everything[2])}")
        browser.click(*_centre(browser, "results", "button.group[data-settings=all]"))
        (asked,) = browser.evaluate("host.askedAtLeast(1)")
        call = asked["call"]
        assert (asked["slot"], call["name"], call["arguments"]) == (
            "results",
            "results_table",
            {"benchmark": "Settings Mix", "settings": "all"},
        )
        browser.evaluate("host.until('results', 'th[data-column=settings]')")
        data = everything[2]["_meta"][VIEW_DATA]["rows"]
        assert _in_view(browser, "results", rows) == len(data) == 8
        assert _in_view(browser, "results", best) == ["78"]
        settings = (
            "[...doc.querySelectorAll('table.board tbody tr')]"
            ".map(r => r.querySelector('td:nth-child(6)').textContent)"
        )
        assert _in_view(browser, "results", settings) == [row["settings"] for row in data]

        # Sorted by Accuracy: best first, then reversed; by date: oldest first.
        values = (
            "[...doc.querySelectorAll('table.board tbody tr')]"
            ".map(r => +r.querySelector('td:nth-child(5)').textContent)"
        )
        accuracies = [row["values"][0] for row in data]
        browser.click(*_centre(browser, "results", f"{accuracy} button"))
        assert _in_view(browser, "results", values) == sorted(accuracies, reverse=True)
        browser.click(*_centre(browser, "results", f"{accuracy} button"))
        assert _in_view(browser, "results", values) == sorted(accuracies)
        browser.click(*_centre(browser, "results", "th[data-column=date] button"))
        dates = (
            "[...doc.querySelectorAll('table.board tbody tr')]"
            ".map(r => r.querySelector('td.date').textContent)"
        )
        assert _in_view(browser, "results", dates) == sorted(row["date"] for row in data)
        browser.screenshot(_artefacts(tmp_path) / "view-results.png")

        # A paper opens through the host.
        first = "table.board tbody tr button.paper"
        ref = _in_view(browser, "results", f"doc.querySelector('{first}').dataset.ref")
        assert ref == min(data, key=lambda row: row["date"])["ref"]
        browser.click(*_centre(browser, "results", first))
        asked = browser.evaluate("host.askedAtLeast(2)")
        assert asked[1] == {"slot": "results", "openLink": _paper_url(ref)}

        # A host that passes no `_meta`: the table as results_table wrote it.
        assert _show(browser, "chart", html, _without_meta(everything), "light") == "results"
        written = _in_view(browser, "chart", "doc.querySelector('pre.written').textContent")
        assert written == everything[2]["structuredContent"]["table"]

    _assert_quiet(browser)


def _paper_url(ref: str) -> str:
    if ref[:4].isdigit() and "." in ref:
        return f"https://arxiv.org/abs/{ref}"
    return f"https://paperswithcode.co/paper/{ref}"
