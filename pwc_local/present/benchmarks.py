"""Benchmarks: a leaderboard page and benchmark listings, and the leaderboard table.

| tools                    | record          |
| ------------------------ | --------------- |
| get_benchmark            | `Leaderboard`   |
| list_benchmarks          | `BenchmarkList` |

A leaderboard is a `Table` whose metric columns carry the metric names once (the
most reported `METRIC_COLUMNS`, the rest in `other_metrics`); `directions` says which
way each metric improves, and the text marks its header with an arrow. `task_rank` is
the rank within the row's own task, as the catalog ranks it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pwc_local.present.hosted import BenchmarkPage, BenchmarkResult
from pwc_local.present.record import (
    Record,
    Shown,
    Table,
    counted,
    markdown_table,
    next_page_line,
    paragraphs,
    table_of,
)
from pwc_local.present.words import METRIC_COLUMNS, clean, literal, metric, trimmed

ARROWS = {"higher": " ↑", "lower": " ↓"}
DESCRIPTION_CHARS = 600
HEADERS = {
    "task_rank": "#",
    "other_metrics": "other metrics",
    "paper_title": "paper title",
    "full_name": "full name",
    "best_model": "best model",
    "best_paper": "best paper",
}


def metric_columns(rows: Sequence[Any]) -> list[str]:
    """The metrics a leaderboard gives a column of their own: the most reported ones."""
    counts = Counter(name for row in rows for name in row.metrics)
    return [name for name, _ in counts.most_common(METRIC_COLUMNS)]


def leaderboard(rows: Sequence[Any], *, with_paper: bool = True) -> Table | None:
    """Evaluation rows (hosted `Evaluation` or legacy `PaperEvaluation`) as a `Table`."""
    metrics = metric_columns(rows)
    tasks = {getattr(row, "task", None) for row in rows}
    with_task = len(tasks) > 1 or not with_paper
    columns = ["task_rank", "model", "task", "benchmark", "protocol", *metrics, "other_metrics"]
    columns += ["parameters", "open", "paper", "paper_title"]
    body = []
    for row in rows:
        rest = "; ".join(
            f"{clean(name, 80)} {metric(value)}"
            for name, value in row.metrics.items()
            if name not in metrics
        )
        paper = getattr(row, "paper_arxiv_id", None) or getattr(row, "paper_id", None)
        body.append(
            [
                row.best_rank,
                row.model_name,
                row.task if with_task else None,
                getattr(row, "benchmark", None),
                getattr(row, "evaluation_protocol", None),
                *(row.metrics.get(name) for name in metrics),
                rest or None,
                row.num_parameters,
                row.is_open,
                paper if with_paper else None,
                getattr(row, "paper_title", None) if with_paper else None,
            ]
        )
    return table_of(columns, body)


def leaderboard_markdown(found: Table, directions: Mapping[str, str] | None = None) -> str:
    arrows = {
        name: clean(name, 80) + ARROWS.get(way, "") for name, way in (directions or {}).items()
    }
    return markdown_table(found, {**HEADERS, **arrows})


# -- get_benchmark ---------------------------------------------------------------------------


class BenchmarkFacts(Record):
    name: str
    slug: str | None = None
    full_name: str | None = None
    description: str | None = None
    split: str | None = None
    hf_url: str | None = None
    papers: int | None = None


class Leaderboard(Record):
    page: int
    next_page: int | None = None
    total: int
    matched: int | None = None
    benchmark: BenchmarkFacts
    directions: dict[str, str] | None = None
    evaluations: Table | None = None
    metric_note: str | None = None


def leaderboard_page(model: BenchmarkResult, _answer: Any, _arguments: Any) -> Leaderboard:
    bench = model.benchmark
    directions = {k: str(v) for k, v in model.metric_directions.items() if v != "unknown"}
    return Leaderboard(
        page=model.page,
        next_page=model.next_page,
        total=model.evaluation_count,
        matched=model.matched_count,
        benchmark=BenchmarkFacts(
            name=bench.name,
            slug=bench.slug or bench.id,
            full_name=bench.full_name if bench.full_name != bench.name else None,
            description=clean(bench.description, DESCRIPTION_CHARS) if bench.description else None,
            split=bench.split,
            hf_url=bench.hf_url,
            papers=bench.paper_count,
        ),
        directions=directions or None,
        evaluations=leaderboard(model.evaluations),
        metric_note=model.metric_note,
    )


def leaderboard_text(record: Leaderboard, shown: Shown) -> str:
    bench = record.benchmark
    lines = [f"## {clean(bench.name)} ({clean(bench.slug, 100)})"]
    about = " ".join(
        part
        for part in (
            clean(bench.full_name) + "." if bench.full_name else "",
            trimmed(bench.description, 2, DESCRIPTION_CHARS) if bench.description else "",
            f"Split: {clean(bench.split, 80)}." if bench.split else "",
            f"Papers: {bench.papers:,}." if bench.papers else "",
            f"Dataset: {clean(bench.hf_url, 300)}" if bench.hf_url else "",
        )
        if part
    )
    if about:
        lines.append(about)
    rows = len(record.evaluations.rows) if record.evaluations else 0
    counts = counted(rows, record.total, "row")
    if record.matched is not None:
        counts += f", {record.matched:,} matched"
    lines.append(f"{counts}, page {record.page}. # is the rank within the row's own task.")
    blocks: list[str | None] = ["\n".join(lines)]
    if record.evaluations:
        blocks.append(leaderboard_markdown(record.evaluations, record.directions))
    else:
        blocks.append("No rows on this page.")
    if record.metric_note:
        blocks.append(f"Note: {clean(record.metric_note, 1000)}")
    blocks.append(next_page_line(record, shown))
    return paragraphs(blocks)


# -- list_benchmarks -------------------------------------------------------------------------

LIST_COLUMNS = (
    "area",
    "task",
    "benchmark",
    "name",
    "full_name",
    "papers",
    "evaluations",
    "best_model",
    "best_paper",
)


class BenchmarkList(Record):
    page: int | None = None
    next_page: int | None = None
    total: int | None = None
    benchmarks: Table | None = None
    notes: list[str] | None = None


def _catalog_rows(answer: Any) -> Iterator[tuple[str | None, str | None, Mapping[str, Any]]]:
    """(area, task, raw benchmark row) in the order the hosted projection lists them."""
    payload = answer.payload
    rows = payload.get("results") if isinstance(payload, Mapping) else payload
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, Mapping):
            continue
        if not answer.grouped:
            yield None, None, row
            continue
        for task in row.get("tasks") or []:
            if isinstance(task, Mapping):
                for bench in task.get("benchmarks") or []:
                    if isinstance(bench, Mapping):
                        yield row.get("name"), task.get("slug") or task.get("name"), bench


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def benchmark_list(
    model: BenchmarkPage, answer: Any, arguments: Mapping[str, Any]
) -> BenchmarkList:
    raw = list(_catalog_rows(answer))
    body = []
    for index, item in enumerate(model.items):
        area, task, row = raw[index] if index < len(raw) else (None, None, {})
        body.append(
            [
                area,
                task,
                item.slug or item.id,
                item.name,
                item.full_name if item.full_name != item.name else None,
                item.paper_count or None,
                _count(row.get("evaluation_count")),
                row.get("best_model_name"),
                row.get("best_paper_title"),
            ]
        )
    payload = answer.payload
    total = _count(payload.get("count")) if isinstance(payload, Mapping) else None
    return BenchmarkList(
        page=None if answer.grouped else arguments.get("page"),
        next_page=model.next_page,
        total=total,
        benchmarks=table_of(LIST_COLUMNS, body),
        notes=list(answer.notes) or None,
    )


def benchmark_list_text(record: BenchmarkList, shown: Shown) -> str:
    rows = len(record.benchmarks.rows) if record.benchmarks else 0
    page = f" (page {record.page})" if record.page else ""
    blocks: list[str | None] = []
    if record.benchmarks:
        blocks.append(
            f"{counted(rows, record.total, 'benchmark')}{page}:\n"
            + markdown_table(record.benchmarks, HEADERS)
        )
        first = record.benchmarks.rows[0][record.benchmarks.columns.index("benchmark")]
        blocks.append(f"Leaderboard: get_benchmark(benchmark={literal(first)}).")
    else:
        blocks.append(f"No benchmarks found{page}.")
    blocks += [f"Note: {clean(note, 500)}" for note in record.notes or []]
    blocks.append(next_page_line(record, shown))
    return paragraphs(blocks)
