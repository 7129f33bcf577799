"""The chart `sota --plot` draws (issue 35): visible points, a legend that covers none,
scores on the step labels, "1 step", a date axis that reads at any span, the stale note.

Read from the matplotlib `Figure` itself (`sota_plot.figure_of`); the command writing
it is in tests/test_history_e2e.py.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from pwc_local.queries.history import Result, SotaAnswer, Step, running_best

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.e2e  # matplotlib's font cache may run fc-list once

from pwc_local.commands.sota_plot import draw, figure_of  # noqa: E402


def _answer(points: list[tuple[date, float, str]], better: str = "higher") -> SotaAnswer:
    results = [Result(day, value, model, None, None, None) for day, value, model in points]
    steps: list[Step] = running_best(results, better)  # type: ignore[arg-type]
    return SotaAnswer(
        benchmark={"name": "Short Board"},
        metric="Accuracy",
        better=better,  # type: ignore[arg-type]
        assumed=False,
        as_of=None,
        steps=steps,
        results=results,
        rows_read=len(results),
        rows_total=len(results),
        merged=len(results),
        undated=0,
        without_metric=0,
        after_as_of=0,
    )


def _ticks(figure) -> list[str]:
    figure.canvas.draw()
    return [tick.get_text() for tick in figure.axes[0].get_xticklabels() if tick.get_text()]


def test_a_one_month_span_labels_its_axis_with_dates_and_says_1_step() -> None:
    start = date(2016, 1, 10)
    points = [(start + timedelta(days=n), 70.0 - n / 10, f"M{n}") for n in range(0, 30, 3)]
    figure = figure_of(_answer(points))
    ticks = _ticks(figure)
    assert ticks and all(len(tick) == 10 and tick.startswith("2016-0") for tick in ticks), ticks
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == ["all results (10)", "state of the art (1 step)"]


def test_points_sit_over_the_line_and_the_legend_outside_the_axes() -> None:
    points = [
        (date(2015, 1, 1), 80.0, "First"),
        (date(2018, 1, 1), 80.0, "Equal"),  # on the step line: drawn over it
        (date(2020, 1, 1), 87.76, "Second"),
    ]
    figure = figure_of(_answer(points))
    axes = figure.axes[0]
    results, _markers = axes.collections[:2]
    (line,) = axes.get_lines()
    assert results.get_zorder() > line.get_zorder()
    assert axes.get_legend() is None and len(figure.legends) == 1  # under the axes
    labels = [text.get_text() for text in axes.texts]
    assert "Second 87.76" in labels and "First 80.0" in labels


def test_a_stale_answer_heads_the_chart(tmp_path: Path) -> None:
    points = [(date(2019, 5, 1), 1.0, "Only")]
    note = "From the local cache, 3 hours old (saved 2026-12-07 15:14 UTC): the catalog $"
    figure = figure_of(_answer(points), note)
    assert figure.get_suptitle() == note.replace("$", r"\$")
    assert _ticks(figure)  # one date still has an axis around it
    assert draw(_answer(points), ".png", note=note).startswith(b"\x89PNG")
