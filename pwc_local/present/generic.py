"""Any tool's output model as compact Markdown: the text of entries that name no pieces.

The `QueryResult` tools (conferences, organizations, frameworks, task and method
lists) hand back the catalog's JSON as it came, so their text is a walk over it:

* a labelled object (one with a `name`, `title` or `model_name`) becomes a heading
  `## Name (slug, id N)`, a line of its short fields, its description trimmed and
  a line of its links;
* a list of flat objects becomes a table led by each row's name and identifiers
  (URLs and descriptions stay in `structuredContent`); a list of objects holding
  lists of their own (areas > tasks > benchmarks) becomes nested list items;
* anything else becomes `key: value` facts.

Every value goes through `render.clean`; nesting deeper than `MAX_DEPTH` is left to
`structuredContent`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pwc_local.present.render import Call
from pwc_local.present.words import (
    CELL_CHARS,
    FREE_TEXT_CHARS,
    clean,
    handle,
    id_of,
    ids,
    table,
    trimmed,
    yes_no,
)

MAX_DEPTH = 6
DEEPER = "(nested deeper: see structuredContent)"

_LABELS = ("name", "title", "model_name")
_HANDLES = ("slug", "arxiv_id", "reference")
_SKIPPED = frozenset({"schema_version", "cache"})


def _label_of(row: Mapping[str, Any]) -> str | None:
    for key in _LABELS:
        if isinstance(row.get(key), str) and row[key]:
            return key
    return None


def _row_handle(row: Mapping[str, Any], label: str | None) -> str:
    values = [*(row.get(key) for key in _HANDLES), id_of(row.get("id"))]
    return handle(row[label], *values) if label else ids(*values)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _shown(key: str, value: Any, *, in_table: bool) -> bool:
    """Whether a field goes in the text: not empty, and in a table no URL or long text."""
    if value in (None, "", [], {}):
        return False
    return not (in_table and (key.endswith("url") or key == "description"))


def _value(key: str, value: Any) -> str:
    if isinstance(value, list) and all(_scalar(item) for item in value):
        return ", ".join(clean(item, 100) for item in value)
    if key == "description" or (isinstance(value, str) and len(value) > FREE_TEXT_CHARS):
        return trimmed(value)
    if isinstance(value, bool):
        return yes_no(value)
    return clean(value)


def _words(key: str) -> str:
    return key.replace("_", " ")


def _rows_of(value: Any) -> list[Mapping[str, Any]] | None:
    if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        return value
    return None


def _facts(row: Mapping[str, Any], label: str | None) -> list[str]:
    """`key: value` for a row's short fields (not its label, IDs, URLs, description, rows)."""
    used = {label, *_HANDLES, "id"} if label else set()
    return [
        f"{_words(key)}: {_value(key, value)}"
        for key, value in row.items()
        if key not in used
        and key not in _SKIPPED
        and _shown(key, value, in_table=True)
        and (_scalar(value) or (isinstance(value, list) and all(map(_scalar, value))))
    ]


def _line(row: Mapping[str, Any]) -> str:
    label = _label_of(row)
    return " · ".join(part for part in [_row_handle(row, label), *_facts(row, label)] if part)


def _rows_lines(rows: Sequence[Mapping[str, Any]], depth: int) -> list[str]:
    """Flat rows as a table (one row: a list item); rows holding rows as headed sections.

    Areas > tasks > benchmarks becomes `### Area`, `#### Task`, then a table of the
    task's benchmarks.
    """
    if depth > MAX_DEPTH:
        return [DEEPER]
    nested = any(
        isinstance(value, Mapping) or _rows_of(value) is not None
        for row in rows
        for value in row.values()
    )
    if not nested:
        return [_rows_table(rows) if len(rows) > 1 else "- " + _line(rows[0])]
    lines = []
    for row in rows:
        lines.append("#" * min(3 + depth, 6) + " " + _line(row))
        for key, value in row.items():
            if key in _SKIPPED:
                continue
            if (inner := _rows_of(value)) is not None:
                lines += _rows_lines(inner, depth + 1)
            elif isinstance(value, Mapping) and value:
                lines.append(f"{_words(key)}:")
                lines += _rows_lines([value], depth + 1)
    return lines


def _rows_table(rows: Sequence[Mapping[str, Any]]) -> str:
    label = _label_of(rows[0])
    columns: list[str] = []
    for row in rows:
        for key, value in row.items():
            if key in columns or key in _SKIPPED or key in _LABELS or key in _HANDLES:
                continue
            flat = _scalar(value) or (isinstance(value, list) and all(map(_scalar, value)))
            if key != "id" and flat and _shown(key, value, in_table=True):
                columns.append(key)
    headers = [_words(label or "item"), *[_words(key) for key in columns]]
    body = []
    for row in rows:
        row_label = _label_of(row)
        lead = _row_handle(row, row_label)
        body.append(
            [
                lead,
                *[
                    _value(key, row.get(key)) if row.get(key) not in (None, "") else ""
                    for key in columns
                ],
            ]
        )
    return table(headers, body)


def _record_block(row: Mapping[str, Any], label: str, depth: int) -> str:
    """A single labelled object: a heading with its handle, its facts, its text and links."""
    used = {label, *_HANDLES, "id"}
    facts, texts, links, nested = [], [], [], []
    for key, value in row.items():
        if key in used or key in _SKIPPED or not _shown(key, value, in_table=False):
            continue
        if _rows_of(value) is not None or isinstance(value, Mapping):
            nested.append(markdown_of({key: value}, depth + 1))
        elif key.endswith("url") and isinstance(value, str):
            links.append(f"{_words(key)} {clean(value, 500)}")
        elif key == "description" or (isinstance(value, str) and len(value) > CELL_CHARS):
            texts.append(trimmed(value))
        elif _scalar(value) or all(_scalar(item) for item in value):
            facts.append(f"{_words(key)}: {_value(key, value)}")
    lines = [f"## {_row_handle(row, label)}", " · ".join(facts), *texts, " · ".join(links)]
    return "\n\n".join(["\n".join(line for line in lines if line), *nested])


def markdown_of(document: Any, depth: int = 0) -> str:
    """Any JSON document as compact Markdown: objects as fact lines, flat rows as tables."""
    if depth > MAX_DEPTH:
        return DEEPER
    rows = _rows_of(document)
    if rows is not None:
        return "\n".join(_rows_lines(rows, depth))
    if not isinstance(document, Mapping):
        return clean(document) if document not in (None, "", []) else ""
    label = _label_of(document)
    if label is not None:
        return _record_block(document, label, depth)
    blocks: list[str] = []
    facts = []
    for key, value in document.items():
        if key in _SKIPPED or value in (None, "", [], {}):
            continue
        if (inner := _rows_of(value)) is not None:
            blocks.append(f"{_words(key)} ({len(inner)}):\n" + markdown_of(inner, depth + 1))
        elif isinstance(value, Mapping):
            inner_text = markdown_of(value, depth + 1)
            blocks.append(inner_text if _label_of(value) else f"{_words(key)}:\n{inner_text}")
        elif _scalar(value) or isinstance(value, list):
            facts.append(f"{_words(key)}: {_value(key, value)}")
    if facts:
        blocks.insert(0, " · ".join(facts))
    return "\n\n".join(block for block in blocks if block)


def generic(call: Call) -> str:
    """The model as compact Markdown: the fallback of every entry that declares no pieces."""
    document = call.structured
    data = document.get("data")
    if set(document) - _SKIPPED == {"data"}:
        return markdown_of(data)
    return markdown_of({key: value for key, value in document.items() if key != "data"})
