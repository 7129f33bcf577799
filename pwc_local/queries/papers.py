"""The paper commands: search, listings, paper detail, evaluations, related, lineage.

Each function mirrors one read-only command of the `pwc` CLI (`pwc paper search`, ...)
and returns its JSON payload: plain dicts and lists, ready to be the `data` of a
tool result. They take a `CatalogSource`, check before any request what the tool's
input schema cannot (`pwc_local.queries.arguments`), resolve paper references
(`references.resolve_paper`) and raise the typed errors of `pwc_local.upstream.errors`;
nothing here knows about MCP.

Filters are fail-closed: when a caller asks for a filter, the catalog must
echo it in `applied_filters`, otherwise no rows are shown at all. An unfiltered list
presented as filtered would be a wrong answer that looks right.

Messages name the MCP parameters (`published_after`, `authors`), not CLI flags.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pwc_local.common.references import resolve_paper, shown
from pwc_local.queries.arguments import check_dates, check_finite, optional_text, required_text
from pwc_local.queries.leaderboard import merge_rows
from pwc_local.safe_text import one_line
from pwc_local.upstream.envelopes import (
    listing_of,
    next_page_after,
    require_object,
    result_rows,
    result_total,
    rows_of,
)
from pwc_local.upstream.errors import (
    HTTPStatusError,
    InvalidResponse,
    NotFound,
    PaperMissing,
    UsageError,
    translate_404,
)
from pwc_local.upstream.source import Accept, CatalogSource, QueryValue, segment

EVALUATION_PAGE_SIZE = 100
MAX_PAGE = 100

T = TypeVar("T")

_DIGITS = re.compile(r"[0-9]+")


# -- search and listings ------------------------------------------------------------


async def search_papers(
    catalog: CatalogSource,
    query: str,
    *,
    mode: str,
    page: int,
    limit: int,
    published_after: str | None,
    published_before: str | None,
    has_official_implementation: bool,
) -> dict[str, Any]:
    """`papers/search`: relevance-ranked search; the catalog document as is.

    With `has_official_implementation` the answer must confirm the filter.
    """
    text = required_text(query, "query")
    start, end = check_dates(published_after, published_before)
    document = await catalog.get_json(
        "papers/search",
        {
            "q": text,
            "page": page,
            "page_size": limit,
            "mode": mode,
            "start_date": start,
            "end_date": end,
            "has_official_implementation": True if has_official_implementation else None,
        },
        accept=_page_object("paper search response"),
    )
    if has_official_implementation:
        _confirm_official(document)
    return document


async def hybrid_search(catalog: CatalogSource, query: str, *, limit: int) -> dict[str, Any]:
    """The first page of `search_papers` as the tool searches by default: hybrid, unfiltered."""
    return await search_papers(
        catalog,
        query,
        mode="hybrid",
        page=1,
        limit=limit,
        published_after=None,
        published_before=None,
        has_official_implementation=False,
    )


async def list_papers(
    catalog: CatalogSource,
    *,
    search: str | None,
    task: str | None,
    method: str | None,
    conference: str | None,
    framework: str | None,
    organization: str | None,
    authors: Sequence[str] | None,
    published_after: str | None,
    published_before: str | None,
    all_versions: bool,
    order_by: str,
    order_direction: str,
    include_resources: bool,
    has_official_implementation: bool,
    page: int,
    limit: int,
) -> dict[str, Any]:
    """`papers/`: deterministic, filtered listing; the catalog document as is.

    Blank text filters count as not given, like an empty `authors` list. Every
    given filter must be confirmed by the catalog (see module docstring).
    """
    start, end = check_dates(published_after, published_before)
    author_list = _check_authors(authors)
    filters = {
        "task": optional_text(task),
        "method": optional_text(method),
        "conference": optional_text(conference),
        "framework": optional_text(framework),
        "organization": optional_text(organization),
    }
    params: dict[str, QueryValue] = {
        "page": page,
        "page_size": limit,
        "search": optional_text(search),
        "start_date": start,
        "end_date": end,
        **filters,
        "author": author_list or None,
        "latest_only": not all_versions,
        "order_by": order_by,
        "order_dir": order_direction,
        "include_resources": include_resources,
        "has_official_implementation": True if has_official_implementation else None,
    }
    try:
        document = await catalog.get_json(
            "papers/", params, accept=_page_object("paper list response")
        )
    except HTTPStatusError as exc:
        if author_list and exc.status in (404, 409, 422):
            raise _author_error(exc) from exc
        raise
    requested = {name: value for name, value in filters.items() if value is not None}
    if start:
        requested["start_date"] = start
    if end:
        requested["end_date"] = end
    if has_official_implementation:
        _confirm_official(document)
        requested["has_official_implementation"] = "true"
    _confirm_filters(document, requested)
    if author_list:
        _confirm_authors(document, author_list)
    return document


async def list_recent_papers(catalog: CatalogSource, *, limit: int) -> list[dict[str, Any]]:
    """`papers/recent`: the most recently added papers, as a list of rows."""
    return await catalog.get_json(
        "papers/recent", {"limit": limit}, accept=rows_of("recent papers response")
    )


async def list_trending_papers(
    catalog: CatalogSource,
    *,
    limit: int,
    max_age_days: int,
    min_velocity: float | None,
) -> list[dict[str, Any]]:
    """`papers/trending`: papers ranked by repository velocity, as a list of rows."""
    check_finite(min_velocity, "min_velocity")
    return await catalog.get_json(
        "papers/trending",
        {"limit": limit, "max_age_days": max_age_days, "min_velocity": min_velocity},
        accept=rows_of("trending papers response"),
    )


# -- one paper -------------------------------------------------------------------------


async def get_paper_info(
    catalog: CatalogSource, paper: str, *, include_evaluations: bool
) -> dict[str, Any]:
    """`papers/<id>` with resources, plus every evaluation row when asked.

    Resources are always requested so official repositories are known; trimming
    them is the caller's projection. With `include_evaluations` the payload gains
    `evaluations: {count, results}` holding the raw (unmerged) rows of all pages.
    """
    canonical = await resolve_paper(catalog, paper)
    record = await fetch_paper(
        catalog, canonical, paper, include_resources=True, need_id=include_evaluations
    )
    payload = dict(record)
    if include_evaluations:
        count, rows = await _all_evaluations(catalog, _paper_id(record))
        payload["evaluations"] = {"count": count, "results": rows}
    return payload


async def get_paper_evaluations(
    catalog: CatalogSource, paper: str, *, page: int, limit: int
) -> dict[str, Any]:
    """One page of a paper's evaluations: `{count, page, next_page, results}`.

    `results` are merged rows (same model, benchmark, harness, split and shots with
    compatible metrics become one row carrying every task-scoped rank); `count` is
    the catalog total, or the row count when the catalog gives none.
    """
    canonical = await resolve_paper(catalog, paper)
    record = await fetch_paper(catalog, canonical, paper, include_resources=False, need_id=True)
    document, rows = await catalog.get_json(
        "evaluations/",
        {
            "page": page,
            "page_size": limit,
            "paper_id": _paper_id(record),
            "ordering": "-benchmark_popularity",
        },
        accept=listing_of("evaluation response"),
    )
    return {
        "count": result_total(document) or len(rows),
        "page": page,
        "next_page": next_page_after(document, page),
        "results": merge_rows(rows),
    }


async def get_related_papers(catalog: CatalogSource, paper: str, *, limit: int) -> dict[str, Any]:
    """`papers/<id>/related`: catalog papers related to one paper, as `{results, ...}`.

    A bare array from the catalog is wrapped as `{"results": [...]}`.
    """
    canonical = await resolve_paper(catalog, paper)
    document, rows = await _paper_json(
        catalog,
        f"papers/{segment(canonical)}/related",
        paper,
        {"limit": limit},
        accept=listing_of("related papers response"),
    )
    return document if isinstance(document, dict) else {"results": rows}


async def get_paper_lineage(catalog: CatalogSource, paper: str) -> dict[str, Any]:
    """`research/papers/<id>/lineage`: explicit predecessors and successors.

    The document must hold a `paper` object; it is returned as is.
    """
    canonical = await resolve_paper(catalog, paper)
    return await _paper_json(
        catalog, f"research/papers/{segment(canonical)}/lineage", paper, accept=_lineage
    )


def _lineage(document: Any) -> dict[str, Any]:
    """Accept a lineage document: an object holding a `paper` object."""
    lineage = require_object(document, what="lineage response")
    if not isinstance(lineage.get("paper"), dict):
        raise InvalidResponse("lineage response did not contain a paper object")
    return lineage


def _page_object(what: str) -> Accept[dict[str, Any]]:
    """Accept a paper page: an object (not a bare array) holding a result list."""

    def check(document: Any) -> dict[str, Any]:
        page = require_object(document, what=what)
        result_rows(page, what=what)
        return page

    return check


async def fetch_paper(
    catalog: CatalogSource,
    canonical: str,
    reference: str,
    *,
    include_resources: bool,
    need_id: bool = False,
) -> dict[str, Any]:
    """The `papers/<canonical>` record; a 404 becomes `PaperMissing` naming `reference`.

    With `need_id` (the caller goes on to ask for the paper's evaluations) a record
    without an ID is unusable, and is not cached.
    """

    def check(document: Any) -> dict[str, Any]:
        record = require_object(document, what="paper response")
        if need_id:
            _paper_id(record)
        return record

    return await _paper_json(
        catalog,
        f"papers/{segment(canonical)}",
        reference,
        {"include_resources": include_resources},
        accept=check,
    )


async def _paper_json(
    catalog: CatalogSource,
    path: str,
    reference: str,
    params: Mapping[str, QueryValue] | None = None,
    *,
    accept: Accept[T],
) -> T:
    with translate_404(PaperMissing(f"Paper not found: {shown(reference)}")):
        return await catalog.get_json(path, params, accept=accept)


def _paper_id(record: Mapping[str, Any]) -> str:
    value = record.get("id")
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        raise InvalidResponse("paper response did not contain an id")
    return str(value).strip()


async def _all_evaluations(catalog: CatalogSource, paper_id: str) -> tuple[int, list[dict]]:
    """Every evaluation row of a paper, 100 per request.

    Stops at an empty page, when the total is unknown, once the rows reach the
    total announced by the first page, or at the catalog's last page number.
    """
    rows: list[dict[str, Any]] = []
    total: int | None = None
    for page in range(1, MAX_PAGE + 1):
        document, batch = await catalog.get_json(
            "evaluations/",
            {
                "page": page,
                "page_size": EVALUATION_PAGE_SIZE,
                "paper_id": paper_id,
                "ordering": "-benchmark_popularity",
            },
            accept=listing_of("evaluation response"),
        )
        if page == 1:
            total = result_total(document)
        if not batch:
            break
        rows.extend(batch)
        if total is None or len(rows) >= total:
            break
    return (total if total is not None else len(rows)), rows


# -- argument checks (the rest are the schema's or `arguments`') -------------------


def _check_authors(authors: Sequence[str] | None) -> list[str]:
    """The trimmed author entries (none for `None` or `[]`); a blank entry is refused."""
    cleaned = [entry.strip() for entry in authors or ()]
    if any(not entry for entry in cleaned):
        raise UsageError("authors entries must be non-empty names, numeric IDs or @usernames")
    return cleaned


# -- fail-closed confirmation: a requested filter must be echoed in applied_filters ---


def _applied(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    applied = document.get("applied_filters")
    return applied if isinstance(applied, dict) else None


def _confirm_official(document: Mapping[str, Any]) -> None:
    applied = _applied(document)
    value = applied.get("has_official_implementation") if applied is not None else None
    if not (value is True or (isinstance(value, str) and value.strip().lower() == "true")):
        raise NotFound(
            "Papers API did not confirm has_official_implementation; no results are shown "
            "because they might include papers without official code"
        )


def _confirm_filters(document: Mapping[str, Any], requested: Mapping[str, str]) -> None:
    if not requested:
        return
    applied = _applied(document)
    unconfirmed = [
        name
        for name, value in requested.items()
        if applied is None or _echo_text(applied.get(name)) != value.casefold()
    ]
    if unconfirmed:
        raise NotFound(
            "Papers API did not confirm the requested catalog filters "
            f"({', '.join(unconfirmed)}); no results are shown because they might be "
            "unfiltered; check the filter values against the list tools"
        )


def _echo_text(value: Any) -> str:
    # str(True) is "True": both boolean spellings of the official flag fold to "true".
    return "" if value is None else str(value).casefold()


def _confirm_authors(document: Mapping[str, Any], requested: Sequence[str]) -> None:
    applied = _applied(document)
    entries = applied.get("authors") if applied is not None else None
    failure = NotFound(
        "Papers API did not confirm the requested author filters; no results are shown "
        "because they might not be filtered by these authors"
    )
    if not isinstance(entries, list) or not entries:
        raise failure
    confirmed: list[tuple[str, str, str]] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise failure
        raw_id, name = entry.get("id"), entry.get("name")
        id_text = "" if isinstance(raw_id, bool) or raw_id is None else str(raw_id).strip()
        if not _DIGITS.fullmatch(id_text) or not isinstance(name, str) or not name.strip():
            raise failure
        username = entry.get("hf_username")
        confirmed.append(
            (
                _number_text(id_text),
                " ".join(name.split()).casefold(),
                username.strip().casefold() if isinstance(username, str) else "",
            )
        )
    for reference in requested:
        if not any(_author_matches(reference, *entry) for entry in confirmed):
            raise failure


def _number_text(digits: str) -> str:
    """All-digit text without leading zeros, so `000264` equals `264` at any length."""
    return digits.lstrip("0") or "0"


def _author_matches(reference: str, author_id: str, name: str, username: str) -> bool:
    if _DIGITS.fullmatch(reference):
        return _number_text(reference) == author_id
    if reference.startswith("@"):
        wanted = reference[1:].strip().casefold()
        return bool(wanted) and wanted == username
    return " ".join(reference.split()).casefold() == name


def _author_error(exc: HTTPStatusError) -> UsageError:
    """The catalog's own explanation of a rejected author filter, as a usage error."""
    try:
        detail = json.loads(exc.detail).get("detail")
    except (ValueError, AttributeError, RecursionError):
        detail = None
    if isinstance(detail, str) and _clean(detail):
        return UsageError(f"authors: {_clean(detail)}")
    if isinstance(detail, dict) and detail.get("code") == "ambiguous_author":
        reference = detail.get("reference")
        name = _clean(reference) if isinstance(reference, str) else "an author"
        hints = []
        candidates = detail.get("candidates")
        for candidate in candidates if isinstance(candidates, list) else []:
            if not isinstance(candidate, dict):
                continue
            raw_id = candidate.get("id")
            id_text = "" if isinstance(raw_id, bool) or raw_id is None else str(raw_id).strip()
            if not _DIGITS.fullmatch(id_text):
                continue
            labels = []
            for key, prefix in (("name", ""), ("hf_username", "@")):
                value = candidate.get(key)
                if isinstance(value, str) and _clean(value):
                    labels.append(prefix + _clean(value))
            hint = f'authors=["{id_text}"]'
            hints.append(f"{hint} ({', '.join(labels)})" if labels else hint)
        message = f'author "{name}" is ambiguous'
        if hints:
            message += "; retry with one of: " + "; ".join(hints)
        return UsageError(message)
    return UsageError(
        f"the catalog rejected the author filter (HTTP {exc.status}); check the authors values"
    )


def _clean(text: str) -> str:
    """Upstream text made safe to show: printable, one line, at most 200 characters."""
    return one_line(text, 200)
