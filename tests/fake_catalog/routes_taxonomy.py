"""Taxonomy endpoints of the fake catalog (catalog-api.md §2.12-§2.26).

Areas, tasks (listing, summary, page, trending benchmarks, papers), methods,
conferences, organizations and the framework tree. Where the spec infers
semantics, the fake follows its suggestion: `q` on `tasks/` and `methods/` is a
case-insensitive substring of name, full name or slug, or exactly the ID
(§2.15, §2.20); the
`tasks/{ref}/trending-benchmarks` segment resolves a name, slug or ID (§2.18);
level 0 is top level; `areas/with-tasks/` lists top-level visible tasks.
Detail routes also accept a slug where the spec names only the ID, since the
clients fall back to slugs when a row has no ID.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import unquote

from .data_taxonomy import FRAMEWORK_TREE, RECOMMENDED_FRAMEWORKS, Task
from .fixtures import Catalog
from .routes_papers import ORDER_BY, order_papers, with_resources
from .wire import HttpError, Query, apply_ordering, folded, paginate

RECENT_DAYS = 90
SUPPORT_PRIOR = 2.0


def _find(items: dict[str, Any], ref: str, label: str, *fields: str) -> Any:
    wanted = folded(unquote(ref))
    for name in fields:
        for item in items.values():
            if folded(str(getattr(item, name))) == wanted:
                return item
    raise HttpError(404, f"{label} not found")


def _task(catalog: Catalog, ref: str, *, by_name: bool = False) -> Task:
    fields = ("id", "slug", "name") if by_name else ("id", "slug")
    return _find(catalog.tasks, ref, "Task", *fields)


# -- areas ----------------------------------------------------------------------------------


def areas(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page()
    page_size = query.page_size(100, 500)
    rows = apply_ordering(list(catalog.areas), query.get("ordering"), ("id", "name"), "name")
    return paginate(rows, page, page_size)


def _sorted_areas(catalog: Catalog) -> list[dict[str, str]]:
    return sorted(catalog.areas, key=lambda area: area["name"].casefold())


def areas_with_tasks(catalog: Catalog, query: Query) -> dict[str, Any]:
    results = []
    for area in _sorted_areas(catalog):
        tasks = [
            catalog.task_row(task)
            for task in catalog.tasks.values()
            if task.area_id == area["id"] and task.visible and task.parent_id is None
        ]
        tasks.sort(key=lambda row: row["name"].casefold())
        results.append({"id": area["id"], "name": area["name"], "tasks": tasks})
    return {"results": results}


def areas_with_task_benchmarks(catalog: Catalog, query: Query) -> dict[str, Any]:
    per_task = query.integer("benchmarks_per_task", 3, low=1, high=10)
    min_evals = query.integer("min_eval_count", 2, low=0)
    assert per_task is not None and min_evals is not None
    results = []
    for area in _sorted_areas(catalog):
        tasks = []
        for task in sorted(catalog.tasks.values(), key=lambda t: t.name.casefold()):
            if task.area_id != area["id"] or not task.visible:
                continue
            benchmarks = [
                catalog.dataset_row(ds)
                for ds in catalog.datasets.values()
                if task.id in ds.task_ids
            ]
            benchmarks = [row for row in benchmarks if row["evaluation_count"] >= min_evals]
            benchmarks.sort(key=lambda row: (-row["evaluation_count"], row["name"].casefold()))
            if not benchmarks:
                continue
            picked = []
            for rank, row in enumerate(benchmarks[:per_task], start=1):
                picked.append(
                    {
                        key: row[key]
                        for key in (
                            "id",
                            "name",
                            "slug",
                            "full_name",
                            "description",
                            "hf_url",
                            "evaluation_count",
                        )
                    }
                    | {"featured_rank": rank}
                )
            row = catalog.task_row(task)
            tasks.append(
                {
                    "id": task.id,
                    "name": task.name,
                    "slug": task.slug,
                    "paper_count": row["paper_count"],
                    "benchmarks": picked,
                }
            )
        if tasks:
            results.append({"id": area["id"], "name": area["name"], "tasks": tasks})
    return {"results": results}


# -- tasks ----------------------------------------------------------------------------------


def tasks(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page()
    page_size = query.page_size(50, 100)
    text = query.text("q")
    area_id = query.text("area_id")
    level = query.integer("level", None, low=0)
    visible_only = query.boolean("visible_only", False)
    rows = []
    for task in catalog.tasks.values():
        if visible_only and not task.visible:
            continue
        if area_id is not None and task.area_id != area_id:
            continue
        if (
            text
            and text != task.id
            and not any(folded(text) in folded(value) for value in (task.name, task.slug))
        ):
            continue
        row = catalog.task_row(task)
        if level is not None and row["level"] != level:
            continue
        rows.append(row)
    rows.sort(key=lambda row: int(row["id"]))
    rows = apply_ordering(
        rows, query.get("ordering"), ("name", "created_at", "level", "paper_count", "id"), "name"
    )
    return paginate(rows, page, page_size)


def task_summary(catalog: Catalog, query: Query, task_id: str) -> dict[str, Any]:
    return catalog.task_row(_task(catalog, task_id))


def _ref(task: Task) -> dict[str, str]:
    return {"id": task.id, "slug": task.slug, "name": task.name}


def _best_row(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    ranked = [row for row in rows if isinstance(row["best_rank"], int)]
    return min(ranked, key=lambda row: (row["best_rank"], int(row["id"]))) if ranked else None


def task_page(catalog: Catalog, query: Query, task_id: str) -> dict[str, Any]:
    task = _task(catalog, task_id)
    summary = catalog.task_row(task)
    parents = []
    current = task
    while current.parent_id is not None:  # nearest parent first (§2.17)
        current = catalog.tasks[current.parent_id]
        parents.append(_ref(current))
    if task.parent_id is None:
        sisters: list[Task] = []
    else:
        sisters = [
            t for t in catalog.tasks.values() if t.parent_id == task.parent_id and t.id != task.id
        ]
    children = [t for t in catalog.tasks.values() if t.parent_id == task.id]

    def benchmarks_of(some_task: Task, *, full: bool) -> list[dict[str, Any]]:
        found = []
        for dataset in catalog.datasets.values():
            if some_task.id not in dataset.task_ids:
                continue
            entry: dict[str, Any] = {"id": dataset.id, "slug": dataset.slug, "name": dataset.name}
            if full:
                evaluations = [
                    row
                    for row in catalog.evaluations_for_dataset(dataset.id)
                    if row["task_id"] == some_task.id
                ]
                best = _best_row(evaluations)
                entry["paper_count"] = len({row["paper_id"] for row in evaluations})
                entry["best_model_name"] = best["model_name"] if best else None
            found.append(entry)
        return sorted(found, key=lambda entry: entry["name"].casefold())

    subtask_benchmarks = []
    for descendant_id in catalog.task_descendants(task.id):
        found = benchmarks_of(catalog.tasks[descendant_id], full=False)
        if found:
            subtask_benchmarks.append({"subtask_id": descendant_id, "benchmarks": found})
    return {
        "task": {
            "id": task.id,
            "slug": task.slug,
            "name": task.name,
            "description": task.description,
            "research_trends": list(task.research_trends),
            "area_id": task.area_id,
            "level": summary["level"],
            "paper_count": summary["paper_count"],
        },
        "parents": parents,
        "sisters": [_ref(t) for t in sisters],
        "children": [_ref(t) for t in children],
        "recommended_frameworks": [dict(item) for item in RECOMMENDED_FRAMEWORKS.get(task.id, ())],
        "benchmarks": benchmarks_of(task, full=True),
        "subtask_benchmarks": subtask_benchmarks,
    }


def task_trending_benchmarks(catalog: Catalog, query: Query, task_ref: str) -> dict[str, Any]:
    """Benchmarks of a task ranked by trend score; the segment may be a name (§2.18)."""
    task = _task(catalog, task_ref, by_name=True)
    limit = query.integer("limit", 100, low=1, high=500)
    min_recent = query.integer("min_recent_papers", 0, low=0)
    descendants = query.boolean("include_descendants", False)
    is_open = query.boolean("is_open", None)
    assert limit is not None and min_recent is not None
    task_ids = {task.id, *(catalog.task_descendants(task.id) if descendants else ())}
    rows = []
    for dataset in catalog.datasets.values():
        if not task_ids & set(dataset.task_ids):
            continue
        evaluations = [
            row
            for row in catalog.evaluations_for_dataset(dataset.id)
            if row["task_id"] in task_ids and (is_open is None or row["is_open"] is is_open)
        ]
        if is_open is not None and not evaluations:
            continue
        if dataset.recent_paper_count < min_recent:
            continue
        papers = len({row["paper_id"] for row in evaluations})
        best = _best_row(evaluations)
        rows.append(
            {
                "id": dataset.id,
                "slug": dataset.slug,
                "name": dataset.name,
                "full_name": dataset.full_name,
                "description": dataset.description,
                "hf_url": dataset.hf_url,
                "recent_paper_count": dataset.recent_paper_count,
                "all_time_paper_count": papers,
                "trend_score": dataset.trend_score,
                "support_weighted_score": round(
                    dataset.trend_score * math.log(papers + SUPPORT_PRIOR + 1), 4
                ),
                "best_model_name": best["model_name"] if best else None,
                "best_paper_title": best["paper_title"] if best else None,
                "best_code_url": best["code_url"] if best else None,
            }
        )
    rows.sort(key=lambda row: (-row["trend_score"], -row["all_time_paper_count"], row["name"]))
    return {
        "task_id": task.id,
        "task_slug": task.slug,
        "recent_days": RECENT_DAYS,
        "support_prior_papers": SUPPORT_PRIOR,
        "results": rows[:limit],
    }


def task_papers(catalog: Catalog, query: Query, task_id: str) -> dict[str, Any]:
    task = _task(catalog, task_id)
    page = query.page()
    page_size = query.page_size(20, 100)
    order_by = query.choice("order_by", ORDER_BY, "trending")
    order_dir = query.choice("order_dir", ("asc", "desc"), "desc")
    include_resources = query.boolean("include_resources", False)
    assert order_by is not None
    papers = order_papers(catalog.papers_with_task(task.id), order_by, order_dir == "desc")
    envelope = paginate(papers, page, page_size)
    rows = []
    for paper in envelope["results"]:
        row = catalog.paper_row(paper, with_methods=True)
        rows.append(with_resources(catalog, paper, row) if include_resources else row)
    envelope["results"] = rows
    return envelope


# -- methods --------------------------------------------------------------------------------


def methods(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page()
    page_size = query.page_size(50, 500)
    text = query.text("q")
    area_id = query.text("area_id")
    year = query.integer("introduced_year", None)
    rows = []
    for method in catalog.methods.values():
        if area_id is not None and method.area_id != area_id:
            continue
        if year is not None and method.introduced_year != year:
            continue
        if (
            text
            and text != method.id
            and not any(
                folded(text) in folded(value)
                for value in (method.name, method.full_name, method.slug)
            )
        ):
            continue
        rows.append(catalog.method_row(method))
    rows.sort(key=lambda row: int(row["id"]))
    rows = apply_ordering(
        rows,
        query.get("ordering"),
        ("name", "full_name", "introduced_year", "created_at", "paper_count", "id"),
        "name",
    )
    return paginate(rows, page, page_size)


def method_detail(catalog: Catalog, query: Query, method_id: str) -> dict[str, Any]:
    method = _find(catalog.methods, method_id, "Method", "id", "slug")
    return catalog.method_row(method, detail=True)


# -- conferences and organizations ----------------------------------------------------------------


def _conference_row(catalog: Catalog, conference: Any) -> dict[str, Any]:
    return {
        "id": conference.id,
        "slug": conference.slug,
        "name": conference.name,
        "year": conference.year,
        "paper_count": sum(1 for paper in catalog.papers if paper.conference == conference.slug),
        "location": conference.location,
    }


def conferences(catalog: Catalog, query: Query) -> dict[str, Any]:
    ordered = sorted(catalog.conferences.values(), key=lambda c: (-c.year, c.name.casefold()))
    rows = [_conference_row(catalog, conference) for conference in ordered]
    return {"count": len(rows), "results": rows}


def conference_detail(catalog: Catalog, query: Query, slug: str) -> dict[str, Any]:
    conference = _find(catalog.conferences, slug, "Conference", "slug", "id")
    row = _conference_row(catalog, conference)
    series = conference.slug.rsplit("-", 1)[0]
    row.update(
        {
            "tier": conference.tier,
            "start_date": conference.start_date,
            "end_date": conference.end_date,
            "venue": conference.venue,
            "description": f"{conference.name}, held in {conference.location}.",
            "url": f"https://{series}.example.org/{conference.year}",
            "hf_url": f"https://huggingface.co/{series}-{conference.year}",
        }
    )
    return row


def _organization_papers(catalog: Catalog, organization_id: str) -> list[Any]:
    return [paper for paper in catalog.papers if organization_id in paper.organizations]


def _organization_row(catalog: Catalog, organization: Any) -> dict[str, Any]:
    return {
        "id": organization.id,
        "slug": organization.slug,
        "name": organization.name,
        "paper_count": len(_organization_papers(catalog, organization.id)),
        "is_featured": organization.is_featured,
        "trending_rank": organization.trending_rank,
    }


def organizations(catalog: Catalog, query: Query) -> dict[str, Any]:
    featured_only = query.boolean("featured_only", False)
    chosen = [o for o in catalog.organizations.values() if o.is_featured or not featured_only]
    chosen.sort(key=lambda o: (o.trending_rank is None, o.trending_rank or 0, o.name.casefold()))
    rows = [_organization_row(catalog, organization) for organization in chosen]
    return {"count": len(rows), "results": rows}


def organization_detail(catalog: Catalog, query: Query, slug: str) -> dict[str, Any]:
    organization = _find(catalog.organizations, slug, "Organization", "slug", "id")
    row = _organization_row(catalog, organization)
    years = [int(paper.published[:4]) for paper in _organization_papers(catalog, organization.id)]
    row.update(
        {
            "first_paper_year": min(years) if years else None,
            "latest_paper_year": max(years) if years else None,
            "description": organization.description,
            "website_url": organization.website_url,
            "github_url": organization.github_url,
            "hf_url": organization.hf_url,
        }
    )
    return row


# -- frameworks -------------------------------------------------------------------------------


def frameworks(catalog: Catalog, query: Query) -> dict[str, Any]:
    """The nested domain > category > framework tree (not a result list, §2.26)."""
    domains = []
    for domain_slug, domain_name, categories in FRAMEWORK_TREE:
        domains.append(
            {
                "slug": domain_slug,
                "name": domain_name,
                "categories": [
                    {
                        "slug": category_slug,
                        "name": category_name,
                        "frameworks": [catalog.framework_item(fw.id) for fw in items],
                    }
                    for category_slug, category_name, items in categories
                ],
            }
        )
    return {"domains": domains}
