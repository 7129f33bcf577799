"""The chart of `pwc-mcp-local sota --plot FILE`: the running best over every result.

Every dated result on the metric is a grey dot at its paper's date, drawn over the
line so that one equal to a step stays visible; the state of the art is a step line
through the new bests (each marked and, up to `LABELLED` of the latest, spread out,
labelled with its model and score), held flat to the last date shown (`as_of`, or the
latest result). The legend sits under the axes, where it covers no point. The date
axis is labelled in years, months or days by the span shown. A `note` (a stale
answer's line) heads the chart. PNG or SVG, by the file's suffix.

matplotlib is the `[plot]` extra (README, "Dependencies"), imported only here, and
only when a chart is asked for. No pyplot: a `Figure` of its own (`figure_of`, which
tests read), so no GUI backend or global state is involved. Labels come from the
catalog: each is one sanitised line, with `$` escaped so that matplotlib does not
read it as mathematics.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from pwc_local.present.words import metric, plural
from pwc_local.queries.history import SotaAnswer, Step
from pwc_local.safe_text import one_line

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LABELLED = 12  # step labels drawn, the latest ones
LABEL_CHARS = 40


def _label(text: str) -> str:
    return one_line(text, LABEL_CHARS, cut="…").replace("$", r"\$")


def _note(text: str) -> str:
    return one_line(text, 200).replace("$", r"\$")


def _when(day: date) -> datetime:
    return datetime.combine(day, time())


def _labelled(steps: list[Step], span: int) -> list[Step]:
    """At most `LABELLED` steps to name, latest first, each a tenth of the dates apart
    from the next named one, so that labels do not run into each other."""
    chosen: list[Step] = []
    for step in reversed(steps):
        day = step.result.date
        if day is None:
            continue
        if chosen and chosen[-1].result.date and (chosen[-1].result.date - day).days < span / 10:
            continue
        chosen.append(step)
        if len(chosen) == LABELLED:
            break
    return chosen


def draw(answer: SotaAnswer, suffix: str, *, note: str | None = None) -> bytes:
    """The chart of `answer` as a file of type `suffix` (`.png` or `.svg`); `note` heads
    it (where a stale answer says so).

    Bytes, not a file: the command writes them (`settings.write_output`: never
    through a link, never over a file without `--force`).
    """
    import io

    drawn = io.BytesIO()
    figure_of(answer, note).savefig(drawn, format=suffix.lower().lstrip("."))
    return drawn.getvalue()


def figure_of(answer: SotaAnswer, note: str | None = None) -> Figure:
    """The chart of `answer` as a matplotlib `Figure` (module docstring)."""
    from matplotlib.dates import date2num
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 5.6), dpi=120, layout="constrained")
    axes = figure.add_subplot()
    results = sorted(answer.results, key=lambda r: r.date or date.min)
    dated = [r for r in results if r.date]
    axes.scatter(
        date2num([_when(r.date) for r in dated if r.date]),
        [r.value for r in dated],
        s=22,
        color="#5f6368",
        alpha=0.7,
        edgecolors="white",
        linewidths=0.5,
        label=f"all results ({len(results):,})",
        zorder=3,
    )
    steps = [step for step in answer.steps if step.result.date is not None]
    start = end = _when(dated[0].date) if dated and dated[0].date else None
    if steps:
        days = [_when(step.result.date) for step in steps if step.result.date]
        values = [step.result.value for step in steps]
        last = answer.as_of or max(r.date for r in dated if r.date)
        start, end = min(days[0], start or days[0]), max(_when(last), days[-1])
        axes.step(
            date2num([*days, end]),
            [*values, values[-1]],
            where="post",
            color="#1a73e8",
            linewidth=2,
            label=f"state of the art ({plural(len(steps), 'step')})",
            zorder=2,
        )
        axes.scatter(date2num(days), values, s=36, color="#1a73e8", zorder=4)
        span = (end - days[0]).days or 1
        for step in _labelled(steps, span):
            if step.result.date is None:
                continue
            near_end = (end - _when(step.result.date)).days < span * 0.15
            axes.annotate(
                f"{_label(step.result.model)} {_label(metric(step.result.value))}",
                (float(date2num(_when(step.result.date))), step.result.value),
                xytext=(-4 if near_end else 4, 7 if answer.better == "higher" else -14),
                textcoords="offset points",
                ha="right" if near_end else "left",
                fontsize=8,
                color="#174ea6",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85},
                zorder=5,
            )
    axes.margins(x=0.02, y=0.08)
    if start is not None and end is not None:
        _date_axis(axes, start, end)
    better = "assumed higher" if answer.assumed else answer.better
    axes.set_ylabel(f"{_label(answer.metric)} ({better} is better)")
    axes.set_xlabel("paper date")
    name = _label(str(answer.benchmark.get("name") or answer.benchmark.get("id")))
    when = f" as of {answer.as_of.isoformat()}" if answer.as_of else ""
    axes.set_title(f"{name}: state of the art on {_label(answer.metric)}{when}")
    axes.grid(True, color="#e8eaed", linewidth=0.8)
    axes.set_axisbelow(True)
    figure.legend(loc="outside lower center", ncols=2, frameon=False)
    if note:
        figure.suptitle(_note(note), fontsize=9, color="#b06000")
    return figure


def _date_axis(axes: Axes, start: datetime, end: datetime) -> None:
    """Ticks and labels by the span shown: years over three years, months over two
    months, else days (`2016-01-13`, never a day number above a lone month)."""
    from matplotlib.dates import AutoDateLocator, DateFormatter, MonthLocator, YearLocator, date2num

    days = (end - start).days
    if days < 1:  # one date: a month either side, so the point is not on the frame
        pad = timedelta(days=30)
        axes.set_xlim(float(date2num(start - pad)), float(date2num(end + pad)))
        days = 60
    if days > 3 * 365:
        axes.xaxis.set_major_locator(YearLocator(base=max(1, round(days / 365 / 8))))
        axes.xaxis.set_major_formatter(DateFormatter("%Y"))
    elif days > 61:
        axes.xaxis.set_major_locator(MonthLocator(interval=max(1, round(days / 30 / 8))))
        axes.xaxis.set_major_formatter(DateFormatter("%Y-%m"))
    else:
        axes.xaxis.set_major_locator(AutoDateLocator(minticks=3, maxticks=7))
        axes.xaxis.set_major_formatter(DateFormatter("%Y-%m-%d"))
