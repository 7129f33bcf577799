"""Benchmark and evaluation endpoints of the fake catalog (catalog-api.md §2.9-§2.11).

* `datasets/`: listing and lookup; `q` matches name, full name or slug as a
  case-insensitive substring, or the ID exactly, so the client's exact lookup can
  find them (§2.10).
* `datasets/{id}/evaluations/`: one benchmark's leaderboard, `ordering=best_rank`
  (ascending, nulls last: inferred) and `is_open`.
* `evaluations/`: rows by `paper_id` and/or `dataset_id`, ordered by
  `-benchmark_popularity` (most evaluated benchmark first: inferred) or
  `best_rank`, with `max_parameters_exclusive` keeping only rows whose known
  parameter count is strictly below the bound (unknown counts are excluded).
  The response always carries the integer coverage fields
  `parameter_coverage_known` / `parameter_coverage_total`, counted before the size
  filter (their meaning is inferred); old-server mode strips them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from .data_benchmarks import Dataset
from .fixtures import Catalog
from .wire import HttpError, Query, apply_ordering, folded, paginate

EVALUATION_ORDERINGS = ("best_rank", "-best_rank", "-benchmark_popularity", "id", "-id")


def _dataset(catalog: Catalog, ref: str) -> Dataset:
    wanted = folded(unquote(ref))
    for dataset in catalog.datasets.values():
        if wanted in (dataset.id, folded(dataset.slug)):
            return dataset
    raise HttpError(404, "Benchmark not found")


def _open_filter(rows: list[dict[str, Any]], is_open: bool | None) -> list[dict[str, Any]]:
    if is_open is None:
        return rows
    return [row for row in rows if row["is_open"] is is_open]


def _by_rank(row: dict[str, Any]) -> tuple[bool, int, int]:
    rank = row["best_rank"]
    return (rank is None, rank if isinstance(rank, int) else 0, int(row["id"]))


def _order_evaluations(
    catalog: Catalog, rows: list[dict[str, Any]], ordering: str
) -> list[dict[str, Any]]:
    if ordering not in EVALUATION_ORDERINGS:
        raise HttpError(422, f"ordering must be one of: {', '.join(EVALUATION_ORDERINGS)}")
    if ordering == "best_rank":
        return sorted(rows, key=_by_rank)
    if ordering == "-best_rank":
        ranked = [row for row in rows if row["best_rank"] is not None]
        unranked = [row for row in rows if row["best_rank"] is None]
        return sorted(ranked, key=_by_rank, reverse=True) + unranked
    if ordering == "-benchmark_popularity":
        popularity = {
            dataset_id: len(catalog.evaluations_for_dataset(dataset_id))
            for dataset_id in catalog.datasets
        }
        return sorted(
            rows,
            key=lambda row: (-popularity[row["dataset_id"]], row["dataset_id"], *_by_rank(row)),
        )
    return sorted(rows, key=lambda row: int(row["id"]), reverse=ordering.startswith("-"))


def datasets(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page()
    page_size = query.page_size(50, 100)
    text = query.text("q")
    task_ref = query.text("task")
    descendants = query.boolean("include_descendants", False)
    min_evals = query.integer("min_eval_count", None, low=0)
    is_open = query.boolean("is_open", None)
    task_ids: set[str] | None = None
    if task_ref is not None:
        wanted = folded(task_ref)
        task_ids = {
            task.id
            for task in catalog.tasks.values()
            if wanted in (task.id, folded(task.slug), folded(task.name))
        }
        if descendants:
            for task_id in list(task_ids):
                task_ids.update(catalog.task_descendants(task_id))
    rows = []
    for dataset in catalog.datasets.values():
        # An ID matches exactly, so the client's lookup by ID finds its row (§6.5 step 1).
        if (
            text
            and text != dataset.id
            and not any(
                folded(text) in folded(value)
                for value in (dataset.name, dataset.full_name, dataset.slug)
            )
        ):
            continue
        if task_ids is not None and not task_ids & set(dataset.task_ids):
            continue
        evaluations = _open_filter(catalog.evaluations_for_dataset(dataset.id), is_open)
        if is_open is not None and not evaluations:
            continue
        row = catalog.dataset_row(dataset)
        if min_evals is not None and row["evaluation_count"] < min_evals:
            continue
        rows.append(row)
    rows.sort(key=lambda row: int(row["id"]))
    rows = apply_ordering(
        rows, query.get("ordering"), ("name", "full_name", "created_at", "paper_count"), "name"
    )
    return paginate(rows, page, page_size)


def dataset_evaluations(catalog: Catalog, query: Query, dataset_id: str) -> dict[str, Any]:
    dataset = _dataset(catalog, dataset_id)
    page = query.page()
    page_size = query.page_size(20, 100)
    is_open = query.boolean("is_open", None)
    rows = _open_filter(catalog.evaluations_for_dataset(dataset.id), is_open)
    rows = _order_evaluations(catalog, rows, query.get("ordering") or "best_rank")
    return paginate(rows, page, page_size)


def evaluations(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page()
    page_size = query.page_size(20, 100)
    paper_id = query.text("paper_id")
    dataset_id = query.text("dataset_id")
    is_open = query.boolean("is_open", None)
    bound = query.integer("max_parameters_exclusive", None, low=1)
    rows = list(catalog.evaluations)
    if paper_id is not None:
        rows = [row for row in rows if row["paper_id"] == paper_id]
    if dataset_id is not None:
        rows = [row for row in rows if row["dataset_id"] == dataset_id]
    rows = _open_filter(rows, is_open)
    known = [row for row in rows if _known_count(row["num_parameters"])]
    coverage = {"parameter_coverage_known": len(known), "parameter_coverage_total": len(rows)}
    if bound is not None:
        rows = [row for row in known if row["num_parameters"] < bound]
    rows = _order_evaluations(catalog, rows, query.get("ordering") or "-benchmark_popularity")
    envelope = paginate(rows, page, page_size)
    envelope.update(coverage)
    return envelope


def _known_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
