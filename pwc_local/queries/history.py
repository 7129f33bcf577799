"""Leaderboards through time: the state of the art by date, and who beat a paper.

Every evaluation row carries its paper's publication date, so a whole leaderboard,
read page by page through the caching source (`benchmarks.scan_leaderboard`) and
merged (`leaderboard.merge_rows`), orders into a history:

* `state_of_the_art`: the running best on one metric by paper date. A result is a
  step when it is strictly better than every earlier one; a tie is not a step, and
  results of one day are taken best first, so of several results on the day a new
  best is set only the best counts. `as_of` keeps results up to that date: the last
  step is then the state of the art on that day.
* `beaten`: for each benchmark and metric where a paper has a result, the results of
  later papers that beat its best one there, best first, with the margin, and how
  many later results did not.

Metric names resolve as `get_benchmark` resolves them (`leaderboard.resolve_metrics`:
case, aliases, a unique containing name) and each metric's direction is
`leaderboard.metric_direction`; where a name does not say, higher is taken as better
and the answer says it assumed so. Results without a date or without a value for the
metric are left out of the series and counted.

Bounds: a leaderboard is read 100 rows a request, at most `HISTORY_ROW_LIMIT` rows
(`HISTORY_ROW_LIMIT / 100` requests, each body within the client's 2 MiB bound), and
the answer says whether that was all of it (`complete`); `beaten` reads at most
`BEATEN_BENCHMARKS` leaderboards (the paper's most popular benchmarks first).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal, NamedTuple

from pwc_local.queries.arguments import parse_date, reference_text, required_text
from pwc_local.queries.benchmarks import BOARD_ROW_LIMIT, find_benchmark, scan_leaderboard
from pwc_local.queries.leaderboard import (
    available_metrics,
    merge_rows,
    metric_direction,
    metric_value,
    parse_parameter_size,
    resolve_metrics,
)
from pwc_local.queries.papers import get_paper_info
from pwc_local.queries.result_settings import Setting, grouped, setting_of
from pwc_local.safe_text import one_line
from pwc_local.upstream.errors import UsageError
from pwc_local.upstream.source import CatalogSource

__all__ = [
    "BEATEN_BENCHMARKS",
    "HISTORY_ROW_LIMIT",
    "BeatenAnswer",
    "BeatenBoard",
    "BoardsRead",
    "Result",
    "SotaAnswer",
    "Step",
    "beaten",
    "beaten_boards",
    "best_first",
    "filter_words",
    "running_best",
    "state_of_the_art",
]

HISTORY_ROW_LIMIT = BOARD_ROW_LIMIT  # rows one leaderboard scan reads at most: 50 requests of 100
BEATEN_BENCHMARKS = 10  # leaderboards `beaten` reads at most

Better = Literal["higher", "lower"]
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class Result(NamedTuple):
    """One merged leaderboard result on one metric (a tuple: thousands are made per call)."""

    date: date | None
    value: float
    model: str
    paper_id: str | None
    paper_title: str | None
    arxiv_id: str | None
    setting: Setting | None = None

    @property
    def paper_ref(self) -> str | None:
        """What the paper tools take for this paper: its arXiv ID, else its catalog ID."""
        return self.arxiv_id or self.paper_id


@dataclass(frozen=True)
class Step:
    """A new best: the result, its gain over the previous best (positive, in the metric's
    better direction; `None` for the first) and how many later results only tied it."""

    result: Result
    gain: float | None
    ties: int = 0


@dataclass(frozen=True)
class SotaAnswer:
    """The answer of `state_of_the_art`.

    `results` are every dated result with a value, up to `as_of` (the chart's
    scatter); `rows_read` of `rows_total` stored rows were read (`complete` when all);
    `merged` is how many results they merge into, of which `undated` have no date,
    `without_metric` no value for the metric and `after_as_of` a later date. `setting`
    is the largest group's (`result_settings`): a step in others is not comparable.
    `filters` names the filters asked for, in words (`closed models only`).
    """

    benchmark: dict[str, Any]
    metric: str
    better: Better
    assumed: bool
    as_of: date | None
    steps: list[Step]
    results: list[Result]
    rows_read: int
    rows_total: int
    merged: int
    undated: int
    without_metric: int
    after_as_of: int
    setting: Setting | None = None  # most results' settings (the largest group)
    filters: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.rows_read >= self.rows_total


@dataclass(frozen=True)
class BeatenBoard:
    """One benchmark and metric of `beaten`: the paper's best result there (`mine`),
    the later results that beat it, best first (`by`, each with its margin), and how
    many later results did not (`held`). `complete`: the whole leaderboard was read."""

    benchmark: str
    metric: str
    better: Better
    assumed: bool
    mine: Result
    by: list[tuple[Result, float]]
    held: int
    complete: bool


@dataclass(frozen=True)
class BeatenAnswer:
    """The answer of `beaten`: the paper, its boards, and how many benchmarks it has
    results on (`benchmarks`) of which `read` were read (at most `BEATEN_BENCHMARKS`)."""

    paper_ref: str
    title: str
    published: date | None
    benchmarks: int
    read: int
    boards: list[BeatenBoard] = field(default_factory=list)
    undated: int = 0


# -- dates, values, order --------------------------------------------------------------


def row_date(row: Mapping[str, Any]) -> date | None:
    """The row's paper date (`paper_published_date`, ISO, a time part ignored), or `None`."""
    value = row.get("paper_published_date")
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def result_of(row: Mapping[str, Any], metric: str) -> Result | None:
    """The merged `row`'s result on `metric` (a case-folded leaderboard name), or `None`."""
    value = metric_value(row, metric)
    if value is None:
        return None
    return Result(
        date=row_date(row),
        value=value,
        model=_text(row.get("model_name")) or "unnamed model",
        paper_id=_text(row.get("paper_id")),
        paper_title=_text(row.get("paper_title")),
        arxiv_id=_text(row.get("paper_arxiv_id")),
        setting=setting_of(row),
    )


def metric_better(name: str) -> tuple[Better, bool]:
    """The metric's better direction, and whether it was assumed (higher)."""
    found = metric_direction(name)
    return ("higher", True) if found == "unknown" else (found, False)


def score_key(result: Result, better: Better) -> float:
    return result.value if better == "higher" else -result.value


def rank_key(better: Better) -> Callable[[Result], tuple[float, date, str, str]]:
    """The order of `best_first`, as a sort key."""
    return lambda r: (
        -score_key(r, better),
        r.date or date.max,
        r.model.casefold(),
        r.paper_id or "",
    )


def best_first(results: Iterable[Result], better: Better) -> list[Result]:
    """Best value first; equal values by date (undated last), model, paper."""
    return sorted(results, key=rank_key(better))


def margin(a: float, b: float) -> float:
    # Catalog values carry a few decimals; the float noise of a difference is not news.
    return round(abs(a - b), 6)


def running_best(results: Iterable[Result], better: Better) -> list[Step]:
    """The steps of the state of the art through `results` (all dated).

    By date, and within a date best first (then model and paper, for a stable
    answer); a step is strictly better than the best before it.
    """
    ordered = sorted(
        results,
        key=lambda r: (r.date, -score_key(r, better), r.model.casefold(), r.paper_id or ""),
    )
    steps: list[Step] = []
    for result in ordered:
        if not steps or score_key(result, better) > score_key(steps[-1].result, better):
            gain = None if not steps else margin(result.value, steps[-1].result.value)
            steps.append(Step(result, gain))
        elif result.value == steps[-1].result.value:
            steps[-1] = Step(steps[-1].result, steps[-1].gain, steps[-1].ties + 1)
    return steps


# -- the state of the art --------------------------------------------------------------


def _filtered(rows: list[dict[str, Any]], extra_data: bool | None) -> list[dict[str, Any]]:
    if extra_data is None:
        return rows
    return [row for row in rows if bool(row.get("uses_additional_data")) is extra_data]


def _primary(rows: list[dict[str, Any]]) -> str | None:
    """The leaderboard's primary metric: the best-ranked row's `best_metric`."""
    for row in rows:
        name = row.get("best_metric")
        if isinstance(name, str) and name.strip():
            return name.strip()
    names = available_metrics(rows)
    return next(iter(names.values()), None)


def _scan_report(progress: Progress | None, what: str) -> Any:
    """Page reports as progress notifications, the benchmark named as catalog text is."""
    if progress is None:
        return None
    what = one_line(what, 100, cut="…")

    async def on_page(read: int, total: int) -> None:
        await progress(read, total, f"{what}: {read} of {total} rows")

    return on_page


@dataclass(frozen=True)
class Board:
    """A whole leaderboard as the history tools read it: its `find_benchmark` row, its
    merged results (filtered), and how many stored rows were read of how many."""

    benchmark: dict[str, Any]
    merged: list[dict[str, Any]]
    rows_read: int
    rows_total: int

    @property
    def name(self) -> str:
        return str(self.benchmark.get("name") or self.benchmark.get("id"))

    def metric(self, wanted: str) -> tuple[str, str]:
        """The metric `wanted` serves (`""`: the primary) as (case-folded, shown); two empty
        texts when the board holds no result. An unknown name is an `UnknownMetric`."""
        requested = wanted.strip() or _primary(self.merged)
        if requested is None:
            return "", ""
        actual = resolve_metrics([requested], self.merged)[requested.strip().casefold()]
        return actual, available_metrics(self.merged)[actual]


async def read_board(
    catalog: CatalogSource,
    progress: Progress | None,
    benchmark: str,
    *,
    is_open: bool | None,
    max_parameters: str | None,
    extra_data: bool | None,
) -> Board:
    """The whole leaderboard of `benchmark` (see the module docstring for the bounds), with
    `get_benchmark`'s filters `is_open` and `max_parameters`, and `extra_data` (false:
    only results without extra training data; true: only those with)."""
    reference = reference_text(benchmark, "benchmark")
    size = None if max_parameters is None else parse_parameter_size(max_parameters)
    row = await find_benchmark(catalog, reference)
    name = str(row.get("name") or reference)
    rows, total = await scan_leaderboard(
        catalog,
        row,
        is_open=is_open,
        size=size,
        limit=HISTORY_ROW_LIMIT,
        on_page=_scan_report(progress, name),
    )
    merged = _filtered(merge_rows(rows), extra_data)
    return Board(row, merged, len(rows), max(total, len(rows)))


async def state_of_the_art(
    catalog: CatalogSource,
    progress: Progress | None,
    benchmark: str,
    *,
    metric: str,
    as_of: str,
    is_open: bool | None,
    max_parameters: str | None,
    extra_data: bool | None,
) -> SotaAnswer:
    """The running best on `metric` (`""`: the leaderboard's primary) by paper date.

    Reads the whole leaderboard (`read_board`, with its filters). An unknown metric is
    an `UnknownMetric` naming the leaderboard's metrics.
    """
    cutoff = parse_date("as_of", as_of)
    today = datetime.now(timezone.utc).date()
    if cutoff is not None and cutoff > today + timedelta(days=1):  # a day's slack: time zones
        raise UsageError(
            f"as_of {cutoff} is after today ({today}), when no paper is dated yet; "
            "leave it out for the series up to today"
        )
    board = await read_board(
        catalog,
        progress,
        benchmark,
        is_open=is_open,
        max_parameters=max_parameters,
        extra_data=extra_data,
    )
    merged = board.merged
    actual, shown = board.metric(metric)
    better, assumed = metric_better(shown)
    dated: list[Result] = []
    undated = without = later = 0
    for merged_row in merged:
        result = result_of(merged_row, actual)
        if result is None:
            without += 1
        elif result.date is None:
            undated += 1
        elif cutoff is not None and result.date > cutoff:
            later += 1
        else:
            dated.append(result)
    return SotaAnswer(
        benchmark=board.benchmark,
        metric=shown,
        better=better,
        assumed=assumed,
        as_of=cutoff,
        steps=running_best(dated, better),
        results=dated,
        rows_read=board.rows_read,
        rows_total=board.rows_total,
        merged=len(merged),
        undated=undated,
        without_metric=without,
        after_as_of=later,
        setting=_main_setting(dated, better),
        filters=filter_words(is_open, max_parameters, extra_data),
    )


def _main_setting(results: list[Result], better: Better) -> Setting | None:
    """The settings most of `results` share (with the best result, on a tie)."""
    groups = grouped((r.setting, r) for r in best_first(results, better) if r.setting)
    return groups[0][0] if groups else None


def filter_words(
    is_open: bool | None, max_parameters: str | None, extra_data: bool | None
) -> tuple[str, ...]:
    """The filters asked for, in words, for a text that must say what left nothing."""
    words = []
    if is_open is not None:
        words.append("open models only" if is_open else "closed models only")
    if max_parameters is not None:
        words.append(f"at most {max_parameters.strip()} parameters")
    if extra_data is not None:
        words.append("with extra training data" if extra_data else "without extra training data")
    return tuple(words)


# -- who beat this paper ---------------------------------------------------------------


def _paper_date(info: Mapping[str, Any], rows: list[dict[str, Any]]) -> date | None:
    for key in ("published", "date_published"):
        found = row_date({"paper_published_date": info.get(key)})
        if found is not None:
            return found
    dates = [found for row in rows if (found := row_date(row)) is not None]
    return min(dates) if dates else None


def _board_metrics(mine: list[dict[str, Any]], primary: str | None) -> list[tuple[str, str]]:
    """The metrics (case-folded, shown) the paper reports on a board whose direction is
    known, and the board's primary metric whatever its name says."""
    names = available_metrics(mine)
    chosen = []
    for key, shown in names.items():
        if key == (primary or "").casefold() or metric_direction(shown) != "unknown":
            chosen.append((key, shown))
    return chosen


def _compare(
    board: str,
    merged: list[dict[str, Any]],
    paper_id: str,
    since: date | None,
    complete: bool,
) -> tuple[list[BeatenBoard], int]:
    """The paper's boards on one leaderboard's merged rows, and the undated rows skipped."""
    mine = [row for row in merged if _text(row.get("paper_id")) == paper_id]
    others = [row for row in merged if _text(row.get("paper_id")) != paper_id]
    undated = sum(1 for row in others if row_date(row) is None)
    boards = []
    for key, shown in _board_metrics(mine, _primary(merged)):
        better, assumed = metric_better(shown)
        own = best_first((r for row in mine if (r := result_of(row, key))), better)
        if not own:
            continue
        best = own[0]
        later = [
            result
            for row in others
            if (result := result_of(row, key)) is not None
            and result.date is not None
            and (since is None or result.date > since)
        ]
        beat = [
            r for r in best_first(later, better) if score_key(r, better) > score_key(best, better)
        ]
        boards.append(
            BeatenBoard(
                benchmark=board,
                metric=shown,
                better=better,
                assumed=assumed,
                mine=best,
                by=[(r, margin(r.value, best.value)) for r in beat],
                held=len(later) - len(beat),
                complete=complete,
            )
        )
    return boards, undated


@dataclass(frozen=True)
class BoardsRead:
    """One leaderboard's part of `beaten`: its boards, and its undated rows left out."""

    boards: list[BeatenBoard]
    undated: int


async def beaten_boards(
    catalog: CatalogSource, paper: str, progress: Progress | None = None
) -> AsyncIterator[BeatenAnswer | BoardsRead]:
    """`beaten` as it arrives: first the `BeatenAnswer` head (no boards yet), then a
    `BoardsRead` per benchmark once its leaderboard is read (the command line prints
    each so)."""
    reference = required_text(paper, "paper")
    info = await get_paper_info(catalog, reference, include_evaluations=True)
    evaluations = info.get("evaluations")
    listed = evaluations.get("results") if isinstance(evaluations, dict) else None
    rows = [row for row in listed or [] if isinstance(row, dict)]
    paper_id = _text(info.get("id")) or ""
    order: dict[str, str] = {}
    for row in rows:
        dataset = _text(row.get("dataset_id"))
        if dataset is not None:
            order.setdefault(dataset, _text(row.get("dataset_name")) or dataset)
    chosen = list(order.items())[:BEATEN_BENCHMARKS]
    since = _paper_date(info, rows)
    yield BeatenAnswer(
        paper_ref=_text(info.get("arxiv_id")) or paper_id,
        title=_text(info.get("title")) or paper_id,
        published=since,
        benchmarks=len(order),
        read=len(chosen),
    )
    for index, (dataset_id, name) in enumerate(chosen):
        if progress is not None:
            shown = one_line(name, 100, cut="…")  # catalog text
            await progress(index, len(chosen), f"{shown}: reading its leaderboard")
        board_rows, total = await scan_leaderboard(
            catalog,
            {"id": dataset_id, "name": name},
            is_open=None,
            size=None,
            limit=HISTORY_ROW_LIMIT,
        )
        complete = len(board_rows) >= total
        boards, undated = _compare(name, merge_rows(board_rows), paper_id, since, complete)
        yield BoardsRead(boards, undated)
    if progress is not None and chosen:
        await progress(len(chosen), len(chosen), "done")


async def beaten(catalog: CatalogSource, progress: Progress | None, paper: str) -> BeatenAnswer:
    """For each benchmark and metric where `paper` has a result, the later results
    that beat it (see the module docstring). A paper without results gets an answer
    with no boards and `benchmarks` 0."""
    parts = [part async for part in beaten_boards(catalog, paper, progress)]
    head = parts[0]
    if not isinstance(head, BeatenAnswer):  # beaten_boards always starts with its head
        raise TypeError("beaten_boards did not start with the paper")
    reads = [part for part in parts[1:] if isinstance(part, BoardsRead)]
    return BeatenAnswer(
        paper_ref=head.paper_ref,
        title=head.title,
        published=head.published,
        benchmarks=head.benchmarks,
        read=head.read,
        boards=[board for read in reads for board in read.boards],
        undated=sum(read.undated for read in reads),
    )
