"""`sota` and `beaten` as a newcomer meets them (issue 35): a stale answer says so in the
text, the JSON and the chart; `--json` is `call ... --json`'s model; an empty filter is
named as the reason, not the leaderboard.

Run in this process with click's runner (the `cli` fixture), in the default, compact
profile; tests/test_history_e2e.py has the installed command and the hosted shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.test_offline_e2e import age_cache


@pytest.fixture
def compact(cli: Any, fake_catalog: FakeCatalog, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`cli` in the default profile, with the fake's dated leaderboards."""
    fake_catalog.apply(HistoryBoards())
    monkeypatch.delenv("PWC_MCP_LOCAL_STRUCTURED", raising=False)
    monkeypatch.setenv("PWC_MCP_LOCAL_TIMEOUT", "5")
    return cli


def test_sota_json_is_the_tools_json(compact: Any) -> None:
    sota = compact("sota", "Vision", "History", "--as-of", "2020-12-31", "--json")
    call = compact("call", "sota_history", "benchmark=Vision History", "as_of=2020-12-31", "--json")
    assert sota.exit_code == 0 and call.exit_code == 0, sota.output + call.output
    assert json.loads(sota.stdout) == json.loads(call.stdout)
    assert "schema_version" not in json.loads(sota.stdout)
    assert "cache" not in json.loads(sota.stdout)
    beaten = compact("beaten", "1605.99005", "--json")
    told = compact("call", "who_beat_paper", "paper=1605.99005", "--json")
    assert json.loads(beaten.stdout) == json.loads(told.stdout)


def test_a_stale_answer_says_so_in_the_text_the_json_and_the_chart(
    compact: Any, fake_catalog: FakeCatalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compact("sota", "Vision", "History").exit_code == 0
    assert compact("beaten", "1605.99005").exit_code == 0
    age_cache(tmp_path / "cache", 3 * 3600 + 60)
    fake_catalog.stop()

    text = compact("sota", "Vision", "History")
    assert text.exit_code == 0, text.output
    first = text.stdout.splitlines()[0]
    assert first.startswith("From the local cache, 3 hours old (saved ")
    assert first.endswith("the catalog could not be reached.")
    as_json = json.loads(compact("sota", "Vision", "History", "--json").stdout)
    assert next(iter(as_json)) == "stale" and "cache" not in as_json
    called = compact("call", "sota_history", "benchmark=Vision History", "--json")
    called = json.loads(called.stdout)
    assert called == as_json  # the tool's compact JSON says it as every other tool does

    beaten = compact("beaten", "1605.99005")
    assert beaten.exit_code == 0, beaten.output
    assert beaten.stdout.count("From the local cache, 3 hours old") == 1
    assert beaten.stdout.index("From the local cache") < beaten.stdout.index("Speech History")

    notes: list[str | None] = []
    monkeypatch.setattr(
        "pwc_local.commands.sota_plot.draw",
        lambda answer, suffix, note=None, **_: notes.append(note) or b"chart",
    )
    plotted = compact("sota", "Vision", "History", "--plot", str(tmp_path / "stale.svg"))
    assert plotted.exit_code == 0, plotted.output
    assert notes and (notes[0] or "").startswith("From the local cache, 3 hours old")


def test_a_filter_that_leaves_nothing_is_named_not_the_leaderboard(compact: Any) -> None:
    done = compact("sota", "ImageNet-1k", "--max-parameters", "1M", "--open")
    assert done.exit_code == 0, done.output
    assert "The leaderboard holds no result to follow." not in done.stdout
    assert done.stdout.splitlines()[-1] == (
        "No dated result is left by the filters (open models only, at most 1M parameters); "
        "ask without them for the whole leaderboard."
    )
    unfiltered = compact("sota", "ImageNet-1k", "--json")
    assert "filters" not in json.loads(unfiltered.stdout)["series"]


def test_an_as_of_date_in_the_future_is_refused_with_a_word(compact: Any) -> None:
    later = compact("sota", "Vision", "History", "--as-of", "2999-01-01")
    assert later.exit_code == 2
    assert later.stderr.startswith("pwc-mcp-local: invalid_argument: as_of 2999-01-01 is after")
    assert "leave it out for the series up to today" in later.stderr
    assert compact("sota", "Vision", "History", "--as-of", "2020-01-01").exit_code == 0
