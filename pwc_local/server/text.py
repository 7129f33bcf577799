"""Words the model reads: server instructions, tool descriptions, result summaries.

Everything here is sent to a language model, either once per session
(`instructions`, `tools/list`) or with every result (summaries), so it is short
on purpose. The summary templates are part of the contract (tools.md §2) and are
reproduced literally; descriptions paraphrase the contract's meaning.
"""

from __future__ import annotations

from pwc_local.server.models import (
    BenchmarkPage,
    BenchmarkResult,
    EvaluationPage,
    MethodResult,
    PaperInfoResult,
    PaperPage,
    TaskResult,
)

SERVER_NAME = "pwc-local"
SERVER_TITLE = "Papers With Code (local)"
WEBSITE_URL = "https://paperswithcode.co"
SERVER_DESCRIPTION = (
    "Read-only access to the Papers With Code research catalog (papers, tasks, methods, "
    "conferences, organizations, frameworks, benchmarks), served locally over stdio with a "
    "disk cache."
)

INSTRUCTIONS = """\
- search_papers ranks by relevance; list_* tools filter deterministically. Exact lookups \
(get_*) take the slugs or IDs that list tools return. Dates are YYYY-MM-DD.
- For "best / state-of-the-art model" questions call get_task, then get_benchmark on one of \
its benchmarks; ranks only hold within their own task scope.
- read_paper returns Markdown in chunks: pass back next_cursor (with the same paper) until it \
is null.
- Data is in structuredContent; the text block is a short summary.
- "Official implementation" is the catalog's own designation, not verified; an evaluation's \
is_open may be null when nobody recorded it."""

_PAPER = "paper = arXiv ID, catalog ID, arXiv/Hugging Face/Papers With Code URL, or exact title."

DESCRIPTIONS: dict[str, str] = {
    "search_papers": (
        "Search papers by title, topic, author or arXiv ID, for broad discovery. For best / "
        "state-of-the-art questions start with get_task, list_benchmarks and get_benchmark "
        "instead. mode keyword suits exact terminology and avoids the semantic-search rate limit."
    ),
    "get_paper_info": (
        "Compact metadata of one paper; its code list starts with official repositories. "
        "include_resources adds other repositories, project pages and Hugging Face artifacts; "
        "repo_limit caps each list; include_evaluations is legacy. Papers outside the catalog "
        "are answered from public metadata (in_catalog=false, note, available_at links to cite "
        "instead of a Papers With Code page). " + _PAPER
    ),
    "get_paper_evaluations": (
        "One page of a paper's benchmark results with protocol, source, openness and "
        "task-scoped ranks. " + _PAPER
    ),
    "read_paper": (
        "Stored Markdown of a paper, in chunks: while truncated, call again with the same paper "
        "and the last next_cursor; omit cursor to start over. Papers outside the catalog get a "
        "short public-metadata page (in_catalog=false). " + _PAPER
    ),
    "list_papers": (
        "List papers filtered by exact catalog associations (task, method, conference, "
        "framework, organization, authors, dates) in a deterministic order."
    ),
    "list_recent_papers": "Papers most recently added to the catalog.",
    "list_trending_papers": "Trending papers, ranked by repository velocity.",
    "get_related_papers": (
        "Catalog papers related to one paper. For a paper outside the catalog: catalog search "
        "hits for its public title, with a note and available_at links. " + _PAPER
    ),
    "get_paper_lineage": (
        "Predecessor and successor papers the catalog links explicitly to one paper. " + _PAPER
    ),
    "get_task": (
        "One task by exact name, slug or ID: hierarchy and its benchmarks ranked by trend. "
        "Start here for best / state-of-the-art questions, then call get_benchmark."
    ),
    "list_tasks": (
        "List or filter research tasks, or (group_by_area) the visible top-level taxonomy "
        "grouped by area."
    ),
    "get_method": "One method by name, full name, slug, ID or common alias.",
    "list_methods": "List or filter methods.",
    "get_conference": "One conference by exact name, slug or ID.",
    "list_conferences": "Conferences with imported papers, optionally for one year.",
    "get_organization": "One organization by exact name, slug or ID.",
    "list_organizations": "List organizations; featured_only keeps curated featured ones.",
    "get_framework": "One framework by exact name, slug or ID.",
    "list_frameworks": "List frameworks, filtered by domain, category or platform.",
    "get_benchmark": (
        "One benchmark by exact name with its leaderboard. max_parameters (e.g. 4B) drops "
        "larger models; sort_metric orders rows; require_metrics, minimum_metrics, "
        "maximum_metrics and pareto select rows; matched_count counts selected rows before "
        "limit. Metric names match case-insensitively, via aliases (AP/mAP, top1/Accuracy, "
        "AUROC/AUC, Pass@1/Pass Rate) or a unique containing name; an unknown metric returns "
        "the unfiltered leaderboard with metric_note listing the real metrics."
    ),
    "list_benchmarks": (
        "Benchmarks: a task's benchmarks in trend order (task), a filtered listing, or grouped "
        "by area and task (group_by_area, area). Trend order needs task; area is ignored with "
        "other filters. Then open the most relevant leaderboard with get_benchmark."
    ),
}

PARAMETER_HINTS = {
    "reference": "arXiv ID, catalog ID, paper URL or exact title",
    "entity": "exact name, slug or ID",
    "date": "YYYY-MM-DD, inclusive",
    "authors": "exact author names, numeric author IDs or @HF_USERNAME; all must match",
    "cursor": "next_cursor of the previous read_paper result",
    "max_parameters": "inclusive model size cap such as 500M, 1.5B or 3000000000",
    "sort_metric": "METRIC, METRIC:asc or METRIC:desc (default desc)",
    "pareto": "two or more METRIC:higher / METRIC:lower objectives",
    "metric_bounds": "metric name -> inclusive threshold",
}


# -- summaries (tools.md §2; literal templates) ------------------------------------------


def _next(next_page: int | None) -> str:
    return f" Next page: {next_page}." if next_page is not None else ""


def found_papers(page: PaperPage) -> str:
    return f"Found {len(page.items)} papers.{_next(page.next_page)}"


def paper_info(result: PaperInfoResult) -> str:
    paper = result.paper
    if not result.in_catalog:
        return f"## {paper.title}\n\n{result.note or ''}"
    return (
        f"## {paper.title}\n\n{paper.code_repository_count} code repositories; "
        f"returned {len(paper.repositories)}."
    )


def paper_evaluations(result: EvaluationPage) -> str:
    return (
        f"Found {result.evaluation_count} evaluation rows; returned {len(result.evaluations)} "
        f"on page {result.page}.{_next(result.next_page)}"
    )


def task(result: TaskResult) -> str:
    detail = result.task
    return (
        f"## {detail.name}\n\n{detail.paper_count} papers; returned "
        f"{len(detail.benchmarks)} benchmarks."
    )


def method(result: MethodResult) -> str:
    return f"## {result.method.name}\n\n{result.method.paper_count} papers."


def benchmark(result: BenchmarkResult) -> str:
    note = f" Note: {result.metric_note.rstrip('.')}." if result.metric_note else ""
    return (
        f"## {result.benchmark.name}\n\n{result.evaluation_count} evaluation rows; returned "
        f"{len(result.evaluations)} models on page {result.page}. Ranks are task-scoped."
        f"{_next(result.next_page)}{note}"
    )


def benchmark_list(page: BenchmarkPage, notes: list[str]) -> str:
    return f"Found {len(page.items)} benchmarks.{_next(page.next_page)}" + "".join(
        f" Note: {note.rstrip('.')}." for note in notes
    )


def stale_notice(cached_at: str) -> str:
    return (
        f"This answer comes from the local cache saved at {cached_at}, because the Papers With "
        "Code catalog could not be reached."
    )
