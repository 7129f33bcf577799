"""Reading the catalog's response envelopes (list bodies, detail objects).

Every list-reading command extracts rows the same way, so the rules live here once:
a bare JSON array is the row list; otherwise the body must be an object whose
`results` (else `items`) is an array. Non-object rows are dropped. The total is
`count`, or `total` when `count` is missing, null or 0.
"""

from __future__ import annotations

from typing import Any

from pwc_local.catalog.errors import InvalidResponse


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
