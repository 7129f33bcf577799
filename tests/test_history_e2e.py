"""Issue 29 end to end: `sota_history` and `who_beat_paper` over MCP, `sota` and `beaten`
on the command line, the chart, and the cache between calls.

The fake catalog carries its dated leaderboards (`HistoryBoards`); what the queries
decide is in tests/test_history.py, here is what a client and a user see.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.installed import InstalledServer, call

pytestmark = pytest.mark.e2e


@pytest.fixture
def dated(fake_catalog: FakeCatalog) -> FakeCatalog:
    fake_catalog.apply(HistoryBoards())
    return fake_catalog


def _pages(fake: FakeCatalog, dataset: str) -> int:
    return sum(1 for r in fake.requests if r.path == f"datasets/{dataset}/evaluations/")


def test_both_tools_over_mcp_with_links_progress_and_the_cache(
    dated: FakeCatalog, installed_server: InstalledServer
) -> None:
    seen: dict[str, Any] = {}
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async def script() -> None:
        async with installed_server.session() as session:
            listed = {tool.name for tool in (await session.list_tools()).tools}
            assert {"sota_history", "who_beat_paper"} <= listed
            result = await session.call_tool(
                "sota_history", {"benchmark": "History Big"}, progress_callback=on_progress
            )
            assert not result.is_error
            seen["big"] = result
            seen["big_pages"] = _pages(dated, "903")
            seen["again"] = await call(session, "sota_history", benchmark="History Big")
            seen["vision"] = await call(
                session, "sota_history", benchmark="Vision History", as_of="2016-12-31"
            )
            seen["beaten"] = await session.call_tool("who_beat_paper", {"paper": "1409.99002"})
        async with installed_server.session() as session:  # a new server, the same cache
            seen["pages_before_restart"] = _pages(dated, "903")
            seen["restart"] = await call(session, "sota_history", benchmark="History Big")

    anyio.run(script)
    big = seen["big"].structured_content
    assert big["scan"]["rows_read"] == big["scan"]["rows_total"] == 2000
    assert big["series"] == {
        "benchmark": "History Big",
        "metric": "Accuracy",
        "better": "higher",
        "settings": "no extra data, test split",
    }  # no as_of: nothing is sent for nothing (the default profile)
    assert seen["big_pages"] == 20
    assert progress and progress[-1] == (2000, 2000)  # notifications while pages are read
    # Warm: the same call, and a new server on the same cache, ask the catalog nothing.
    assert _pages(dated, "903") == 20
    assert seen["again"]["steps"] == big["steps"] == seen["restart"]["steps"]
    vision = seen["vision"]
    assert [s["model"] for s in vision["steps"]] == ["ConvNet-8", "Deep-B", "Wide-28"]
    assert "the last is the state of the art on 2016-12-31" in vision["_text"]
    beaten = seen["beaten"]
    links = [item.uri for item in beaten.content if item.type == "resource_link"]
    assert str(links[0]) == "pwc://papers/1409.99002"
    assert "pwc://papers/2111.99010" in [str(uri) for uri in links]
    board = beaten.structured_content["results"][0]
    assert (board["model"], board["beaten"], board["held"]) == ("Deep-A", 6, 1)


def test_hosted_profile_leaves_them_out(installed_server: InstalledServer) -> None:
    async def names() -> set[str]:
        async with installed_server.session() as session:
            return {tool.name for tool in (await session.list_tools()).tools}

    installed_server.set(PWC_MCP_LOCAL_TOOLS="hosted")
    assert not {"sota_history", "who_beat_paper"} & anyio.run(names)


def test_sota_and_beaten_json_are_as_clean_as_their_tables(dated: FakeCatalog, cli: Any) -> None:
    from tests.fake_catalog import NewResult
    from tests.test_result_text import SPOOF, clean_strings

    # A new best on the Vision History board, its model named by the attacker.
    dated.apply(NewResult("901", paper="96010", model=SPOOF, metrics={"Accuracy": 99.0}))
    for words in (
        ("sota", "Vision", "History"),
        ("beaten", "2111.99010"),
        ("table", "Vision", "History"),  # on main `table --json` and `check --json` printed
        ("check", "Vision History", "2111.99010", "--beats", "96010"),  # the model raw
    ):
        done = cli(*words, "--json")
        assert done.exit_code in (0, 3), done.output
        assert "\u202e" not in done.stdout and "\x1b" not in done.stdout
        assert clean_strings(json.loads(done.stdout)) == []
    assert "Deep " in cli("sota", "Vision", "History", "--json").stdout


def test_sota_on_the_command_line_with_a_chart(
    dated: FakeCatalog, cli: Any, tmp_path: Path
) -> None:
    png, svg = tmp_path / "vision.png", tmp_path / "speech.svg"
    done = cli("sota", "Vision", "History", "--plot", str(png))
    assert done.exit_code == 0, done.output
    assert (
        "| 2021-11-11 | BigPre-L | Big Data Pretraining (2111.99010) | 84.5 | 4.25 |" in done.output
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    done = cli("sota", "speech-history", "--as-of", "2019-06-30", "--plot", str(svg))
    assert done.exit_code == 0, done.output
    drawn = svg.read_text()
    assert drawn.lstrip().startswith("<?xml") and "<svg" in drawn
    assert "Speech-Transformer" in drawn and "Foundation-ASR" not in drawn  # as of 2019
    as_json = cli("sota", "Vision", "History", "--extra-data", "--json")
    steps = json.loads(as_json.output)["steps"]
    assert [step["model"] for step in steps] == ["BigPre-L"]  # the only extra-data result


def test_plot_without_matplotlib_says_how_to_get_it(
    dated: FakeCatalog, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    done = cli("sota", "Vision", "History", "--plot", str(tmp_path / "x.png"))
    assert done.exit_code == 1
    assert "pipx inject pwc-mcp-local matplotlib" in done.output
    # Not on PyPI yet: the alternative is a checkout's own extra, not the package's.
    assert "pipx install --force '.[plot]'" in done.output
    assert "pipx install 'pwc-mcp-local" not in done.output
    assert not (tmp_path / "x.png").exists()
    assert len(dated.requests) == 0  # said before anything was read
    wrong = cli("sota", "Vision", "History", "--plot", str(tmp_path / "x.jpg"))
    assert wrong.exit_code == 2 and ".png or .svg" in wrong.output


def test_beaten_on_the_command_line(dated: FakeCatalog, cli: Any) -> None:
    done = cli("beaten", "1605.99005", "--top", "2")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith("**Wide Networks** (1605.99005, 2016-05-01)")
    speech = done.output.index("**Speech History**")
    assert "4 of 4 later results beat it, the best 2" in done.output[speech:]
    assert "| 2022-03-01 | Foundation-ASR |" in done.output
    missing = cli("beaten", "9999.99999")
    assert missing.exit_code == 1 and "not_found:" in missing.output
    nothing = cli("beaten", "1810.04805")
    assert "has no benchmark results in the catalog" in nothing.output


def test_the_installed_command_serves_both(
    dated: FakeCatalog, installed_server: InstalledServer
) -> None:
    # The console script itself (exit status, stdout and stderr apart), once.
    done = installed_server.command("sota", "Speech", "History")
    assert done.returncode == 0, done.stderr
    assert "Word Error Rate (WER) (lower is better)" in done.stdout
    assert done.stderr == ""  # no terminal: no progress line
    failed = installed_server.command("sota", "Vision", "History", "--metric", "BLEU")
    assert failed.returncode == 2  # a bad argument (README)
    assert failed.stderr.startswith("pwc-mcp-local: invalid_argument: unknown metric(s): BLEU")


def test_nothing_to_draw_and_nowhere_to_write(dated: FakeCatalog, cli: Any, tmp_path: Path) -> None:
    empty = cli("sota", "Total-Text", "--plot", str(tmp_path / "empty.png"))
    assert empty.exit_code == 1
    assert "The leaderboard holds no result to follow." in empty.output
    assert "no chart written" in empty.output and not (tmp_path / "empty.png").exists()
    early = cli("sota", "Vision", "History", "--as-of", "2000-01-01")
    assert early.exit_code == 0 and "No dated result on or before 2000-01-01." in early.output
    nowhere = cli("sota", "Vision", "History", "--plot", str(tmp_path / "no" / "x.svg"))
    assert nowhere.exit_code == 2 and "no directory" in nowhere.output
