"""From a catalog body to a JSON document whose size and shape can be trusted.

`HttpCatalog.get_json` hands every successful JSON body to `parse_document`, which
applies three rules before any query or projection sees the document:

* **Valid UTF-8 JSON**, else `InvalidResponse` (Python's parser accepts `NaN` and
  `Infinity`; the serialisers downstream turn them into `null`).
* **No page longer than asked for.** When the request carried a page size
  (`page_size` or `limit`), the row list (a bare array, else `results`, else
  `items`, as `envelopes.result_rows` reads it) is cut to that many rows. A catalog
  that answers `page_size=5` with 180,000 rows therefore costs one parse, not
  180,000 projected rows and a 30 MB answer.
* **At most `MAX_DEPTH` levels of nesting.** Real catalog documents nest a handful
  of levels; an 800-deep array where a title should be would otherwise reach the
  serialisers, which give up on it with a recursion error, i.e. a crash that looks
  like our bug. It is an unusable answer instead (`upstream_error:`).

Parsing a large body takes tens of milliseconds; `HttpCatalog` runs it in a worker
thread above `OFF_LOOP_BYTES` so the event loop keeps answering pings meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pwc_local.catalog.errors import InvalidResponse

MAX_DEPTH = 64
"""Deepest nesting accepted in a catalog document (the top level counts as 1)."""

OFF_LOOP_BYTES = 64 * 1024
"""Bodies larger than this are parsed in a worker thread, not on the event loop."""

_PAGE_SIZE_PARAMS = ("page_size", "limit")


def page_size(params: Mapping[str, Any] | None) -> int | None:
    """The number of rows a request asked for, or `None` when it did not say."""
    for name in _PAGE_SIZE_PARAMS:
        value = (params or {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def parse_document(body: bytes, *, max_rows: int | None = None) -> Any:
    """The JSON document in `body`, its row list cut to `max_rows`, depth checked.

    >>> parse_document(b'{"results": [{"id": 1}, {"id": 2}]}', max_rows=1)
    {'results': [{'id': 1}]}
    """
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidResponse("catalog returned invalid JSON") from exc
    if max_rows is not None:
        document = _cut_rows(document, max_rows)
    _check_depth(document)
    return document


def _cut_rows(document: Any, max_rows: int) -> Any:
    if isinstance(document, list):
        return document[:max_rows]
    if isinstance(document, dict):
        key = "results" if document.get("results") is not None else "items"
        rows = document.get(key)
        if isinstance(rows, list) and len(rows) > max_rows:
            document[key] = rows[:max_rows]
    return document


def _check_depth(document: Any) -> None:
    """Raise `InvalidResponse` when containers nest deeper than `MAX_DEPTH`.

    Iterative, so a hostile document cannot exhaust the Python stack here either.
    """
    if not isinstance(document, dict | list):
        return
    pending: list[tuple[Any, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value
        for child in children:
            if isinstance(child, dict | list):
                if depth >= MAX_DEPTH:
                    raise InvalidResponse("catalog response is nested too deeply")
                pending.append((child, depth + 1))
