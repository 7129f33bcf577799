"""The state of the art through time and who beat a paper (issue 29), in-process.

The query functions run as a tools/call runs them (`call_query`: the contract's
defaults), through a real `HttpCatalog` against the loopback fake with its dated
leaderboards (`tests/fake_catalog/data_history.py`: ties, one day with two results,
a paper without a date, a row without the metric, lower-is-better WER, extra training
data, a 2,000-row board). The projections and the text are checked on those answers.
The installed command and its CLI: tests/test_history_e2e.py.
"""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date
from functools import partial
from typing import Any, TypeVar

import anyio
import pytest

from pwc_local.commands.history import Progress
from pwc_local.present import history as present
from pwc_local.queries import history
from pwc_local.queries.history import Result, running_best
from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import NotFound, UnknownMetric, UsageError
from pwc_local.upstream.http import HttpCatalog
from tests.fake_catalog import FakeCatalog, HistoryBoards

T = TypeVar("T")

sota = partial(call_query, "sota_history")
beaten = partial(call_query, "who_beat_paper")


async def _silent(done: float, total: float | None, message: str | None) -> None:
    return None


def run(fake: FakeCatalog, query: Callable[[HttpCatalog], Awaitable[T]]) -> T:
    async def main() -> T:
        catalog = HttpCatalog(fake.api_url, timeout=10)
        try:
            return await query(catalog)
        finally:
            await catalog.aclose()

    return anyio.run(main)


@pytest.fixture
def fake(fake_catalog: FakeCatalog) -> FakeCatalog:
    fake_catalog.apply(HistoryBoards())
    return fake_catalog


def series(answer: history.SotaAnswer) -> list[tuple[str, str, float, float | None]]:
    return [(str(s.result.date), s.result.model, s.result.value, s.gain) for s in answer.steps]


# -- the running best, on its own ------------------------------------------------------


def result(day: str, value: float, model: str) -> Result:
    return Result(date.fromisoformat(day), value, model, model, None, None)


def test_a_tie_is_no_step_and_is_counted() -> None:
    steps = running_best(
        [
            result("2020-01-01", 70, "A"),
            result("2021-01-01", 70, "B"),
            result("2022-01-01", 71, "C"),
        ],
        "higher",
    )
    assert [(s.result.model, s.gain, s.ties) for s in steps] == [("A", None, 1), ("C", 1, 0)]


def test_on_one_day_only_the_best_result_steps() -> None:
    steps = running_best(
        [
            result("2020-01-01", 60, "A"),
            result("2021-05-05", 65, "B"),
            result("2021-05-05", 68, "C"),
        ],
        "higher",
    )
    assert [(s.result.model, s.gain) for s in steps] == [("A", None), ("C", 8)]


def test_lower_is_better_steps_down_with_positive_gains() -> None:
    steps = running_best(
        [
            result("2019-01-01", 9.5, "A"),
            result("2018-01-01", 12.0, "B"),
            result("2020-01-01", 10, "C"),
        ],
        "lower",
    )
    assert [(s.result.model, s.gain) for s in steps] == [("B", None), ("A", 2.5)]


# -- state_of_the_art against the fake ----------------------------------------------------


def test_the_series_by_paper_date_with_what_was_left_out(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: sota(c, _silent, benchmark="Vision History"))
    assert (answer.metric, answer.better, answer.assumed) == ("Accuracy", "higher", False)
    assert series(answer) == [
        ("2012-06-01", "ConvNet-8", 60.0, None),
        ("2014-09-04", "Deep-B", 71.5, 11.5),  # Deep-A (70.0) is of the same day: no step
        ("2016-05-01", "Wide-28", 75.0, 3.5),  # ResTie's 71.5 in 2015 tied: no step
        ("2019-01-01", "EffNet-B7", 80.25, 5.25),  # A Regression's 74.0 in 2018: no step
        ("2021-11-11", "BigPre-L", 84.5, 4.25),
    ]
    assert answer.steps[1].ties == 1
    # Marvel's 99.0 has no date, Top5Net no Accuracy: neither is in the series.
    assert (answer.undated, answer.without_metric, answer.after_as_of) == (1, 1, 0)
    assert (answer.rows_read, answer.rows_total, answer.complete) == (13, 13, True)


def test_as_of_gives_the_state_of_the_art_on_that_day(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: sota(c, _silent, benchmark="vision-history", as_of="2016-12-31"))
    assert series(answer)[-1] == ("2016-05-01", "Wide-28", 75.0, 3.5)
    assert answer.after_as_of == 5
    text = present.sota_text(present.sota_model(answer))
    assert "the last is the state of the art on 2016-12-31" in text
    assert "BigPre-L" not in text


def test_the_filters_of_get_benchmark(fake: FakeCatalog) -> None:
    without_extra = run(
        fake, lambda c: sota(c, _silent, benchmark="Vision History", extra_data=False)
    )
    assert series(without_extra)[-1] == ("2022-02-02", "OpenSmall", 82.0, 1.75)
    opened = run(fake, lambda c: sota(c, _silent, benchmark="Vision History", is_open=True))
    assert "EffNet-B7" not in [model for _, model, _, _ in series(opened)]  # a closed model
    sized = run(fake, lambda c: sota(c, _silent, benchmark="ImageNet-1k", max_parameters="100M"))
    assert sized.results and all(r.model != "ViT-H/14" for r in sized.results)  # 632M
    assert any(r.path == "evaluations/" for r in fake.requests)  # the size-filtered listing


def test_lower_is_better_board(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: sota(c, _silent, benchmark="Speech History"))
    assert answer.better == "lower"
    assert series(answer) == [
        ("2013-03-01", "HMM-DNN", 12.0, None),
        ("2015-06-01", "LAS", 9.5, 2.5),  # LAS small (10.1) same day; TieNet ties in 2017
        ("2018-04-01", "Speech-Transformer", 6.0, 3.5),
        ("2022-03-01", "Foundation-ASR", 2.1, 3.9),
    ]


def test_metric_aliases_and_unknown_metrics(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: sota(c, _silent, benchmark="ImageNet-1k", metric="top1"))
    assert answer.metric == "Top-1 Accuracy"
    five = run(fake, lambda c: sota(c, _silent, benchmark="ImageNet-1k", metric="top-5 ACCURACY"))
    assert five.metric == "Top-5 Accuracy" and five.without_metric > 0  # some rows lack it
    params = run(fake, lambda c: sota(c, _silent, benchmark="ImageNet-1k", metric="Params"))
    assert (params.better, params.assumed) == ("higher", True)
    assert "assumed higher is better" in present.sota_text(present.sota_model(params))
    with pytest.raises(UnknownMetric, match="available metrics: Accuracy, Top-5 Accuracy"):
        run(fake, lambda c: sota(c, _silent, benchmark="Vision History", metric="BLEU"))


def test_bad_arguments_fail_before_any_request(fake: FakeCatalog) -> None:
    with pytest.raises(UsageError, match="as_of must be a calendar date"):
        run(fake, lambda c: sota(c, _silent, benchmark="Vision History", as_of="2020-13-01"))
    with pytest.raises(UsageError, match="max_parameters"):
        run(fake, lambda c: sota(c, _silent, benchmark="Vision History", max_parameters="big"))
    with pytest.raises(UsageError, match="benchmark must not be empty"):
        run(fake, lambda c: sota(c, _silent, benchmark="  "))
    assert len(fake.requests) == 0
    with pytest.raises(NotFound, match="Benchmark not found: Vision Histories"):
        run(fake, lambda c: sota(c, _silent, benchmark="Vision Histories"))


def test_every_row_of_a_2000_row_board_in_20_requests(fake: FakeCatalog) -> None:
    reports: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        reports.append((done, total))

    answer = run(fake, lambda c: sota(c, progress, benchmark="History Big"))
    assert (answer.rows_read, answer.rows_total, answer.complete) == (2000, 2000, True)
    assert len(answer.results) == 2000
    pages = [r for r in fake.requests if r.path == "datasets/903/evaluations/"]
    assert len(pages) == 20
    assert reports[0] == (100, 2000) and reports[-1] == (2000, 2000)
    text = present.sota_text(present.sota_model(answer))
    assert "All 2,000 rows read" in text


def test_a_board_past_the_row_bound_says_it_is_incomplete(
    fake: FakeCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "HISTORY_ROW_LIMIT", 500)
    answer = run(fake, lambda c: sota(c, _silent, benchmark="History Big"))
    assert (answer.rows_read, answer.rows_total, answer.complete) == (500, 2000, False)
    assert len([r for r in fake.requests if r.path == "datasets/903/evaluations/"]) == 5
    text = present.sota_text(present.sota_model(answer))
    assert "Only 500 of 2,000 rows read (the bound): may miss some" in text


# -- who beat this paper -------------------------------------------------------------------


def test_who_beat_a_paper_best_first_with_margins(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: beaten(c, _silent, paper="1409.99002"))
    assert (answer.title, answer.published, answer.benchmarks) == (
        "Deeper Networks A",
        date(2014, 9, 4),
        1,
    )
    [board] = answer.boards
    assert (board.metric, board.mine.model, board.mine.value) == ("Accuracy", "Deep-A", 70.0)
    # Later than 2014-09-04: Deep-B of the same day is not later; Marvel has no date.
    assert [(r.model, margin) for r, margin in board.by] == [
        ("BigPre-L", 14.5),
        ("OpenSmall", 12.0),
        ("EffNet-B7", 10.25),
        ("Wide-28", 5.0),
        ("Regress-1", 4.0),
        ("ResTie", 1.5),
    ]
    assert board.held == 1  # Weak-2020's 68.0
    assert answer.undated == 1
    model = present.beaten_model(answer)
    assert [b.model for b in model.results[0].by] == [
        "BigPre-L",
        "OpenSmall",
        "EffNet-B7",
        "Wide-28",
        "Regress-1",
    ]
    assert model.results[0].beaten == 6


def test_who_beat_a_paper_on_two_boards_one_lower_is_better(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: beaten(c, _silent, paper="1605.99005"))
    boards = {board.benchmark: board for board in answer.boards}
    speech = boards["Speech History"]
    assert speech.better == "lower" and speech.mine.value == 11.0
    assert [(r.model, m) for r, m in speech.by] == [
        ("Foundation-ASR", 8.9),
        ("Speech-Transformer", 5.0),
        ("Regress-WER", 4.7),
        ("TieNet", 1.5),
    ]
    vision = boards["Vision History"]
    assert [r.model for r, _ in vision.by] == ["BigPre-L", "OpenSmall", "EffNet-B7"]
    assert vision.held == 2  # A Regression (74.0) and Weak-2020 (68.0)


def test_a_paper_without_results_gets_a_clear_answer(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: beaten(c, _silent, paper="1810.04805"))
    assert (answer.benchmarks, answer.boards) == (0, [])
    text = present.beaten_text(present.beaten_model(answer))
    assert "has no benchmark results in the catalog" in text


def test_a_paper_nobody_beat(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: beaten(c, _silent, paper="1706.03762"))
    assert [(b.benchmark, b.by, b.held) for b in answer.boards] == [
        ("WMT2014 English-German", [], 0),
        ("WMT2014 English-French", [], 0),
    ]
    assert "no later result" in present.beaten_text(present.beaten_model(answer))


# -- the two halves of a result -------------------------------------------------------------


def compact(model: Any) -> int:
    document = model.model_dump(mode="json")
    return len(json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("sota_history", {"benchmark": "Vision History"}),
        ("sota_history", {"benchmark": "Speech History", "as_of": "2019-01-01"}),
        ("sota_history", {"benchmark": "History Big"}),
        ("sota_history", {"benchmark": "ImageNet-1k"}),
        ("who_beat_paper", {"paper": "1409.99002"}),
        ("who_beat_paper", {"paper": "1605.99005"}),
        ("who_beat_paper", {"paper": "1706.03762"}),
        ("who_beat_paper", {"paper": "1512.03385"}),
        ("who_beat_paper", {"paper": "1810.04805"}),
    ],
)
def test_the_text_holds_every_fact_and_the_json_is_compact(
    fake: FakeCatalog, tool: str, arguments: dict[str, Any]
) -> None:
    answer = run(fake, lambda c: call_query(tool, c, _silent, **arguments))
    model = present.project(answer, arguments)
    text = present.text(model)
    document = model.model_dump(mode="json")
    rows = (
        document["steps"]
        if tool == "sota_history"
        else [row for board in document["results"] for row in board["by"]]
    )
    # With a table, at most 1.5 times the text; an answer of a line or two (a paper
    # without results, or nobody beat it) also pays the fixed fields, under 200 bytes.
    assert compact(model) <= 1.5 * len(text.encode()) + (0 if rows else 200)
    for row in rows:
        for key in ("date", "model", "paper", "ref"):
            assert str(row[key]) in text, (key, row)
    links = [key for key, _ in present.linked(model)]
    assert len(links) == len(set(links)) <= max(present.LINKED_STEPS, 1 + len(rows))
    linked = rows[-present.LINKED_STEPS :] if tool == "sota_history" else rows
    assert (
        {row["ref"] for row in linked}
        <= set(links)
        <= {row["ref"] for row in rows} | {document.get("paper", {}).get("ref")}
    )


def test_catalog_text_is_sanitised(fake: FakeCatalog) -> None:
    answer = run(fake, lambda c: sota(c, _silent, benchmark="Vision History"))
    hostile = answer.steps[0].result._replace(model="Net\x1b[2J|evil\nline")
    steps = [history.Step(hostile, None), *answer.steps[1:]]
    text = present.sota_text(present.sota_model(replace(answer, steps=steps)))
    assert "\x1b" not in text and "Net|evil" not in text and "Net\\|evil line" in text


def test_the_progress_line_is_for_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    progress = Progress()
    anyio.run(progress, 100, 2000, "History Big: 100 of 2000 rows")
    anyio.run(progress, 200, 2000, "History Big: 200 of 2000 rows")
    progress.clear()
    written = screen.getvalue()
    assert written.count("\r") == 4 and "200 of 2000" in written
    assert written.endswith("\r" + " " * len("History Big: 200 of 2000 rows") + "\r")  # cleared
    monkeypatch.setattr("sys.stderr", io.StringIO())
    quiet = Progress()
    anyio.run(quiet, 100, 2000, "History Big: 100 of 2000 rows")
    assert quiet.shown == 0
