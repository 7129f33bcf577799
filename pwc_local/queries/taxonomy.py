"""Research taxonomy commands: tasks, methods, conferences, organizations, frameworks.

Each function is one read-only command. It takes a `CatalogSource`, sends the catalog
requests the `pwc` CLI command sends, applies its client-side logic, and returns the
command's payload: a plain JSON-able dict that the MCP layer returns as `data` or
projects into typed models. Failures are the typed errors of
`pwc_local.upstream.errors`; the exact-match and not-found rules live in
`pwc_local.queries.lookup`.

    payload = await get_task(catalog, "scene-text-recognition")
    payload["task"]["name"]            # 'Scene Text Recognition'
    payload["parents"][0]["slug"]      # 'ocr' (nearest parent first)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from pwc_local.common.names import TASK, KnownNames
from pwc_local.queries.arguments import optional_text, required_text
from pwc_local.queries.lookup import (
    area_named,
    areas_matching,
    closest_known,
    closest_names,
    exact_match,
    fetch_areas,
    is_numeric_id,
    not_found,
    resolve_area,
)
from pwc_local.upstream.envelopes import (
    listing_of,
    object_of,
    payload_of,
    require_object,
    result_rows,
    result_total,
    rows_of,
    trending_results,
)
from pwc_local.upstream.errors import (
    CatalogError,
    InvalidResponse,
    NotFound,
    UsageError,
    translate_404,
)
from pwc_local.upstream.source import CatalogSource, QueryValue, segment

__all__ = [
    "COMMON_METHODS",
    "DEFAULT_LIMIT",
    "TASK_PAPERS",
    "get_conference",
    "get_framework",
    "get_method",
    "get_organization",
    "get_task",
    "list_conferences",
    "list_frameworks",
    "list_methods",
    "list_organizations",
    "list_tasks",
]

DEFAULT_LIMIT = 25  # rows per response of a flat listing when the caller gives no limit
COMMON_METHODS = 8  # methods kept in a task's `common_methods`
TASK_PAPERS = 10  # papers kept in a task's `papers`
_TASK_PAPER_SAMPLE = 100  # trending papers sampled for common methods

# Reference lookups search with the caller's text and pick the exact match client-side.
_LOOKUP_PAGE: dict[str, QueryValue] = {"page": 1, "page_size": 100}

_TASK_FIELDS = ("name", "slug", "id")
_METHOD_FIELDS = ("name", "full_name", "slug", "id")
_ENTITY_FIELDS = ("name", "slug", "id")
# Conferences, organizations and frameworks are matched against their complete list,
# so suggestions need some resemblance to the request to be worth showing.
_FULL_LIST_CUTOFF = 0.5


# -- shared helpers --------------------------------------------------------------------


@dataclass(frozen=True)
class AreaListing:
    """A task or method listing: the catalog's document as it came (`payload`) and the
    names of the research areas its rows name only by `area_id` (`areas`, ID -> name)."""

    payload: Any
    areas: dict[str, str] = field(default_factory=dict)


async def _with_area_names(
    catalog: CatalogSource,
    path: str,
    params: dict[str, QueryValue],
    what: str,
    areas: list[dict[str, Any]] | None,
) -> AreaListing:
    """One listing page, with the names of the areas its rows name by ID.

    `areas` are the rows the area filter was resolved with; without a filter they are
    fetched beside the page (`areas/`, one small cached page). A listing is still
    answered without them.
    """

    async def names() -> list[dict[str, Any]]:
        if areas is not None:
            return areas
        try:
            return await fetch_areas(catalog)
        except CatalogError:
            return []

    payload, rows = await gather(
        lambda: catalog.get_json(path, params, accept=payload_of(what)), names
    )
    named = {str(row["id"]): str(row["name"]) for row in rows if "id" in row and "name" in row}
    return AreaListing(payload, named)


async def gather(*calls: Callable[[], Awaitable[Any]]) -> list[Any]:
    """Run independent catalog requests concurrently; results in call order.

    The first failure cancels the rest and is re-raised as itself (not wrapped in an
    exception group), so callers keep catching the typed catalog errors.
    """
    results: list[Any] = [None] * len(calls)
    failures: list[Exception] = []

    async with anyio.create_task_group() as group:

        async def run(index: int, call: Callable[[], Awaitable[Any]]) -> None:
            try:
                results[index] = await call()
            except Exception as exc:  # re-raised below, after the group has settled
                if not failures:
                    failures.append(exc)
                group.cancel_scope.cancel()

        for index, call in enumerate(calls):
            group.start_soon(run, index, call)
    if failures:
        raise failures[0]
    return results


def _ordering(order_by: str, order_direction: str) -> str:
    """The catalog's `ordering` value; the schema's enums have checked both parts."""
    return f"-{order_by}" if order_direction == "desc" else order_by


def _first_present(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def _list_or_empty(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# -- tasks -----------------------------------------------------------------------------


def _with_id(summary: dict[str, Any]) -> dict[str, Any]:
    if summary.get("id") is None:
        raise InvalidResponse("task summary has no id")
    return summary


async def _task_summary(
    catalog: CatalogSource, reference: str, names: KnownNames | None
) -> dict[str, Any]:
    """The task row named by `reference`: by ID for digits, else exact match in a search.

    A miss suggests the closest of the search's rows, or when it had none those of a
    broader search and the `names` seen before (`lookup.closest_known`). A summary
    without an ID fails the shape check, so that answer is not cached.
    """
    if is_numeric_id(reference):
        with translate_404(NotFound(f"Task not found: {reference}")):
            return await catalog.get_json(
                f"tasks/{segment(reference)}",
                accept=lambda document: _with_id(require_object(document, what="task summary")),
            )

    def search(document: Any) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        rows = result_rows(document, what="task search")
        match = exact_match(rows, reference, _TASK_FIELDS)
        return (None if match is None else _with_id(match)), rows

    match, rows = await catalog.get_json("tasks/", {"q": reference, **_LOOKUP_PAGE}, accept=search)
    if match is None:
        closest = closest_names(rows, reference, ("name",)) or await closest_known(
            catalog, names, kind=TASK, reference=reference, path="tasks/", params=_LOOKUP_PAGE
        )
        raise not_found("Task", reference, closest)
    return match


def _ranked_benchmarks(
    page_benchmarks: Sequence[Any], trending: Sequence[Any]
) -> list[dict[str, Any]]:
    """Page benchmarks in trend order first (trend fields win), then the rest in page order.

    Trend rows that are not on the task page are dropped: the page is the authority on
    which benchmarks belong to the task, the trend list only on their order.
    """
    on_page = [row for row in page_benchmarks if isinstance(row, dict)]
    by_id = {str(row["id"]): row for row in on_page if row.get("id") is not None}
    ranked: list[dict[str, Any]] = []
    used: set[str] = set()
    for trend in trending:
        if not isinstance(trend, dict) or trend.get("id") is None:
            continue
        key = str(trend["id"])
        if key in by_id and key not in used:
            ranked.append({**by_id[key], **trend})
            used.add(key)
    for row in on_page:
        if row.get("id") is None or str(row["id"]) not in used:
            ranked.append(dict(row))
    return ranked


def _common_methods(papers: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The methods used most often across `papers`, each with its `paper_count`.

    A method is identified by its slug, else its ID. Ties are broken by name.
    """
    counted: dict[str, dict[str, Any]] = {}
    for paper in papers:
        for method in _list_or_empty(paper.get("methods")):
            if not isinstance(method, dict):
                continue
            key = method.get("slug") or method.get("id")
            if not key:
                continue
            entry = counted.setdefault(str(key), {**method, "paper_count": 0})
            entry["paper_count"] += 1
    ranked = sorted(
        counted.values(),
        key=lambda method: (-method["paper_count"], str(method.get("name") or "").casefold()),
    )
    return ranked[:COMMON_METHODS]


async def get_task(
    catalog: CatalogSource, names: KnownNames | None = None, *, task: str
) -> dict[str, Any]:
    """One task by exact name, slug or ID, with its neighbourhood in the taxonomy.

    Requests: `tasks/{id}` (all-digit reference) or `tasks/?q=` (exact match on name,
    slug, ID), then concurrently the task page, its trending benchmarks, a sample of
    its trending papers and the area list.

    Payload keys: `task` (the page's task, with the summary's counts), `area` (the
    task's area row or `None`), `parents` (nearest first), `sisters`, `children`,
    `recommended_frameworks`, `subtask_benchmarks`, `benchmarks` (trend-ranked ones
    first, then the rest), `common_methods` (up to 8 with `paper_count`),
    `paper_sample_size`, `paper_count` and `papers` (the first 10 trending papers).

    Raises `NotFound("Task not found: X; closest results: ...")` for an unknown task.
    """
    reference = required_text(task, "task")
    summary = await _task_summary(catalog, reference, names)
    path = f"tasks/{segment(str(summary['id']))}"
    missing = f"Task not found: {reference}"

    async def page() -> dict[str, Any]:
        with translate_404(NotFound(missing)):
            return await catalog.get_json(f"{path}/page", accept=_task_page)

    async def trending() -> list[Any]:
        params = {"limit": 100, "min_recent_papers": 0}
        with translate_404(NotFound(missing)):
            return await catalog.get_json(
                f"{path}/trending-benchmarks", params, accept=trending_results
            )

    async def papers() -> Any:
        params = {
            **_LOOKUP_PAGE,
            "page_size": _TASK_PAPER_SAMPLE,
            "order_by": "trending",
            "order_dir": "desc",
            "include_resources": True,
        }
        with translate_404(NotFound(missing)):
            return await catalog.get_json(
                f"{path}/papers", params, accept=listing_of("task papers")
            )

    page_doc, trend_rows, paper_listing, areas = await gather(
        page, trending, papers, lambda: fetch_areas(catalog)
    )
    task_row = page_doc["task"]
    page_benchmarks = page_doc["benchmarks"]
    paper_rows = paper_listing.rows
    paper_total = result_total(paper_listing.document)

    detail = dict(task_row)
    for key in ("paper_count", "benchmark_count", "evaluation_count"):
        if summary.get(key) is not None:
            detail[key] = summary[key]
    return {
        "task": detail,
        "area": area_named(areas, _first_present(summary.get("area_id"), detail.get("area_id"))),
        "parents": _list_or_empty(page_doc.get("parents")),
        "sisters": _list_or_empty(page_doc.get("sisters")),
        "recommended_frameworks": _list_or_empty(page_doc.get("recommended_frameworks")),
        "children": _list_or_empty(page_doc.get("children")),
        "benchmarks": _ranked_benchmarks(page_benchmarks, trend_rows),
        "subtask_benchmarks": _list_or_empty(page_doc.get("subtask_benchmarks")),
        "common_methods": _common_methods(paper_rows),
        "paper_sample_size": len(paper_rows),
        "paper_count": paper_total if paper_total is not None else len(paper_rows),
        "papers": paper_rows[:TASK_PAPERS],
    }


def _task_page(document: Any) -> dict[str, Any]:
    """Accept a task page: an object with a `task` object and a `benchmarks` list."""
    page = require_object(document, what="task page")
    if not isinstance(page.get("task"), dict) or not isinstance(page.get("benchmarks"), list):
        raise InvalidResponse("task page lacks its task object or benchmark list")
    return page


def _task_sort_key(order_by: str) -> Callable[[Mapping[str, Any]], tuple[int, int, Any]]:
    """Present values first (numbers, then text case-folded), missing ones last."""

    def key(task: Mapping[str, Any]) -> tuple[int, int, Any]:
        value = task.get(order_by)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return (0, 0, value)
        if isinstance(value, str):
            return (0, 1, value.casefold())
        return (1, 0, 0)

    return key


async def list_tasks(
    catalog: CatalogSource,
    *,
    search: str | None,
    area: str | None,
    level: int | None,
    visible_only: bool,
    group_by_area: bool,
    order_by: str,
    order_direction: str,
    page: int,
    limit: int | None,
) -> AreaListing:
    """List research tasks, flat and paged, or grouped by area.

    Flat (default): `area` is resolved to its ID first (`Area not found` lists the real
    areas), then one `tasks/` page is fetched with `limit` rows (default 25); the
    payload is the catalog's page document (`count`, `next_page`, `results`, ...).

    Grouped (`group_by_area=True`): the visible top-level taxonomy from
    `areas/with-tasks/` in one response, optionally only the areas whose ID or name is
    `area`, with each area's tasks sorted by `order_by` (missing values last, `desc`
    reverses the whole order). Payload `{"results": [area, ...]}`. Paging and `level`
    do not apply to it and are rejected; `search` and `visible_only` are ignored.
    A blank `search` or `area` counts as not given.
    """
    ordering = _ordering(order_by, order_direction)
    area = optional_text(area)
    if group_by_area:
        if page != 1 or limit is not None or level is not None:
            raise UsageError(
                "group_by_area returns the whole taxonomy in one response, so page, limit "
                "and level cannot be combined with it; drop them or set group_by_area to false"
            )
        return AreaListing(await _grouped_tasks(catalog, area, order_by, order_direction == "desc"))

    params: dict[str, QueryValue] = {"page": page, "page_size": limit or DEFAULT_LIMIT}
    params["q"] = optional_text(search)
    rows = None
    if area is not None:
        params["area_id"], rows = await resolve_area(catalog, area)
    params["level"] = level
    params["visible_only"] = visible_only
    params["ordering"] = ordering
    return await _with_area_names(catalog, "tasks/", params, "task list", rows)


async def _grouped_tasks(
    catalog: CatalogSource, area: str | None, order_by: str, descending: bool
) -> dict[str, Any]:
    areas = await catalog.get_json("areas/with-tasks/", accept=rows_of("grouped task list"))
    key = _task_sort_key(order_by)
    results = []
    for row in areas_matching(areas, area):
        tasks = [task for task in _list_or_empty(row.get("tasks")) if isinstance(task, dict)]
        tasks.sort(key=key)
        if descending:
            tasks.reverse()
        results.append({**row, "tasks": tasks})
    return {"results": results}


# -- methods ---------------------------------------------------------------------------


async def get_method(catalog: CatalogSource, method: str) -> dict[str, Any]:
    """One method by exact name, full name, slug or ID: `{"method": ..., "area": ...}`.

    All-digit references are fetched directly (`methods/{id}`); others are searched
    (`methods/?q=`) and the exact match's record is fetched. `area` is the method's
    area row, or `None`. Raises `NotFound("Method not found: X; closest results: ...")`.
    """
    reference = required_text(method, "method")
    missing = f"Method not found: {reference}"
    if is_numeric_id(reference):
        key = reference
    else:

        def search(document: Any) -> tuple[str | None, list[dict[str, Any]]]:
            rows = result_rows(document, what="method search")
            match = exact_match(rows, reference, _METHOD_FIELDS)
            if match is None:
                return None, rows
            found = str(match.get("id") or match.get("slug") or "")
            if not found:
                raise InvalidResponse("matched method has neither id nor slug")
            return found, rows

        matched, rows = await catalog.get_json(
            "methods/", {"q": reference, **_LOOKUP_PAGE}, accept=search
        )
        if matched is None:
            raise not_found("Method", reference, closest_names(rows, reference, ("name", "slug")))
        key = matched

    async def detail() -> dict[str, Any]:
        with translate_404(NotFound(missing)):
            return await catalog.get_json(
                f"methods/{segment(key)}", accept=object_of("method detail")
            )

    record, areas = await gather(detail, lambda: fetch_areas(catalog))
    return {"method": record, "area": area_named(areas, record.get("area_id"))}


async def list_methods(
    catalog: CatalogSource,
    *,
    search: str | None,
    area: str | None,
    introduced_year: int | None,
    order_by: str,
    order_direction: str,
    page: int,
    limit: int,
) -> AreaListing:
    """One page of `methods/`, optionally searched, in one area, or from one year.

    `area` is resolved like in `list_tasks`. The payload is the catalog's page
    document (`count`, `next_page`, `results`, ...).
    """
    ordering = _ordering(order_by, order_direction)
    params: dict[str, QueryValue] = {"page": page, "page_size": limit}
    params["q"] = optional_text(search)
    area = optional_text(area)
    rows = None
    if area is not None:
        params["area_id"], rows = await resolve_area(catalog, area)
    params["introduced_year"] = introduced_year
    params["ordering"] = ordering
    return await _with_area_names(catalog, "methods/", params, "method list", rows)


# -- conferences and organizations -----------------------------------------------------


async def _entity_detail(
    catalog: CatalogSource,
    *,
    label: str,
    reference: str,
    rows: list[dict[str, Any]],
    collection: str,
) -> dict[str, Any]:
    """Exact-match `reference` in a complete list, then fetch `collection/{slug}`."""
    match = exact_match(rows, reference, _ENTITY_FIELDS)
    if match is None:
        suggestions = closest_names(rows, reference, ("name", "slug"), cutoff=_FULL_LIST_CUTOFF)
        raise not_found(label, reference, suggestions)
    key = str(match.get("slug") or match.get("id") or "")
    if not key:
        # Checked here, not in the list's shape check: the list itself is fine (and
        # cached) for the listing commands, only this row cannot be looked up.
        raise InvalidResponse(f"matched {label.lower()} has neither slug nor id")
    with translate_404(NotFound(f"{label} not found: {reference}")):
        return await catalog.get_json(
            f"{collection}/{segment(key)}", accept=object_of(f"{label.lower()} detail")
        )


async def get_conference(catalog: CatalogSource, conference: str) -> dict[str, Any]:
    """One conference by exact name, slug or ID: the `conferences/{slug}` record.

    Raises `NotFound("Conference not found: X; closest results: ...")`.
    """
    reference = required_text(conference, "conference")
    rows = await catalog.get_json("conferences/", accept=rows_of("conference list"))
    return await _entity_detail(
        catalog, label="Conference", reference=reference, rows=rows, collection="conferences"
    )


async def list_conferences(catalog: CatalogSource, *, year: int | None) -> dict[str, Any]:
    """Every conference with imported papers, or those of one `year`: `{count, results}`.

    The catalog sends the complete list; the year filter keeps rows whose `year` is
    that integer.
    """
    rows = await catalog.get_json("conferences/", accept=rows_of("conference list"))
    if year is not None:
        rows = [
            row
            for row in rows
            if isinstance(row.get("year"), int)
            and not isinstance(row.get("year"), bool)
            and row["year"] == year
        ]
    return {"count": len(rows), "results": rows}


async def get_organization(catalog: CatalogSource, organization: str) -> dict[str, Any]:
    """One organization by exact name, slug or ID: the `organizations/{slug}` record.

    Raises `NotFound("Organization not found: X; closest results: ...")`.
    """
    reference = required_text(organization, "organization")
    rows = await catalog.get_json(
        "organizations/", {"featured_only": False}, accept=rows_of("organization list")
    )
    return await _entity_detail(
        catalog, label="Organization", reference=reference, rows=rows, collection="organizations"
    )


async def list_organizations(catalog: CatalogSource, *, featured_only: bool) -> dict[str, Any]:
    """The catalog's organization list (only curated featured ones when asked)."""
    return await catalog.get_json(
        "organizations/", {"featured_only": featured_only}, accept=payload_of("organization list")
    )


# -- frameworks ------------------------------------------------------------------------


def _flatten_frameworks(document: Any) -> list[dict[str, Any]]:
    """Accept the framework catalogue: its domain -> category -> framework tree, flattened.

    Each row carries its own fields plus `domain_slug`, `domain_name`,
    `category_slug` and `category_name`. Non-object entries are skipped.
    """
    domains = require_object(document, what="framework catalogue").get("domains")
    if not isinstance(domains, list):
        raise InvalidResponse("framework catalogue has no domain list")
    flat: list[dict[str, Any]] = []
    for domain in domains:
        if not isinstance(domain, dict):
            continue
        for category in _list_or_empty(domain.get("categories")):
            if not isinstance(category, dict):
                continue
            for framework in _list_or_empty(category.get("frameworks")):
                if not isinstance(framework, dict):
                    continue
                flat.append(
                    {
                        **framework,
                        "domain_slug": domain.get("slug"),
                        "domain_name": domain.get("name"),
                        "category_slug": category.get("slug"),
                        "category_name": category.get("name"),
                    }
                )
    return flat


def _equals_any(wanted: str, *values: Any) -> bool:
    folded = wanted.strip().casefold()
    return any(isinstance(value, str) and value.strip().casefold() == folded for value in values)


async def get_framework(catalog: CatalogSource, framework: str) -> dict[str, Any]:
    """One framework by exact name, slug or ID: its flattened catalogue row.

    There is no detail endpoint; the row comes from `frameworks/`. Raises
    `NotFound("Framework not found: X; closest results: ...")`.
    """
    reference = required_text(framework, "framework")
    rows = await catalog.get_json("frameworks/", accept=_flatten_frameworks)
    match = exact_match(rows, reference, _ENTITY_FIELDS)
    if match is None:
        suggestions = closest_names(rows, reference, ("name", "slug"), cutoff=_FULL_LIST_CUTOFF)
        raise not_found("Framework", reference, suggestions)
    return match


async def list_frameworks(
    catalog: CatalogSource,
    *,
    domain: str | None,
    category: str | None,
    platform: str | None,
) -> dict[str, Any]:
    """Flattened frameworks, filtered exactly and case-insensitively: `{count, results}`.

    `domain` matches a domain slug or name, `category` a category slug or name,
    `platform` one of the framework's `platforms`. A blank filter counts as not given,
    as in the other listings.
    """
    domain, category, platform = map(optional_text, (domain, category, platform))
    rows = await catalog.get_json("frameworks/", accept=_flatten_frameworks)
    if domain is not None:
        rows = [row for row in rows if _equals_any(domain, row["domain_slug"], row["domain_name"])]
    if category is not None:
        rows = [
            row for row in rows if _equals_any(category, row["category_slug"], row["category_name"])
        ]
    if platform is not None:
        rows = [row for row in rows if _equals_any(platform, *_list_or_empty(row.get("platforms")))]
    return {"count": len(rows), "results": rows}
