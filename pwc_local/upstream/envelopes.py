"""Reading the catalog's response envelopes (list bodies, detail objects).

Every list-reading command extracts rows the same way, so the rules live here once:
a bare JSON array is the row list; otherwise the body must be an object whose
`results` (else `items`) is an array. Non-object rows are dropped. The total is
`count`, or `total` when `count` is missing, null or 0.

The checks come in two forms. `result_rows`, `require_object` ... take a document;
`rows_of`, `listing_of`, `object_of` and `payload_of` make the *shape checks* a query
passes to `CatalogSource.get_json(..., accept=...)`, so the check runs where the
document is fetched and a caching source stores only documents that passed it:

    areas = await catalog.get_json("areas/", AREA_PARAMS, accept=rows_of("area list"))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from pwc_local.upstream.errors import InvalidResponse

Row = dict[str, Any]


class Listing(NamedTuple):
    """A list response that passed its shape check: the document and its object rows."""

    document: Any
    rows: list[Row]


def result_rows(document: Any, *, what: str = "catalog response") -> list[dict[str, Any]]:
    """The object rows of a list response; raise `InvalidResponse` if there is no list."""
    rows: Any
    if isinstance(document, list):
        rows = document
    elif isinstance(document, dict):
        rows = document.get("results")
        if rows is None:
            rows = document.get("items")
        if not isinstance(rows, list):
            raise InvalidResponse(f"{what} did not contain a result list")
    else:
        raise InvalidResponse(f"{what} was not a JSON object or array")
    return [row for row in rows if isinstance(row, dict)]


def result_total(document: Any) -> int | None:
    """The declared total of a list response, or `None` when it is unknown."""
    if not isinstance(document, dict):
        return None
    for key in ("count", "total"):
        value = document.get(key)
        if value is None or isinstance(value, bool):
            continue
        try:
            total = int(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: `1e400`, `Infinity`
            continue
        if total or key == "total":
            return total
    return None


def require_object(document: Any, *, what: str = "catalog response") -> dict[str, Any]:
    """`document` itself when it is a JSON object, else `InvalidResponse`."""
    if not isinstance(document, dict):
        raise InvalidResponse(f"{what} was not a JSON object")
    return document


def next_page_after(document: Any, current: int) -> int | None:
    """`next_page` when it is an int greater than `current`, else `None`."""
    if not isinstance(document, dict):
        return None
    value = document.get("next_page")
    if isinstance(value, int) and not isinstance(value, bool) and value > current:
        return value
    return None


def trending_results(document: Any) -> list[Any]:
    """The `results` list of a trending-benchmarks document, which must be an object.

    This endpoint has no bare-array or `items` form, so `result_rows` does not apply;
    the entries are returned as they are.
    """
    found = require_object(document, what="trending benchmarks").get("results")
    if not isinstance(found, list):
        raise InvalidResponse("trending benchmarks response has no result list")
    return found


def listing_payload(document: Any, what: str) -> dict[str, Any]:
    """A list response as a command payload: the document itself, checked to hold rows.

    A bare JSON array (which the envelope rules allow) becomes `{count, results}`, so
    every payload is an object.
    """
    found = result_rows(document, what=what)
    if isinstance(document, dict):
        return document
    return {"count": len(found), "results": found}


# -- shape checks for `get_json(..., accept=...)` ----------------------------------------


def rows_of(what: str) -> Callable[[Any], list[Row]]:
    """Accept a list response; the value is its object rows (`result_rows`)."""
    return lambda document: result_rows(document, what=what)


def listing_of(what: str) -> Callable[[Any], Listing]:
    """Accept a list response; the value keeps the document too (for totals and paging)."""
    return lambda document: Listing(document, result_rows(document, what=what))


def object_of(what: str) -> Callable[[Any], dict[str, Any]]:
    """Accept a JSON object (`require_object`)."""
    return lambda document: require_object(document, what=what)


def payload_of(what: str) -> Callable[[Any], dict[str, Any]]:
    """Accept a list response; the value is its command payload (`listing_payload`)."""
    return lambda document: listing_payload(document, what)
