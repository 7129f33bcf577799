"""What `sota_history` and `who_beat_paper` send: compact models, their text, their papers.

`project(answer, arguments)` turns the query's answer (`pwc_local.queries.history`)
into the model (`structuredContent`); `text(model)` writes the text block from that
same model, so the two halves carry the same facts; `linked(model)` names the papers
for `resource_link` items (the binding makes them `server.links.PaperLink`s). Totals
come first (`scan`), each fact once: the state of the art on the `as_of` date is the
series' last step, not repeated beside it.
Everything from the catalog goes through the one sanitiser (`words.clean`, `table`).
Optional fields default to `None`: the compact profile leaves them out of the JSON.

The command line prints the same text, and `--json` the same model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import Field

from pwc_local.present.hosted import LocalOutput, ToolOutput, _Strict
from pwc_local.present.words import clean, metric, plural, table
from pwc_local.queries.history import BeatenAnswer, BeatenBoard, Result, SotaAnswer
from pwc_local.queries.result_settings import Setting, differences

MAX_STEPS = 100  # steps sent, the latest ones; `scan.steps` counts them all
BEATERS = 5  # results that beat a paper shown per board, best first
LINKED_STEPS = 10  # papers of the latest steps that get resource links

# "assumed higher": the metric's name does not say, and higher was taken as better.
Better = Literal["higher", "lower", "assumed higher"]


class Step(_Strict):
    date: str
    model: str
    paper: str | None = None
    ref: str | None = None  # arXiv or catalog ID, for the paper tools
    score: float
    gain: float | None = None  # none on the first step
    settings: str | None = None  # where they differ from the series' settings


class Scan(_Strict):
    rows_read: int
    rows_total: int
    results: int  # dated results with a value, up to as_of
    undated: int
    without_metric: int
    after_as_of: int
    steps: int


class Series(_Strict):
    benchmark: str
    metric: str
    better: Better
    as_of: str | None = None
    settings: str | None = None  # most results'; a step in others says where it differs
    # The filters asked for, in words; sent only when some were.
    filters: list[str] | None = Field(default=None, exclude_if=lambda value: value is None)


class SotaResult(LocalOutput):
    """`sota_history`: the running best by paper date; the last step is the state of the art."""

    scan: Scan
    series: Series
    steps: list[Step]


class Beater(_Strict):
    date: str
    model: str
    paper: str | None = None
    ref: str | None = None
    score: float
    margin: float
    settings: str | None = None  # where they differ from the paper's result's


class Board(_Strict):
    benchmark: str
    metric: str
    better: Better
    model: str  # the paper's best result here
    score: float
    beaten: int  # later results that beat it
    held: int  # later results that did not
    by: list[Beater]  # the best ones


class BeatenScan(_Strict):
    benchmarks: int  # the paper has results on
    read: int  # leaderboards read
    partial: list[str]  # benchmarks whose leaderboard was read in part (the scan's bound)
    undated: int  # results left out: no date


class BeatenPaper(_Strict):
    title: str
    ref: str
    published: str | None = None


class BeatenResult(LocalOutput):
    """`who_beat_paper`: per benchmark and metric of a paper, the later results that beat it."""

    scan: BeatenScan
    paper: BeatenPaper
    results: list[Board]


# -- projections ---------------------------------------------------------------------------


def _better(better: Literal["higher", "lower"], assumed: bool) -> Better:
    return "assumed higher" if assumed else better


def _differs(mine: Setting | None, other: Setting | None) -> str | None:
    """What `other` was obtained under where it differs from `mine`, or `None`."""
    if mine is None or other is None or mine == other:
        return None
    return ", ".join(differences(mine, other))


def _step(result: Result, gain: float | None, main: Setting | None) -> Step:
    return Step(
        date=str(result.date),
        model=result.model,
        paper=result.paper_title,
        ref=result.paper_ref,
        score=result.value,
        gain=gain,
        settings=_differs(main, result.setting),
    )


def project(answer: SotaAnswer | BeatenAnswer, arguments: Mapping[str, Any]) -> ToolOutput:
    """The model of either tool's answer (`arguments` may set `top`, beaters per board)."""
    if isinstance(answer, SotaAnswer):
        return sota_model(answer)
    return beaten_model(answer, top=int(arguments.get("top") or BEATERS))


def sota_model(answer: SotaAnswer) -> SotaResult:
    return SotaResult(
        scan=Scan(
            rows_read=answer.rows_read,
            rows_total=answer.rows_total,
            results=len(answer.results),
            undated=answer.undated,
            without_metric=answer.without_metric,
            after_as_of=answer.after_as_of,
            steps=len(answer.steps),
        ),
        series=Series(
            benchmark=str(answer.benchmark.get("name") or answer.benchmark.get("id")),
            metric=answer.metric,
            better=_better(answer.better, answer.assumed),
            as_of=None if answer.as_of is None else answer.as_of.isoformat(),
            settings=answer.setting.label if answer.setting else None,
            filters=list(answer.filters) or None,
        ),
        steps=[_step(s.result, s.gain, answer.setting) for s in answer.steps[-MAX_STEPS:]],
    )


def _board(board: BeatenBoard, top: int) -> Board:
    return Board(
        benchmark=board.benchmark,
        metric=board.metric,
        better=_better(board.better, board.assumed),
        model=board.mine.model,
        score=board.mine.value,
        beaten=len(board.by),
        held=board.held,
        by=[
            Beater(
                date=str(result.date),
                model=result.model,
                paper=result.paper_title,
                ref=result.paper_ref,
                score=result.value,
                margin=margin,
                settings=_differs(board.mine.setting, result.setting),
            )
            for result, margin in board.by[:top]
        ],
    )


def beaten_model(answer: BeatenAnswer, *, top: int = BEATERS) -> BeatenResult:
    return BeatenResult(
        scan=BeatenScan(
            benchmarks=answer.benchmarks,
            read=answer.read,
            partial=list(dict.fromkeys(b.benchmark for b in answer.boards if not b.complete)),
            undated=answer.undated,
        ),
        paper=BeatenPaper(
            title=answer.title,
            ref=answer.paper_ref,
            published=None if answer.published is None else answer.published.isoformat(),
        ),
        results=[_board(board, top) for board in answer.boards],
    )


# -- text ----------------------------------------------------------------------------------


def _paper(title: str | None, ref: str | None) -> str:
    if title and ref:
        return f"{title} ({ref})"
    return title or ref or ""


def _metric(name: str, better: Better) -> str:
    return f"{clean(name)} ({better} is better)"


def _number(value: float | None) -> str:
    return "" if value is None else metric(value)


def sota_text(model: SotaResult) -> str:
    """The series as a Markdown table under two lines: what it is of, and what was read."""
    scan, series = model.scan, model.series
    as_of = series.as_of
    what = f", {_metric(series.metric, series.better)}" if series.metric else ""
    when = f" on {as_of}" if as_of else ""
    head = f"**{clean(series.benchmark)}**{what}"
    if model.steps:
        head += f": each new best by paper date; the last is the state of the art{when}."
    if scan.rows_read >= scan.rows_total:
        read = f"All {plural(scan.rows_total, 'row')} read"
    else:
        read = (
            f"Only {scan.rows_read:,} of {scan.rows_total:,} rows read (the bound): may miss some"
        )
    left = [
        (scan.undated, "undated"),
        (scan.without_metric, f"without {clean(series.metric)}"),
        (scan.after_as_of, f"after {as_of}"),
    ]
    out = ", ".join(f"{count:,} {why}" for count, why in left if count)
    lines = [
        head,
        f"{read}; {plural(scan.results, 'dated result')}"
        + (f"; left out {out}" if out else "")
        + ".",
    ]
    if not model.steps:
        if series.filters:  # say what left nothing, and the way out
            lines.append(
                f"No dated result is left by the filters ({', '.join(series.filters)}); "
                "ask without them for the whole leaderboard."
            )
        elif not series.metric:
            lines.append("The leaderboard holds no result to follow.")
        elif scan.after_as_of:
            lines.append(f"No dated result on or before {as_of}.")
        else:
            lines.append(f"No dated result has a value for {clean(series.metric)}.")
        return "\n".join(lines)
    if scan.steps > len(model.steps):
        lines.append(f"The first {scan.steps - len(model.steps):,} steps are not shown.")
    rows = [
        (s.date, s.model, _paper(s.paper, s.ref), _number(s.score), _number(s.gain))
        for s in model.steps
    ]
    headers, rows = _marked(("date", "model", "paper", "score", "gain"), rows, model.steps)
    return "\n".join(lines) + "\n\n" + table(headers, rows)


def _marked(
    headers: tuple[str, ...], rows: list[tuple[Any, ...]], items: list[Any]
) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    """The table with an `other settings` column (what differs from most results, or from
    the paper's), when any of its rows has one."""
    if not any(item.settings for item in items):
        return headers, rows
    marked = [(*row, item.settings or "") for row, item in zip(rows, items, strict=True)]
    return (*headers, "other settings"), marked


def board_text(board: Board, partial: bool = False) -> str:
    """One benchmark and metric of `who_beat_paper`."""
    head = (
        f"**{clean(board.benchmark)}**, {_metric(board.metric, board.better)}: "
        f"{clean(board.model)} {_number(board.score)}; "
    )
    later = board.beaten + board.held
    if not later:
        head += "no later result"
    elif not board.beaten:
        head += f"none of {plural(later, 'later result')} beat it"
    else:
        head += f"{board.beaten:,} of {plural(later, 'later result')} beat it"
    if partial:
        head += " (leaderboard read in part)"
    if not board.by:
        return head + "."
    shown = "" if board.beaten <= len(board.by) else f", the best {len(board.by)}"
    rows = [
        (b.date, b.model, _paper(b.paper, b.ref), _number(b.score), _number(b.margin))
        for b in board.by
    ]
    headers, rows = _marked(("date", "model", "paper", "score", "margin"), rows, board.by)
    return f"{head}{shown}:\n\n" + table(headers, rows)


def beaten_head(model: BeatenResult) -> str:
    """The paper and how many of its benchmarks were read."""
    paper, scan = model.paper, model.scan
    when = f", {paper.published}" if paper.published else ", date unknown"
    named = f"**{clean(paper.title)}** ({clean(paper.ref)}{when})"
    if scan.benchmarks == 0:
        return f"{named} has no benchmark results in the catalog: nothing to beat."
    line = f"{named}: results on {plural(scan.benchmarks, 'benchmark')}"
    if scan.read < scan.benchmarks:
        line += f", the first {scan.read} read"
    if scan.undated:
        line += f"; {plural(scan.undated, 'result')} without a date left out"
    return line + "."


def beaten_text(model: BeatenResult) -> str:
    partial = set(model.scan.partial)
    blocks = [beaten_head(model)]
    blocks += [board_text(board, board.benchmark in partial) for board in model.results]
    if model.scan.benchmarks and not model.results:
        blocks.append("No metric with a known direction to compare on.")
    return "\n\n".join(blocks)


def text(model: ToolOutput) -> str:
    """The text block of either tool."""
    if isinstance(model, SotaResult):
        return sota_text(model)
    if isinstance(model, BeatenResult):
        return beaten_text(model)
    raise TypeError(f"no history text for {type(model).__name__}")


def _linked(pairs: Iterable[tuple[str | None, str | None]]) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for ref, title in pairs:
        key = (ref or "").strip()
        if key and key not in seen:
            seen[key] = title or key
    return list(seen.items())


def linked(model: Any) -> list[tuple[str, str]]:
    """The papers a result names for `resource_link` items, as (reference, title), each
    once: the latest steps' (at most `LINKED_STEPS`: each link is a lookup and two
    items), or the paper and those that beat it."""
    if isinstance(model, SotaResult):
        return _linked((step.ref, step.paper) for step in reversed(model.steps))[:LINKED_STEPS]
    if isinstance(model, BeatenResult):
        beaters = ((b.ref, b.paper) for board in model.results for b in board.by)
        return _linked([(model.paper.ref, model.paper.title), *beaters])
    return []
