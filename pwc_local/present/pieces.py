"""The pieces contract entries name for their Markdown text (`ToolSpec.text`).

Each is a function of a `render.Call` to a block of text (or `None`), built from the
helpers in `render`; a factory (`next_page("page")`) takes what differs between the
tools that share a piece. A tool's own piece reads the fields of its output model
(`present/hosted.py`); the shared ones (`next_page`, `note`) read what their models have in
common, and `data`'s `next_page` for a catalog payload. The library tools' pieces are
with their models (`library_models.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pwc_local.present.benchmarks import ARROWS, metric_columns
from pwc_local.present.generic import markdown_of
from pwc_local.present.render import Call, Piece, paper_line
from pwc_local.present.words import (
    AUTHORS_LISTED,
    call_hint,
    clean,
    entity,
    handle,
    id_of,
    literal,
    metric,
    paper_ids,
    parameters,
    plural,
    table,
    trimmed,
    yes_no,
)

# -- shared -----------------------------------------------------------------------------------


def next_page(argument: str = "page") -> Piece:
    """`Next page: tool(..., page=N)` when the result has a next page (model or `data`)."""

    def piece(call: Call) -> str | None:
        number = getattr(call.model, "next_page", None)
        data = getattr(call.model, "data", None)
        if number is None and isinstance(data, dict):
            number = data.get("next_page")
        if not isinstance(number, int) or isinstance(number, bool):
            return None
        if argument not in {param.name for param in call.tool.params}:
            return f"The catalog has more on page {number}; {call.tool.name} gives the first page."
        return f"Next page: {call_hint(call.tool, call.arguments, **{argument: number})}."

    return piece


def note(call: Call) -> str | None:
    """The model's `note` and `available_at` links (papers outside the catalog)."""
    lines = [clean(call.model.note, 1000)] if getattr(call.model, "note", None) else []
    links = getattr(call.model, "available_at", [])
    if links:
        lines.append(
            "Available at: "
            + " · ".join(f"{clean(link.label, 80)} {clean(link.url, 500)}" for link in links)
        )
    return "\n".join(lines) or None


def data(noun: str, group: str = "area") -> Piece:
    """A `QueryResult`'s catalog `data` as Markdown, after a count of its rows.

    Rows that hold rows of their own are counted as `group`s (tasks grouped by area).
    """

    def piece(call: Call) -> str:
        document = call.model.data
        rows = document.get("results") if isinstance(document, dict) else document
        if isinstance(rows, list):
            total = document.get("count") if isinstance(document, dict) else None
            grouped = any(
                isinstance(row, dict) and any(isinstance(v, list | dict) for v in row.values())
                for row in rows
            )
            head = plural(len(rows), group if grouped else noun)
            if isinstance(total, int) and total != len(rows):
                head += f" of {total:,}"
            if not rows:
                return f"No {noun}s found."
            return f"{head}:\n\n{markdown_of(rows)}"
        return markdown_of(document)

    return piece


# -- papers -----------------------------------------------------------------------------------


def papers(call: Call) -> str:
    """A `PaperPage`: a count, then one numbered line per paper."""
    items = call.model.items
    if not items:
        return "No papers found."
    page = call.arguments.get("page")
    start = (page - 1) * call.arguments["limit"] if page and "limit" in call.arguments else 0
    head = plural(len(items), "paper") + (f" (page {page})" if page else "") + ":"
    return "\n".join([head, *(paper_line(p, start + i + 1) for i, p in enumerate(items))])


def paper_info(call: Call) -> str:
    """`get_paper_info`: the paper's facts, abstract, tasks, methods, code and resources."""
    result = call.model
    paper = result.paper
    facts = [paper_ids(paper.arxiv_id, paper.id)]
    if paper.published:
        facts.append(clean(paper.published, 40))
    if paper.citation_count is not None:
        facts.append(plural(paper.citation_count, "citation"))
    if result.in_catalog:
        facts.append(plural(paper.code_repository_count, "code repository", "code repositories"))
    lines = [f"## {clean(paper.title)}", " · ".join(fact for fact in facts if fact)]
    if paper.authors:
        shown = [clean(name, 80) for name in paper.authors[:AUTHORS_LISTED]]
        more = len(paper.authors) - len(shown)
        lines.append("Authors: " + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    if paper.abstract:
        lines.append("Abstract: " + trimmed(paper.abstract))
    for label, references in (("Tasks", paper.tasks), ("Methods", paper.methods)):
        if references:
            lines.append(f"{label}: " + ", ".join(entity(ref) for ref in references))
    official = [repo.url for repo in paper.repositories if repo.is_official]
    others = [repo.url for repo in paper.repositories if not repo.is_official]
    for label, urls in (
        ("Official code", official),
        ("Other code", others),
        ("Project pages", paper.project_pages),
        ("Hugging Face models", paper.hf_models),
        ("Hugging Face datasets", paper.hf_datasets),
        ("Hugging Face spaces", paper.hf_spaces),
    ):
        if urls:
            lines.append(f"{label}: " + " · ".join(clean(url, 500) for url in urls))
    if paper.pdf_url:
        lines.append(f"PDF: {clean(paper.pdf_url, 500)}")
    blocks = ["\n".join(lines)]
    if result.evaluations:
        blocks.append(
            f"{plural(result.evaluation_count or len(result.evaluations), 'evaluation')}:\n"
            + leaderboard_table(result.evaluations, with_paper=False)
        )
    return "\n\n".join(blocks)


def lineage(call: Call) -> str:
    result = call.model

    def reference(row: Any) -> str:
        return "- " + handle(row.title, row.reference, id_of(row.id))

    lines = [f"Lineage of {reference(result.paper)[2:]}:"]
    for label, rows in (("Predecessors", result.predecessors), ("Successors", result.successors)):
        lines.append(f"{label}:" if rows else f"{label}: none recorded.")
        lines += [reference(row) for row in rows]
    lines.append("Only links the catalog records explicitly are listed.")
    return "\n".join(lines)


# -- leaderboards -------------------------------------------------------------------------------


# Row fields with a column when any row of the table has them (header, field).
OPTIONAL_COLUMNS = (
    ("Benchmark", "benchmark"),  # rows of get_paper_info's legacy evaluations
    ("Protocol", "evaluation_protocol"),  # says the shots too, when there are any
)


def leaderboard_table(
    rows: Sequence[Any], *, with_paper: bool = True, directions: dict[str, str] | None = None
) -> str:
    """Evaluation rows: rank, model, protocol, the most reported metrics, size, openness, paper.

    `directions` (metric name -> higher/lower) marks the metric columns with an arrow.
    """
    columns = metric_columns(rows)
    arrows = directions or {}
    others = any(set(row.metrics) - set(columns) for row in rows)
    with_task = len({getattr(row, "task", None) for row in rows}) > 1 or not with_paper
    optional = [
        (header, name)
        for header, name in OPTIONAL_COLUMNS
        if any(getattr(row, name, None) not in (None, "") for row in rows)
    ]
    headers = ["#", "Model", *(["Task"] if with_task else [])]
    headers += [header for header, _ in optional]
    headers += [clean(name, 80) + ARROWS.get(arrows.get(name, ""), "") for name in columns]
    headers += [*(["Other metrics"] if others else []), "Parameters", "Open"]
    headers += ["Paper"] if with_paper else []
    body = []
    for row in rows:
        cells: list[Any] = [row.best_rank, row.model_name, *([row.task] if with_task else [])]
        cells += [clean(getattr(row, name, None), 80) for _, name in optional]
        cells += [metric(row.metrics.get(name)) if name in row.metrics else "" for name in columns]
        if others:
            rest = [f"{name} {metric(v)}" for name, v in row.metrics.items() if name not in columns]
            cells.append("; ".join(rest))
        is_open = getattr(row, "is_open", None)
        cells += [parameters(row.num_parameters), "" if is_open is None else yes_no(is_open)]
        if with_paper:
            title = getattr(row, "paper_title", None)
            key = getattr(row, "paper_arxiv_id", None) or getattr(row, "paper_id", None)
            cells.append(handle(title, key) if title else clean(key))
        body.append(cells)
    return table(headers, body)


def benchmark(call: Call) -> str:
    result = call.model
    bench = result.benchmark
    lines = [f"## {handle(bench.name, bench.slug, id_of(bench.id))}"]
    about = " ".join(
        part
        for part in (
            clean(bench.full_name) + "."
            if bench.full_name and bench.full_name != bench.name
            else "",
            trimmed(bench.description, 1) if bench.description else "",
        )
        if part
    )
    if about:
        lines.append(about)
    counts = [plural(result.evaluation_count, "evaluation row")]
    if result.matched_count is not None:
        counts.append(f"{result.matched_count:,} matched")
    counts.append(f"page {result.page}")
    lines.append("; ".join(counts) + ". # is the rank within the row's own task.")
    if not result.evaluations:
        return "\n".join([*lines, "No rows on this page."])
    board = leaderboard_table(result.evaluations, directions=dict(result.metric_directions))
    return "\n".join(lines) + "\n\n" + board


def metric_note(call: Call) -> str | None:
    return f"Note: {clean(call.model.metric_note, 1000)}" if call.model.metric_note else None


def paper_evaluations(call: Call) -> str:
    result = call.model
    head = (
        f"Evaluations of {clean(result.paper, 200)}: "
        f"{plural(result.evaluation_count, 'row')}; page {result.page}."
    )
    if not result.evaluations:
        return head
    paper = result.evaluations[0]
    if paper.paper_title:
        head += f" Paper: {handle(paper.paper_title, paper.paper_arxiv_id, id_of(paper.paper_id))}."
    return head + "\n\n" + leaderboard_table(result.evaluations, with_paper=False)


# -- taxonomy ---------------------------------------------------------------------------------


def task(call: Call) -> str:
    detail = call.model.task
    lines = [f"## {handle(detail.name, detail.slug, id_of(detail.id))}"]
    facts = [plural(detail.paper_count, "paper")]
    if detail.area is not None:
        facts.insert(0, f"area {handle(detail.area.name, id_of(detail.area.id))}")
    lines.append(" · ".join(facts))
    for label, references in (("Parents", detail.parents), ("Subtasks", detail.children)):
        if references:
            lines.append(f"{label}: " + ", ".join(entity(ref) for ref in references))
    if detail.description:
        lines.append(trimmed(detail.description))
    blocks = ["\n".join(lines)]
    if detail.benchmarks:
        rows = [
            [
                handle(b.name, b.slug, id_of(b.id)),
                b.full_name if b.full_name != b.name else "",
                b.paper_count,
            ]
            for b in detail.benchmarks
        ]
        first = detail.benchmarks[0]
        blocks.append(
            f"Benchmarks, by trend ({len(detail.benchmarks)}):\n"
            + table(["Benchmark", "Full name", "Papers"], rows)
            + "\nLeaderboard: "
            + f"get_benchmark(benchmark={literal(first.slug or first.name)})"
            + "."
        )
    return "\n\n".join(blocks)


def method(call: Call) -> str:
    detail = call.model.method
    lines = [f"## {handle(detail.name, detail.slug, id_of(detail.id))}"]
    facts = []
    if detail.full_name and detail.full_name != detail.name:
        facts.append(clean(detail.full_name))
    if detail.introduced_year:
        facts.append(f"introduced {detail.introduced_year}")
    facts.append(plural(detail.paper_count, "paper"))
    if detail.source_title or detail.source_paper_id:
        facts.append(
            "source paper " + handle(detail.source_title or "", id_of(detail.source_paper_id))
        )
    lines.append(" · ".join(facts))
    if detail.description:
        lines.append(trimmed(detail.description))
    return "\n".join(lines)


def benchmarks(call: Call) -> str:
    """`list_benchmarks`: the flat page as a table, a grouped answer as its tree."""
    page = call.model
    if call.answer.grouped:
        return data("benchmark")(call) or "No benchmarks found."
    if not page.items:
        return "No benchmarks found."
    rows = [
        [
            handle(b.name, b.slug, id_of(b.id)),
            b.full_name if b.full_name != b.name else "",
            b.paper_count,
        ]
        for b in page.items
    ]
    return f"{plural(len(page.items), 'benchmark')}:\n" + table(
        ["Benchmark", "Full name", "Papers"], rows
    )


def benchmark_notes(call: Call) -> str | None:
    return "\n".join(f"Note: {clean(text, 500)}" for text in call.answer.notes) or None
