"""Finding one catalog entity by the exact name a caller gave, and resolving areas.

The catalog's list endpoints search loosely (substring, relevance order), but the
`get_<entity>` commands promise an *exact* match. So the commands fetch candidate rows
and pick the one whose name, slug or ID equals the reference here, case-insensitively
and ignoring surrounding blanks. Fields are tried in priority order and each field is
checked on every row before the next field is tried, so a row *named* `OCR` beats an
earlier row whose *slug* is `ocr`:

    >>> rows = [{"name": "Optical Reading", "slug": "ocr"}, {"name": "OCR", "slug": "ocr-2"}]
    >>> exact_match(rows, " ocr ", ("name", "slug"))["name"]
    'OCR'

When nothing matches, `not_found` builds the stable message the MCP layer passes
through (`Task not found: X; closest results: a, b, c`). The closest results come
from the search's own rows; when it found none (a typo: `imagnet`), from
`closest_known`: one broader search and the names seen before.

Areas (`Vision`, `Audio`, ...) are resolved the same way against `areas/`. Argument
checks live in `pwc_local.queries.arguments`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

import anyio
import anyio.to_thread

from pwc_local.common.names import KnownNames
from pwc_local.queries.outline import closest
from pwc_local.safe_text import one_line
from pwc_local.upstream.envelopes import listing_payload, result_rows, rows_of
from pwc_local.upstream.errors import NotFound, UpstreamError
from pwc_local.upstream.source import CatalogSource, QueryValue

__all__ = [
    "AREA_PARAMS",
    "area_named",
    "area_not_found",
    "areas_matching",
    "closest_known",
    "closest_names",
    "exact_match",
    "fetch_areas",
    "is_numeric_id",
    "listing_payload",
    "not_found",
    "resolve_area",
]

# `areas/` is small (a few dozen research areas); one page of 500 always holds all of it.
AREA_PARAMS: dict[str, str | int] = {"page": 1, "page_size": 500, "ordering": "name"}
MAX_SUGGESTIONS = 3
STEM_CHARS = 4  # a broader search sends the first characters of the longest word
MIN_STEM_CHARS = 3
SUGGESTION_SECONDS = 2.0  # the broader search is a hint: never wait longer on it
_WORDS = re.compile(r"[^\W_]+")


def _folded(value: Any) -> str | None:
    if value is None or isinstance(value, bool | dict | list):
        return None
    return str(value).strip().casefold()


def exact_match(
    rows: Iterable[Mapping[str, Any]], reference: str, fields: Sequence[str]
) -> dict[str, Any] | None:
    """The first row whose `fields` (tried in order) equal `reference`, else `None`.

    Comparison is on trimmed, case-folded text, so IDs sent as JSON numbers match
    their decimal form. A blank reference matches nothing.
    """
    wanted = reference.strip().casefold()
    if not wanted:
        return None
    candidates = list(rows)
    for name in fields:
        for row in candidates:
            if _folded(row.get(name)) == wanted:
                return dict(row)
    return None


def closest_names(
    rows: Iterable[Mapping[str, Any]],
    reference: str,
    fields: Sequence[str] = ("name",),
    *,
    limit: int = 3,
    cutoff: float = 0.0,
) -> list[str]:
    """Up to `limit` labels of `rows` that look most like `reference`.

    A row's label is its first non-empty field among `fields` (e.g. name, else slug).
    Labels containing the reference (or contained in it) come first, then by string
    similarity; ties keep the catalog's order, which is already relevance-ranked for
    searched lists. Labels scoring below `cutoff` are left out, which keeps complete
    unranked lists (conferences, organizations) from suggesting unrelated names.
    """
    wanted = reference.strip().casefold()
    scored: list[tuple[float, str]] = []
    seen: set[str] = set()
    for row in rows:
        label = next((str(row[key]).strip() for key in fields if _folded(row.get(key))), None)
        if label is None or label.casefold() in seen:
            continue
        seen.add(label.casefold())
        folded = label.casefold()
        similarity = SequenceMatcher(None, wanted, folded).ratio()
        contained = bool(wanted) and (wanted in folded or folded in wanted)
        if not contained and similarity < cutoff:
            continue
        scored.append((similarity + (1.0 if contained else 0.0), label))
    scored.sort(key=lambda item: -item[0])  # stable: equal scores keep catalog order
    return [label for _, label in scored[:limit]]


def search_stem(reference: str) -> str | None:
    """What a broader search sends for a name no search found: the first
    `STEM_CHARS` characters of its longest word (`imagnet` -> `imag`,
    `image classifcation` -> `clas`), `None` for a name with no word that long.

    A typo usually sits past a word's first letters, and the catalog searches by
    substring, so the stem finds the name that was meant among its neighbours.
    """
    words = _WORDS.findall(reference)
    longest = max(words, key=len, default="")
    if len(longest) < MIN_STEM_CHARS:
        return None
    stem = longest[:STEM_CHARS]
    return None if stem.casefold() == reference.strip().casefold() else stem


async def closest_known(
    catalog: CatalogSource,
    names: KnownNames | None,
    *,
    kind: str,
    reference: str,
    path: str,
    params: Mapping[str, QueryValue],
) -> list[str]:
    """Up to `MAX_SUGGESTIONS` names like `reference`, for a search that found no rows.

    Candidates: the rows of one broader search of `path` (`params` plus `q` =
    `search_stem`), at most `SUGGESTION_SECONDS` and never an error of its own (the
    caller's `not_found` stands), then the `names` of `kind` seen before (no
    request). Ranked by the one fuzzy match (`outline.closest`); a name not close
    enough is not suggested.
    """
    labels: list[str] = []
    stem = search_stem(reference)
    if stem is not None:
        with anyio.move_on_after(SUGGESTION_SECONDS):
            try:
                rows = await catalog.get_json(
                    path, {**params, "q": stem}, accept=lambda d: result_rows(d, what=kind)
                )
            except UpstreamError:  # a hint: the catalog's trouble shows on the next call
                rows = []
            labels += [one_line(str(row["name"]), 200) for row in rows if _folded(row.get("name"))]
    if names is not None:
        known = await anyio.to_thread.run_sync(names.lookup, kind, "")
        labels += [name.label for name in known]
    unique: dict[str, str] = {}
    for label in labels:
        unique.setdefault(label.casefold(), label)
    return closest(reference, unique.values(), lambda label: label, MAX_SUGGESTIONS)


def not_found(label: str, reference: str, suggestions: Sequence[str]) -> NotFound:
    """`<Label> not found: <ref>`, plus `; closest results: a, b, c` when there are any."""
    message = f"{label} not found: {reference.strip()}"
    if suggestions:
        message += f"; closest results: {', '.join(suggestions)}"
    return NotFound(message)


def is_numeric_id(reference: str) -> bool:
    """True for ASCII digits only, the form that skips search and fetches by ID."""
    return reference.isascii() and reference.isdigit()


async def fetch_areas(catalog: CatalogSource) -> list[dict[str, Any]]:
    """All research areas (`areas/` rows, each with at least `id` and `name`)."""
    return await catalog.get_json("areas/", AREA_PARAMS, accept=rows_of("area list"))


def area_named(rows: Iterable[Mapping[str, Any]], area_id: Any) -> dict[str, Any] | None:
    """The area row whose ID equals `area_id` (compared as text), else `None`."""
    if area_id is None:
        return None
    wanted = str(area_id)
    for row in rows:
        if row.get("id") is not None and str(row.get("id")) == wanted:
            return dict(row)
    return None


def area_not_found(area: str, names: Iterable[Any]) -> NotFound:
    """`Area not found: X; available areas: ...` with the names sorted case-insensitively."""
    available = sorted({str(name) for name in names if name is not None}, key=str.casefold)
    return NotFound(
        f"Area not found: {area.strip()}; available areas: {', '.join(available) or 'none'}"
    )


async def resolve_area(catalog: CatalogSource, area: str) -> tuple[str, list[dict[str, Any]]]:
    """Resolve an area name or ID to its catalog ID; returns `(area_id, area_rows)`.

    The reference is compared, trimmed and case-folded, with each area's ID and name;
    the first hit wins. No hit raises `NotFound("Area not found: X; available areas:
    ...")` listing every area name, so the caller can retry with a real one.
    """
    rows = await fetch_areas(catalog)
    wanted = area.strip().casefold()
    named = [row for row in rows if row.get("id") is not None and row.get("name") is not None]
    for row in named:
        if wanted in (_folded(row["id"]), _folded(row["name"])):
            return str(row["id"]), rows
    raise area_not_found(area, (row["name"] for row in named))


def areas_matching(areas: list[dict[str, Any]], area: str | None) -> list[dict[str, Any]]:
    """Grouped-taxonomy areas whose ID or name equals `area` (all of them for `None`).

    Several areas may match. None matching raises `Area not found` with the names of
    the areas that were there.
    """
    if area is None:
        return areas
    wanted = area.strip().casefold()
    kept = [row for row in areas if wanted in (_folded(row.get("id")), _folded(row.get("name")))]
    if not kept:
        raise area_not_found(area, (row.get("name") for row in areas))
    return kept
