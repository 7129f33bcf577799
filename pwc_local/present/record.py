"""The one record a result is shown from, and the table both halves share.

A compact result is a `Record`: a pydantic model whose JSON (`structured`) is the
`structuredContent` and whose fields the family's text function spells for the text
block. Clients hand the model one half or the other, never both, so each half carries
every fact once, and neither carries a copy of the other:

| rule                           | how                                                   |
| ------------------------------ | ----------------------------------------------------- |
| paging and cursors come first  | `stale`, then `next_cursor` / `page`, `next_page`,    |
|                                | `total` are declared before the content               |
| nothing sent for nothing       | `None` fields are left out of the JSON (`structured`) |
| rows say their column names once | a list of like things is a `Table` (columns + rows),|
|                                | the text's Markdown table from the same cells         |

`outputSchema` is the record's schema, so a client validating it sees exactly what is
sent; a field left out is simply absent (no field is required by the compact listing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from pwc_local.present.words import clean, metric, parameters, table, yes_no

Cell = str | int | float | bool | list[str] | None


def _without_titles(schema: dict[str, Any]) -> None:
    """No generated titles, and no `null` branch: a field with nothing is left out, never
    sent as `null`, so its schema is the type it has when sent. No
    `additionalProperties: false` either: the properties are all a record has (pydantic
    refuses any other when it is built), and the 28 bytes a tool are paid in every
    session's listing."""
    schema.pop("title", None)
    schema.pop("additionalProperties", None)
    for name, prop in schema.get("properties", {}).items():
        prop.pop("title", None)
        branches = prop.get("anyOf", [])
        kept = [branch for branch in branches if branch.get("type") != "null"]
        if len(kept) == 1 and len(kept) < len(branches):
            rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
            schema["properties"][name] = {**kept[0], **rest}


class Record(BaseModel):
    """A compact result. `stale`: when the answer came from cache entries past their
    lifetime because the catalog could not be reached, the time they were saved."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_without_titles)

    stale: str | None = None

    def structured(self) -> dict[str, Any]:
        """The `structuredContent`: the record's JSON without the fields it leaves empty."""
        return self.model_dump(mode="json", exclude_none=True)


class Table(BaseModel):
    """Rows of like things: the column names once, then one list of cells per row."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_without_titles)

    columns: list[str]
    rows: list[list[Cell]]


def table_of(columns: Sequence[str], rows: Sequence[Sequence[Cell]]) -> Table | None:
    """A `Table` without the columns that are empty in every row; `None` without rows."""
    if not rows:
        return None
    kept = [i for i in range(len(columns)) if any(row[i] not in (None, "", []) for row in rows)]
    return Table(columns=[columns[i] for i in kept], rows=[[row[i] for i in kept] for row in rows])


def cell_text(value: Cell, column: str = "") -> str:
    """A cell as the text shows it: numbers with separators, lists joined, booleans yes/no."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, list):
        return ", ".join(clean(item, 80) for item in value)
    if column == "parameters" and isinstance(value, int):
        return parameters(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return metric(value)
    return clean(value)


def markdown_table(found: Table, headers: Mapping[str, str] | None = None) -> str:
    """The Markdown table of a `Table`: the same columns and cells (`headers` renames)."""
    names = headers or {}
    return table(
        [names.get(column, column) for column in found.columns],
        [
            [cell_text(value, column) for value, column in zip(row, found.columns, strict=True)]
            for row in found.rows
        ],
    )


@dataclass(frozen=True)
class Shown:
    """What a text function needs besides the record: the call, to spell the next one.

    `hint(**changes)` is `tool(name=value, ...)` repeating this call with `changes`.
    """

    hint: Callable[..., str]


def next_page_line(record: Any, shown: Shown, argument: str = "page") -> str | None:
    """`Next page: tool(..., page=N).` when the record has a next page."""
    number = getattr(record, "next_page", None)
    if number is None:
        return None
    return f"Next page: {shown.hint(**{argument: number})}."


def counted(shown_count: int, total: int | None, noun: str, nouns: str | None = None) -> str:
    """`3 papers of 7`, or `3 papers` when the total is that many or unknown."""
    word = noun if (total if total is not None else shown_count) == 1 else nouns or noun + "s"
    if total is None or total == shown_count:
        return f"{shown_count:,} {word}"
    return f"{shown_count:,} {word} of {total:,}"


def paragraphs(blocks: Iterable[str | None]) -> str:
    """The blocks of a text that have anything to say, a blank line between them."""
    return "\n\n".join(block for block in blocks if block)


def by_name(references: Sequence[Any]) -> dict[str, str] | None:
    """Catalog references (tasks, methods, ...) as name -> the slug (else ID) a tool takes."""
    return {ref.name: ref.slug or ref.id for ref in references} or None


@dataclass(frozen=True)
class Presenter:
    """How a tool's compact result is shown: its record type, how the record is built
    (from the hosted projection, the query's answer and the arguments) and its text."""

    record: type[Record]
    build: Callable[[Any, Any, Mapping[str, Any]], Record]
    text: Callable[[Any, Shown], str]
