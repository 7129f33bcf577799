"""The taxonomy: tasks, methods, conferences, organizations and frameworks.

| tools                                            | record         |
| ------------------------------------------------ | -------------- |
| get_task                                         | `TaskFacts`    |
| get_method                                       | `MethodFacts`  |
| list_tasks, list_methods, list_conferences,      | `CatalogList`  |
| list_organizations, list_frameworks              |                |
| get_conference, get_organization, get_framework  | `CatalogEntry` |

The lists and entries are the catalog's documents as it shapes them (the "(inferred)"
shapes of the spec), shown without what carries no fact: empty values, a row's catalog
ID beside the slug the tools take, and `area_id` where the area's name is known
(`queries.taxonomy.AreaListing`). Grouped task lists keep one table per area.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pwc_local.present.hosted import MethodResult, QueryResult, TaskResult
from pwc_local.present.record import (
    Cell,
    Record,
    Shown,
    Table,
    by_name,
    cell_text,
    counted,
    markdown_table,
    next_page_line,
    paragraphs,
    table_of,
)
from pwc_local.present.words import clean, literal, plural

if TYPE_CHECKING:  # the query modules import httpx; the server must start without it
    from pwc_local.queries.taxonomy import AreaListing

DESCRIPTION_CHARS = 1500
# Listing fields that repeat what another field says, or say nothing to a reader.
REDUNDANT = frozenset({"created_at", "updated_at", "previous_page", "route_identifier"})


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _cell(value: Any) -> Cell:
    """A catalog value as a table cell: scalars as they are, lists of scalars as strings."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list) and all(isinstance(item, str | int | float) for item in value):
        return [str(item) for item in value]
    if isinstance(value, Mapping):  # a nested reference: its name says it
        return str(value.get("name") or value.get("slug") or value.get("id") or "")
    return None


def rows_table(
    rows: Sequence[Mapping[str, Any]], areas: Mapping[str, str], drop: frozenset[str] = REDUNDANT
) -> Table | None:
    """Catalog rows as a `Table`: columns in first-seen order, without the `drop` ones."""
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns and key not in drop]
    has_slug = all(row.get("slug") for row in rows)
    if has_slug and "id" in columns:
        columns.remove("id")
    if areas and "area_id" in columns:
        columns[columns.index("area_id")] = "area"
    body = []
    for row in rows:
        cells = []
        for column in columns:
            if column == "area":
                area_id = row.get("area_id")
                cells.append(areas.get(str(area_id), area_id) if area_id is not None else None)
            else:
                cells.append(_cell(row.get(column)))
        body.append(cells)
    return table_of(columns, body)


class AreaGroup(Record):
    area: str
    rows: Table | None = None


class CatalogList(Record):
    page: int | None = None
    next_page: int | None = None
    total: int | None = None
    rows: Table | None = None
    groups: list[AreaGroup] | None = None


def _groups(rows: Sequence[Mapping[str, Any]]) -> list[AreaGroup] | None:
    """A grouped document (areas holding lists of rows) as one table per area."""
    groups = []
    for area in rows:
        inner = next(
            (v for v in area.values() if isinstance(v, list) and v and isinstance(v[0], Mapping)),
            [],
        )
        groups.append(
            AreaGroup(area=str(area.get("name") or area.get("id")), rows=rows_table(inner, {}))
        )
    return groups


def _is_grouped(rows: Sequence[Any]) -> bool:
    """Rows that hold lists of rows (areas holding tasks), not rows with a list of names."""
    return any(
        isinstance(row, Mapping)
        and any(isinstance(v, list) and v and isinstance(v[0], Mapping) for v in row.values())
        for row in rows
    )


def catalog_list(model: QueryResult, _answer: Any, arguments: Mapping[str, Any]) -> CatalogList:
    """A listing: the catalog's document as it came (the hosted model's `data`)."""
    return _catalog_list(model.data, {}, arguments)


def area_list(model: QueryResult, answer: AreaListing, arguments: Mapping[str, Any]) -> CatalogList:
    """A task or method listing, its rows' areas by name (`queries.taxonomy.AreaListing`)."""
    return _catalog_list(model.data, answer.areas, arguments)


def _catalog_list(
    payload: Any, areas: Mapping[str, str], arguments: Mapping[str, Any]
) -> CatalogList:
    rows = payload.get("results") if isinstance(payload, Mapping) else payload
    rows = [row for row in rows or [] if isinstance(row, Mapping)]
    total = payload.get("count") if isinstance(payload, Mapping) else None
    next_page = payload.get("next_page") if isinstance(payload, Mapping) else None
    grouped = _is_grouped(rows)
    return CatalogList(
        page=None if grouped else arguments.get("page"),
        next_page=next_page if isinstance(next_page, int) else None,
        total=total if isinstance(total, int) and not isinstance(total, bool) else None,
        rows=None if grouped else rows_table(rows, areas),
        groups=_groups(rows) if grouped else None,
    )


def catalog_list_text(noun: str) -> Any:
    """The text of a `CatalogList` of `noun`s: a counted table, or a table per area."""
    headers = {"paper_count": "papers", "benchmark_count": "benchmarks"}

    def text(record: CatalogList, shown: Shown) -> str:
        page = f" (page {record.page})" if record.page else ""
        blocks: list[str | None] = []
        if record.groups is not None:
            count = sum(len(g.rows.rows) for g in record.groups if g.rows)
            blocks.append(f"{plural(count, noun)} in {plural(len(record.groups), 'area')}:")
            for group in record.groups:
                shown_rows = markdown_table(group.rows, headers) if group.rows else f"No {noun}s."
                blocks.append(f"### {clean(group.area)}\n{shown_rows}")
        elif record.rows:
            head = f"{counted(len(record.rows.rows), record.total, noun)}{page}:"
            blocks.append(head + "\n" + markdown_table(record.rows, headers))
        else:
            blocks.append(f"No {noun}s found{page}.")
        blocks.append(next_page_line(record, shown))
        return paragraphs(blocks)

    return text


class CatalogEntry(Record):
    name: str
    facts: dict[str, Cell]
    lists: dict[str, Table] | None = None


def catalog_entry(model: QueryResult, _answer: Any, _arguments: Any) -> CatalogEntry:
    """One conference, organization or framework: the catalog's document (`data`)."""
    document = model.data if isinstance(model.data, Mapping) else {}
    facts: dict[str, Cell] = {}
    lists: dict[str, Table] = {}
    for key, value in document.items():
        if key in REDUNDANT or key == "name" or _empty(value):
            continue
        if key == "id" and document.get("slug"):
            continue
        if isinstance(value, list) and value and isinstance(value[0], Mapping):
            found = rows_table([row for row in value if isinstance(row, Mapping)], {})
            if found:
                lists[key] = found
            continue
        facts[key] = _cell(value)
    name = document.get("name") or document.get("slug") or document.get("id") or ""
    return CatalogEntry(name=str(name), facts=facts, lists=lists or None)


def catalog_entry_text(record: CatalogEntry, _shown: Shown) -> str:
    handle = record.facts.get("slug")
    lines = [f"## {clean(record.name)}" + (f" ({clean(handle, 100)})" if handle else "")]
    for key, value in record.facts.items():
        if key != "slug":
            limit = DESCRIPTION_CHARS if key == "description" else 500
            lines.append(f"{key.replace('_', ' ')}: {clean(cell_text(value, key), limit)}")
    blocks: list[str | None] = ["\n".join(lines)]
    for key, found in (record.lists or {}).items():
        blocks.append(f"{key.replace('_', ' ')}:\n" + markdown_table(found))
    return paragraphs(blocks)


# -- get_task and get_method -----------------------------------------------------------------


class TaskFacts(Record):
    name: str
    slug: str
    area: str | None = None
    papers: int
    description: str | None = None
    parents: dict[str, str] | None = None
    subtasks: dict[str, str] | None = None
    benchmarks: Table | None = None


def task_facts(model: TaskResult, _answer: Any, _arguments: Any) -> TaskFacts:
    task = model.task
    rows = [
        [b.slug or b.id, b.name, b.full_name if b.full_name != b.name else None, b.paper_count]
        for b in task.benchmarks
    ]
    return TaskFacts(
        name=task.name,
        slug=task.slug,
        area=task.area.name if task.area else None,
        papers=task.paper_count,
        description=clean(task.description, DESCRIPTION_CHARS) if task.description else None,
        parents=by_name(task.parents),
        subtasks=by_name(task.children),
        benchmarks=table_of(("benchmark", "name", "full_name", "papers"), rows),
    )


def task_text(record: TaskFacts, _shown: Shown) -> str:
    facts = [f"area {clean(record.area)}" if record.area else "", plural(record.papers, "paper")]
    lines = [
        f"## {clean(record.name)} ({clean(record.slug, 100)})",
        " · ".join(f for f in facts if f),
    ]
    for label, named in (("Parents", record.parents), ("Subtasks", record.subtasks)):
        if named:
            lines.append(
                f"{label}: " + ", ".join(f"{clean(n)} ({clean(s, 100)})" for n, s in named.items())
            )
    if record.description:
        lines.append(record.description)
    blocks: list[str | None] = ["\n".join(lines)]
    if record.benchmarks:
        first = record.benchmarks.rows[0][0]
        blocks.append(
            f"Benchmarks, by trend ({len(record.benchmarks.rows)}):\n"
            + markdown_table(record.benchmarks, {"full_name": "full name"})
            + f"\nLeaderboard: get_benchmark(benchmark={literal(first)})."
        )
    return paragraphs(blocks)


class MethodFacts(Record):
    name: str
    slug: str
    full_name: str | None = None
    introduced: int | None = None
    papers: int
    source_paper: str | None = None
    source_title: str | None = None
    description: str | None = None


def method_facts(model: MethodResult, _answer: Any, _arguments: Any) -> MethodFacts:
    method = model.method
    source = method.source_url.rstrip("/").rpartition("/")[2] if method.source_url else None
    return MethodFacts(
        name=method.name,
        slug=method.slug,
        full_name=method.full_name if method.full_name != method.name else None,
        introduced=method.introduced_year,
        papers=method.paper_count,
        source_paper=source or method.source_paper_id,
        source_title=method.source_title,
        description=clean(method.description, DESCRIPTION_CHARS) if method.description else None,
    )


def method_text(record: MethodFacts, _shown: Shown) -> str:
    facts = [clean(record.full_name) if record.full_name else ""]
    facts.append(f"introduced {record.introduced}" if record.introduced else "")
    facts.append(plural(record.papers, "paper"))
    if record.source_paper or record.source_title:
        title = clean(record.source_title) if record.source_title else ""
        key = f" ({clean(record.source_paper, 100)})" if record.source_paper else ""
        facts.append(f"source paper {title}{key}".rstrip())
    lines = [
        f"## {clean(record.name)} ({clean(record.slug, 100)})",
        " · ".join(f for f in facts if f),
    ]
    if record.description:
        lines.append(record.description)
    return "\n".join(lines)
