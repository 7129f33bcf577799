"""The fake catalog's route table: exactly the endpoint forms of catalog-api.md §2.

Routing works on the RAW path below `/api/v1/`, split on `/` while segments are
still percent-encoded (§1.2), so `papers/math.GT%2F0309136` is the single-segment
paper route and `papers/math.GT/0309136` matches nothing. Trailing slashes are
significant: list endpoints end with one (`papers/`, `tasks/`), detail endpoints
do not (`papers/{ref}`, `tasks/{id}/page`). The other form is answered 404
rather than tolerated, so a client that builds the wrong form is caught.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import routes_benchmarks as bench
from . import routes_papers as papers
from . import routes_public as public
from . import routes_taxonomy as taxonomy
from .fixtures import Catalog
from .wire import HttpError, Query, Reply, error_reply

Handler = Callable[..., Any]

# Each pattern is a tuple of segments; `{name}` captures one non-empty encoded
# segment and is passed to the handler as a keyword argument. Literal routes are
# listed before the captures that could shadow them (`papers/search` before
# `papers/{ref}`).
ROUTES: tuple[tuple[tuple[str, ...], Handler], ...] = (
    (("papers", ""), papers.list_papers),
    (("papers", "search"), papers.search),
    (("papers", "recent"), papers.recent),
    (("papers", "trending"), papers.trending),
    (("papers", "{ref}"), papers.detail),
    (("papers", "{ref}", "related"), papers.related),
    (("research", "papers", "{ref}", "lineage"), papers.lineage),
    (("research", "papers", "{ref}", "read"), papers.read),
    (("evaluations", ""), bench.evaluations),
    (("datasets", ""), bench.datasets),
    (("datasets", "{dataset_id}", "evaluations", ""), bench.dataset_evaluations),
    (("areas", ""), taxonomy.areas),
    (("areas", "with-tasks", ""), taxonomy.areas_with_tasks),
    (("areas", "with-task-benchmarks", ""), taxonomy.areas_with_task_benchmarks),
    (("tasks", ""), taxonomy.tasks),
    (("tasks", "{task_id}"), taxonomy.task_summary),
    (("tasks", "{task_id}", "page"), taxonomy.task_page),
    (("tasks", "{task_ref}", "trending-benchmarks"), taxonomy.task_trending_benchmarks),
    (("tasks", "{task_id}", "papers"), taxonomy.task_papers),
    (("methods", ""), taxonomy.methods),
    (("methods", "{method_id}"), taxonomy.method_detail),
    (("conferences", ""), taxonomy.conferences),
    (("conferences", "{slug}"), taxonomy.conference_detail),
    (("organizations", ""), taxonomy.organizations),
    (("organizations", "{slug}"), taxonomy.organization_detail),
    (("frameworks", ""), taxonomy.frameworks),
    (("public-metadata",), public.public_metadata),
    (("public-metadata", "search"), public.public_metadata_search),
)


def match(path: str) -> tuple[Handler, dict[str, str]] | None:
    """The handler and captured (still encoded) segments for a relative path."""
    segments = path.split("/")
    for pattern, handler in ROUTES:
        if len(pattern) != len(segments):
            continue
        captured: dict[str, str] = {}
        for expected, actual in zip(pattern, segments, strict=True):
            if expected.startswith("{"):
                if not actual:
                    break
                captured[expected[1:-1]] = actual
            elif expected != actual:
                break
        else:
            return handler, captured
    return None


def dispatch(catalog: Catalog, path: str, params: dict[str, list[str]]) -> Reply:
    """Answer one GET below the API base; every failure becomes a `{"detail"}` reply."""
    found = match(path)
    if found is None:
        return error_reply(HttpError(404, "Not Found"))
    handler, captured = found
    try:
        result = handler(catalog, Query(params), **captured)
    except HttpError as error:
        return error_reply(error)
    return result if isinstance(result, Reply) else Reply(200, result)
