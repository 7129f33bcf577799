"""Benchmark commands: one leaderboard (`get_benchmark`) and benchmark listings.

`get_benchmark` finds a benchmark by exact name and returns its leaderboard, either one
catalog page as stored (ordered by best rank) or, when metric options are given, the
whole leaderboard scanned, merged and selected locally (`leaderboard.py`):

    answer = await call_query("get_benchmark", catalog, benchmark="COCO",
                              pareto=["mAP:higher", "FPS:higher"])
    [row["model_name"] for row in answer.payload["results"]]   # the Pareto frontier

(The query functions take every tool parameter, with no defaults of their own: the
contract table states them. `pwc_local.server.tools.call_query` fills them in.)

A metric the leaderboard does not report does not fail the call: the plain leaderboard
comes back and `answer.metric_note` says which metrics exist.

`list_benchmarks` serves three uses with one set of parameters — a task's benchmarks
in trend order, a filtered flat listing, or top benchmarks grouped by area and task —
and repairs contradictory parameter combinations instead of rejecting them, reporting
each repair in `answer.notes` (the rules are listed in `_normalise`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from pwc_local.common.names import BENCHMARK, KnownNames
from pwc_local.queries.arguments import optional_text, required_text
from pwc_local.queries.leaderboard import (
    MetricRequest,
    merge_rows,
    metric_request,
    parse_parameter_size,
    select_rows,
)
from pwc_local.queries.lookup import (
    areas_matching,
    closest_known,
    closest_names,
    exact_match,
    not_found,
)
from pwc_local.queries.taxonomy import gather
from pwc_local.upstream.envelopes import (
    Listing,
    next_page_after,
    payload_of,
    result_rows,
    result_total,
    rows_of,
    trending_results,
)
from pwc_local.upstream.errors import (
    InvalidResponse,
    NotFound,
    UnknownMetric,
    translate_404,
)
from pwc_local.upstream.source import CatalogSource, QueryValue, segment

__all__ = [
    "BOARD_ROW_LIMIT",
    "SCAN_PAGE_SIZE",
    "SCAN_ROW_LIMIT",
    "BenchmarkAnswer",
    "BenchmarkListAnswer",
    "find_benchmark",
    "get_benchmark",
    "leaderboard_rows",
    "list_benchmarks",
    "scan_leaderboard",
]

DEFAULT_LIST_LIMIT = 25  # MCP rows-per-response default for the flat listing
GROUPED_MIN_EVALUATIONS = 2  # the grouped endpoint's own default minimum
SCAN_PAGE_SIZE = 100
SCAN_ROW_LIMIT = 1000  # a metric scan stops with an error rather than read more rows
# A whole-board read (the history tools, a benchmark watch) takes at most this many rows:
# 50 requests of 100, each body within the client's 2 MiB bound.
BOARD_ROW_LIMIT = 5_000
# Pages of one leaderboard a watch's look asks for at a time: 16 watches looked at
# together then send at most 48 requests at once, as the other kinds of watch do.
WATCH_PARALLEL = 3
SCAN_PARALLEL = 4  # pages of one leaderboard asked for at a time by `scan_leaderboard`
_MAX_PAGE = 100  # pages run 1-100: a scan never asks beyond, paging never offers beyond

_BENCHMARK_FIELDS = ("name", "full_name", "slug", "id")
_SEARCH_PAGE: dict[str, QueryValue] = {"page": 1, "page_size": 100}

PageReport = Callable[[int, int], Awaitable[None]]
"""`on_page(rows_read, total)`: told after each page of a scan."""


@dataclass(frozen=True)
class BenchmarkAnswer:
    """The result of `get_benchmark`.

    `payload` is `{benchmark, count, matched_count, page, next_page, results}`:
    the matched benchmark row, the leaderboard's stored row count, the merged rows
    that passed the metric selection (on this page when no metric option was given),
    the page, the next page or `None`, and the merged evaluation rows of this page.
    `metric_note` is set only when an unknown metric made the call fall back to the
    unfiltered leaderboard.
    """

    payload: dict[str, Any]
    metric_note: str | None = None


@dataclass(frozen=True)
class BenchmarkListAnswer:
    """The result of `list_benchmarks`.

    `payload` is the CLI's payload, verbatim: the grouped document `{"results":
    [area, ...]}` when `grouped` is true (areas hold `tasks`, tasks hold
    `benchmarks`), otherwise a flat page with `count` and `results` of benchmark
    rows. `next_page` is the page after this one, computed also where the CLI's
    payload does not carry it (a task's trend list is paged locally). `notes` lists,
    in order, every parameter repair that was applied.
    """

    payload: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    grouped: bool = False
    next_page: int | None = None


# -- get_benchmark ---------------------------------------------------------------------


async def find_benchmark(
    catalog: CatalogSource, benchmark: str, names: KnownNames | None = None
) -> dict[str, Any]:
    """The benchmark (dataset) row whose name, full name, slug or ID is `benchmark`.

    One `datasets/?q=` search, then an exact match. Raises
    `NotFound("Benchmark not found: X; closest results: ...")`, the closest from the
    search's rows, or when it had none from a broader search and the `names` seen
    before (`lookup.closest_known`). A match without an ID fails the shape check (its
    leaderboard could not be asked for), so that search answer is not cached.
    """
    reference = required_text(benchmark, "benchmark")
    params: dict[str, QueryValue] = {"q": reference, **_SEARCH_PAGE}

    def search(document: Any) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        rows = result_rows(document, what="benchmark search")
        match = exact_match(rows, reference, _BENCHMARK_FIELDS)
        if match is not None and match.get("id") is None:
            raise InvalidResponse("matched benchmark has no id")
        return match, rows

    match, rows = await catalog.get_json("datasets/", params, accept=search)
    if match is None:
        closest = closest_names(rows, reference, ("name",)) or await closest_known(
            catalog,
            names,
            kind=BENCHMARK,
            reference=reference,
            path="datasets/",
            params=_SEARCH_PAGE,
        )
        raise not_found("Benchmark", reference, closest)
    return match


async def get_benchmark(
    catalog: CatalogSource,
    names: KnownNames | None = None,
    *,
    benchmark: str,
    page: int,
    limit: int,
    is_open: bool | None,
    max_parameters: str | None,
    require_metrics: list[str] | None,
    minimum_metrics: dict[str, float] | None,
    maximum_metrics: dict[str, float] | None,
    sort_metric: str | None,
    pareto: list[str] | None,
) -> BenchmarkAnswer:
    """One benchmark and a page of its leaderboard.

    Without metric options this is one catalog page (`page`, `limit` rows) in
    best-rank order. With any of `require_metrics`, `minimum_metrics`,
    `maximum_metrics`, `sort_metric` or `pareto`, every stored row is read (100 per
    request, at most 1 000), merged, filtered (thresholds inclusive), thinned to the
    Pareto frontier, sorted (`sort_metric`, default descending; else the first Pareto
    objective) and paged locally.

    `max_parameters` (`"500M"`, `"1.5B"`, `"3000000000"`) keeps models with at most
    that many parameters; the catalog must confirm it applied the filter and every
    returned row must carry a consistent count within the limit, otherwise the call
    fails with `InvalidResponse` rather than show unfiltered models.

    Malformed options raise `UsageError` before any request. A requested metric the
    leaderboard does not report is not an error: the leaderboard is returned without
    metric options and `metric_note` names the metrics it does report.
    """
    reference = required_text(benchmark, "benchmark")
    size = None if max_parameters is None else parse_parameter_size(max_parameters)
    request = metric_request(
        require_metrics=require_metrics,
        minimum_metrics=minimum_metrics,
        maximum_metrics=maximum_metrics,
        sort_metric=sort_metric,
        pareto=pareto,
    )
    row = await find_benchmark(catalog, reference, names)
    board = _Leaderboard(catalog, row, reference=reference, is_open=is_open, size=size)
    try:
        return BenchmarkAnswer(await board.answer(page, limit, request))
    except UnknownMetric as exc:
        plain = await board.answer(page, limit, MetricRequest())
        note = f"{exc}; the leaderboard was returned without metric filters or metric sorting"
        return BenchmarkAnswer(plain, metric_note=note)


async def leaderboard_rows(
    catalog: CatalogSource, row: dict[str, Any]
) -> tuple[list[dict[str, Any]], int, int]:
    """The results of the benchmark `row` (a `find_benchmark` row), merged, best rank first,
    with the rows read and the declared count.

    The whole stored leaderboard, in best-rank order, 100 rows a request (`WATCH_PARALLEL`
    at a time), up to `BOARD_ROW_LIMIT` rows: fewer rows read than declared means a
    longer board was cut there. The watch list compares two such reads.
    """
    reference = str(row.get("name") or row["id"])
    board = _Leaderboard(catalog, row, reference=reference, is_open=None, size=None)
    rows, total = await board._scan(cut=True, limit=BOARD_ROW_LIMIT, parallel=WATCH_PARALLEL)
    return merge_rows(rows), len(rows), max(total, len(rows))


async def scan_leaderboard(
    catalog: CatalogSource,
    row: dict[str, Any],
    *,
    is_open: bool | None,
    size: int | None,
    limit: int,
    on_page: PageReport | None = None,
    parallel: int = SCAN_PARALLEL,
) -> tuple[list[dict[str, Any]], int]:
    """Every stored row of the benchmark `row` (a `find_benchmark` row), unmerged, and
    the declared count; at most `limit` rows (the rows read then fall short of it).

    The filters and the shape checks are `get_benchmark`'s: `is_open`, and `size` (a
    parsed `max_parameters`) through the size-filtered endpoint, whose rows must carry
    a count within it. `on_page(rows_read, total)` is awaited after each page. Once
    the first page has declared the count, `parallel` pages are asked for at a time
    (the size-filtered listing names its next page itself, so it is read one by one).
    """
    reference = str(row.get("name") or row["id"])
    board = _Leaderboard(catalog, row, reference=reference, is_open=is_open, size=size)
    rows, total = await board._scan(cut=True, limit=limit, on_page=on_page, parallel=parallel)
    board._guarded(rows)
    return rows, total


class _Leaderboard:
    """Reads one benchmark's evaluation rows from the right endpoint.

    Without a size limit the rows come from `datasets/{id}/evaluations/`; with one
    from `evaluations/?dataset_id=...&max_parameters_exclusive=limit+1`, whose answers
    must confirm the filter with integer parameter-coverage counts.
    """

    def __init__(
        self,
        catalog: CatalogSource,
        row: dict[str, Any],
        *,
        reference: str,
        is_open: bool | None,
        size: int | None,
    ) -> None:
        self.catalog = catalog
        self.row = row
        self.missing = f"Benchmark not found: {reference}"
        self.benchmark_id = str(row["id"])
        self.is_open = is_open
        self.size = size

    async def fetch(
        self, page: int, page_size: int, *, scanned: int | None = None
    ) -> tuple[Any, list[dict[str, Any]]]:
        """One leaderboard page as `(document, rows)`.

        `scanned` is set during a full scan: the number of rows read before this page,
        which lets the shape check refuse a page that cannot continue the scan.
        """
        params: dict[str, QueryValue] = {"page": page, "page_size": page_size}
        if self.size is None:
            path = f"datasets/{segment(self.benchmark_id)}/evaluations/"
            params.update(ordering="best_rank", is_open=self.is_open)
        else:
            path = "evaluations/"
            params.update(
                dataset_id=self.benchmark_id,
                ordering="best_rank",
                is_open=self.is_open,
                max_parameters_exclusive=self.size + 1,
            )
        with translate_404(NotFound(self.missing)):  # the benchmark vanished since the lookup
            document, rows = await self.catalog.get_json(
                path, params, accept=lambda document: self._accept(document, page, scanned)
            )
        return document, rows

    def _accept(self, document: Any, page: int, scanned: int | None) -> Listing:
        """The shape check of a leaderboard page.

        Always: a list response. With a size limit: the parameter coverage counts, and
        during a scan a `next_page` that advances when there is one. Without one, during
        a scan: rows, unless the rows read so far already reach the declared count.
        """
        listing = Listing(document, result_rows(document, what="leaderboard"))
        if self.size is not None:
            _require_coverage(document)
            following = document.get("next_page")
            if (
                scanned is not None
                and following is not None
                and next_page_after(document, page) is None
            ):
                raise InvalidResponse("invalid evaluation pagination")
        elif scanned is not None and not listing.rows:
            declared = result_total(document)
            if declared is not None and scanned < declared:
                raise InvalidResponse("leaderboard page was empty before its declared count")
        return listing

    async def answer(self, page: int, limit: int, request: MetricRequest) -> dict[str, Any]:
        if not request:
            return await self._one_page(page, limit)
        rows, total = await self._scan()
        merged = self._guarded(merge_rows(rows))
        selected = select_rows(merged, request)
        start = (page - 1) * limit
        # Pages end at 100 (the tool's bound too), so no later slice is offered.
        more = len(selected) > start + limit and page < _MAX_PAGE
        return self._payload(
            count=total,
            matched=len(selected),
            page=page,
            next_page=page + 1 if more else None,
            results=selected[start : start + limit],
        )

    async def _one_page(self, page: int, limit: int) -> dict[str, Any]:
        document, rows = await self.fetch(page, limit)
        total = result_total(document)
        merged = self._guarded(merge_rows(rows))
        return self._payload(
            count=total if total is not None else len(rows),
            matched=len(merged),
            page=page,
            next_page=next_page_after(document, page),
            results=merged[:limit],
        )

    async def _scan(
        self,
        *,
        cut: bool = False,
        limit: int = SCAN_ROW_LIMIT,
        on_page: PageReport | None = None,
        parallel: int = 1,
    ) -> tuple[list[dict[str, Any]], int]:
        """Every stored row, page by page, refusing pagination that would never end.

        Past `limit` rows the scan fails, or with `cut` returns the rows read.
        `on_page(rows_read, total)` is awaited after each page. With `parallel` above
        1, the plain leaderboard's pages after the first (which declares the count)
        are asked for that many at a time (`_ahead`), then read on one by one should
        a short page leave rows missing.
        """
        collected: list[dict[str, Any]] = []
        page = 1
        while True:
            # The page's shape check refuses an empty page before the declared count
            # and a `next_page` that does not advance (see `_accept`).
            document, rows = await self.fetch(page, SCAN_PAGE_SIZE, scanned=len(collected))
            collected.extend(rows)
            declared = result_total(document)
            total = declared if declared is not None else len(collected)
            if on_page is not None:
                await on_page(len(collected), total)
            if self.size is None:
                # The plain leaderboard is read until the declared count is reached.
                if len(collected) >= total:
                    return collected, total
                following = page + 1
                if page == 1 and parallel > 1:
                    last = min(-(-min(total, limit) // SCAN_PAGE_SIZE), _MAX_PAGE)
                    ahead = range(2, last + 1)
                    collected += await self._ahead(ahead, parallel, len(collected), total, on_page)
                    if len(collected) >= total:
                        return collected, total
                    following = max(following, last + 1)
            else:
                # The size-filtered listing says itself whether another page exists.
                after = next_page_after(document, page)
                if after is None:
                    return collected, total
                following = after
            if len(collected) >= limit:
                if cut:
                    return collected, total
                raise InvalidResponse(f"leaderboard scan reached its safety limit of {limit} rows")
            if following > _MAX_PAGE:
                raise InvalidResponse("leaderboard scan ran past the last catalog page")
            page = following

    async def _ahead(
        self,
        pages: range,
        parallel: int,
        read: int,
        total: int,
        on_page: PageReport | None,
    ) -> list[dict[str, Any]]:
        """The rows of `pages` of the plain leaderboard, in page order, `parallel` pages
        in flight; each page checked as a sequential scan checks it, as though every
        page before it was full."""
        limiter = anyio.CapacityLimiter(parallel)
        counted = [read]

        async def one(page: int) -> list[dict[str, Any]]:
            async with limiter:
                scanned = (page - 1) * SCAN_PAGE_SIZE
                _, rows = await self.fetch(page, SCAN_PAGE_SIZE, scanned=scanned)
            counted[0] += len(rows)
            if on_page is not None:
                await on_page(counted[0], total)
            return rows

        found = await gather(*(partial(one, page) for page in pages))
        return [row for rows in found for row in rows]

    def _guarded(self, merged: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """With a size limit, every merged row must carry a known count within it."""
        if self.size is None:
            return merged
        for row in merged:
            count = row.get("num_parameters")
            if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= self.size:
                raise InvalidResponse("API returned a model outside the requested parameter limit")
        return merged

    def _payload(
        self,
        *,
        count: int,
        matched: int,
        page: int,
        next_page: int | None,
        results: list[dict[str, Any]],
    ) -> dict[str, Any]:
        return {
            "benchmark": self.row,
            "count": count,
            "matched_count": matched,
            "page": page,
            "next_page": next_page,
            "results": results,
        }


def _require_coverage(document: Any) -> None:
    """The size filter is only trusted when the catalog reports its coverage counts."""
    if not isinstance(document, dict) or not all(
        isinstance(document.get(key), int) and not isinstance(document.get(key), bool)
        for key in ("parameter_coverage_known", "parameter_coverage_total")
    ):
        raise InvalidResponse(
            "parameter filtering requires a compatible catalog API (no coverage counts)"
        )


# -- list_benchmarks -------------------------------------------------------------------


@dataclass
class _ListRequest:
    """`list_benchmarks` arguments, repaired by `_repair` (never raising)."""

    search: str | None
    task: str | None
    include_descendants: bool
    minimum_evaluations: int | None
    is_open: bool | None
    area: str | None
    order_by: str | None
    descending: bool
    grouped: bool  # asked as `group_by_area`; after the repairs, whether the answer is grouped
    notes: list[str] = field(default_factory=list)


def _repair(request: _ListRequest) -> _ListRequest:
    """Repair contradictory combinations in place, noting each repair in order."""
    notes = request.notes
    if request.order_by == "trending" and request.task is None:
        request.order_by = None
        notes.append("order_by=trending needs task; ordered by name instead")
    filtered = bool(
        request.task
        or request.search
        or request.include_descendants
        or request.is_open is not None
        or request.order_by is not None
        or request.descending
    )
    if request.area is not None and filtered:
        request.area = None
        notes.append("area cannot be combined with filters; returned the filtered list")
    request.grouped = request.grouped or request.area is not None
    if request.grouped and filtered:
        # Only reachable through group_by_area: the filters win, as in the CLI, and the
        # answer says it is flat so callers read its rows rather than an empty grouping.
        request.grouped = False
        notes.append("group_by_area cannot be combined with filters; returned the filtered list")
    minimum = request.minimum_evaluations
    if minimum is not None and minimum < 1:
        # The grouped endpoint accepts 0 (its default is 2); the flat one rejects it.
        request.minimum_evaluations = 0 if request.grouped else None
    return request


async def list_benchmarks(
    catalog: CatalogSource,
    *,
    search: str | None,
    task: str | None,
    include_descendants: bool,
    minimum_evaluations: int | None,
    is_open: bool | None,
    group_by_area: bool,
    area: str | None,
    benchmarks_per_task: int,
    order_by: str | None,
    order_direction: str,
    page: int,
    limit: int | None,
) -> BenchmarkListAnswer:
    """List benchmarks in one of three modes, chosen from the arguments.

    * **Grouped** (`group_by_area`, or `area`): the top `benchmarks_per_task`
      benchmarks of every visible task, grouped by area (only the matching area when
      `area` is given; `Area not found` lists the real ones). Unpaginated; tasks'
      benchmarks need `minimum_evaluations` evaluations (default 2).
    * **Task trend** (`task` with `order_by` unset or `trending`): the task's
      benchmarks in trend order, filtered locally by `search` (name, full name, slug)
      and `minimum_evaluations` (all-time paper count), then paged.
    * **Flat**: one page of the catalog's benchmark listing ordered by `order_by`
      (default name).

    Contradictions are repaired, not rejected, each with a note in
    `answer.notes`: `trending` without a task orders by name; `area` with filters is
    dropped; `group_by_area` with filters returns the flat list (`grouped` false);
    `minimum_evaluations` below 1 means none. Flat pages hold `limit` rows (default 25).
    """
    request = _repair(
        _ListRequest(
            search=optional_text(search),
            task=optional_text(task),
            include_descendants=include_descendants,
            minimum_evaluations=minimum_evaluations,
            is_open=is_open,
            area=optional_text(area),
            order_by=order_by,
            descending=order_direction == "desc",
            grouped=group_by_area,
        )
    )
    if request.grouped:
        payload = await _grouped(catalog, request, benchmarks_per_task)
        following = None  # one response holds the whole grouping
    elif request.task is not None and request.order_by in (None, "trending"):
        payload, following = await _task_trend(
            catalog, request.task, request, page, limit or DEFAULT_LIST_LIMIT
        )
    else:
        payload = await _flat(catalog, request, page, limit or DEFAULT_LIST_LIMIT)
        following = next_page_after(payload, page)
    return BenchmarkListAnswer(
        payload, notes=request.notes, grouped=request.grouped, next_page=following
    )


async def _grouped(
    catalog: CatalogSource, request: _ListRequest, benchmarks_per_task: int
) -> dict[str, Any]:
    minimum = request.minimum_evaluations
    params: dict[str, QueryValue] = {
        "benchmarks_per_task": benchmarks_per_task,
        "min_eval_count": GROUPED_MIN_EVALUATIONS if minimum is None else minimum,
    }
    areas = await catalog.get_json(
        "areas/with-task-benchmarks/", params, accept=rows_of("grouped benchmark list")
    )
    return {"results": areas_matching(areas, request.area)}


def _trend_document(document: Any) -> dict[str, Any]:
    """Accept a trending-benchmarks document (an object with a `results` list) as a whole."""
    trending_results(document)
    return document  # trending_results proved it is an object


def _mentions(row: dict[str, Any], needle: str) -> bool:
    haystack = " ".join(str(row.get(key) or "") for key in ("name", "full_name", "slug"))
    return needle.casefold() in haystack.casefold()


def _paper_count_at_least(row: dict[str, Any], minimum: int) -> bool:
    count = row.get("all_time_paper_count")
    return isinstance(count, int | float) and not isinstance(count, bool) and count >= minimum


async def _task_trend(
    catalog: CatalogSource, task: str, request: _ListRequest, page: int, limit: int
) -> tuple[dict[str, Any], int | None]:
    """The task's trending benchmarks, filtered and paged locally; and the next page.

    The payload is the CLI's: the trend document's keys (`task_id`, `recent_days`,
    ...) with `count` = rows kept by the filters and `results` = this page of them.
    The next page is computed from the kept rows and returned beside the payload,
    not written into it (the CLI leaves the document's own `next_page` alone).
    """
    params: dict[str, QueryValue] = {
        "limit": 100,
        "min_recent_papers": 0,
        "include_descendants": request.include_descendants,
        "is_open": request.is_open,
    }
    path = f"tasks/{segment(task)}/trending-benchmarks"
    with translate_404(NotFound(f"Task not found: {task}")):
        trend = await catalog.get_json(path, params, accept=_trend_document)
    kept = [row for row in trend["results"] if isinstance(row, dict)]
    if request.search is not None:
        kept = [row for row in kept if _mentions(row, request.search)]
    if request.minimum_evaluations is not None:
        kept = [row for row in kept if _paper_count_at_least(row, request.minimum_evaluations)]
    start = (page - 1) * limit
    following = page + 1 if len(kept) > start + limit and page < _MAX_PAGE else None
    return {**trend, "count": len(kept), "results": kept[start : start + limit]}, following


async def _flat(
    catalog: CatalogSource, request: _ListRequest, page: int, limit: int
) -> dict[str, Any]:
    ordering = request.order_by or "name"
    params: dict[str, QueryValue] = {
        "page": page,
        "page_size": limit,
        "q": request.search,
        "task": request.task,
        "include_descendants": request.include_descendants,
        "min_eval_count": request.minimum_evaluations,
        "is_open": request.is_open,
        "ordering": f"-{ordering}" if request.descending else ordering,
    }
    return await catalog.get_json("datasets/", params, accept=payload_of("benchmark list"))
