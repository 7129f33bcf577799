"""Words the model reads: server identity and instructions, result summaries.

Everything here is sent to a language model, either once per session
(`instructions`) or with every result, so it is short on purpose. The summary
templates follow the hosted server's literally (its per-tool text templates): they
are the text block in the `result_text = "summary"` mode, for clients that expect
exactly the hosted server's text; the default Markdown is `render.py`'s. Tool
and parameter descriptions live with their tool in `contract.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pwc_local.safe_text import one_line

if TYPE_CHECKING:  # the server's identity is read before `initialize`; the models are not
    from pwc_local.present.hosted import (
        BenchmarkPage,
        BenchmarkResult,
        EvaluationPage,
        MethodResult,
        PaperInfoResult,
        PaperPage,
        PaperReadResult,
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
- structuredContent is complete; the text block may trim long text.
- "Official implementation" is the catalog's own designation, not verified; an evaluation's \
is_open may be null when nobody recorded it."""

# The default (compact) profile: each half of a result is whole, and clients pass on one.
COMPACT_INSTRUCTIONS = INSTRUCTIONS.replace(
    "- structuredContent is complete; the text block may trim long text.",
    "- A result's text and its structuredContent carry the same facts; either alone is "
    "complete. Lists come as tables (columns, then rows).",
)

# -- summaries (the hosted server's templates, literally; the `summary` mode) ------------


def _line(text: str) -> str:
    # Catalog text in a template: one printable line (issue 22), else as the hosted server.
    return one_line(text, 1000, cut="…")


def _next(next_page: int | None) -> str:
    return f" Next page: {next_page}." if next_page is not None else ""


def found_papers(page: PaperPage) -> str:
    return f"Found {len(page.items)} papers.{_next(page.next_page)}"


def paper_info(result: PaperInfoResult) -> str:
    paper = result.paper
    if not result.in_catalog:
        return f"## {_line(paper.title)}\n\n{_line(result.note or '')}"
    return (
        f"## {_line(paper.title)}\n\n{paper.code_repository_count} code repositories; "
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
        f"## {_line(detail.name)}\n\n{detail.paper_count} papers; returned "
        f"{len(detail.benchmarks)} benchmarks."
    )


def method(result: MethodResult) -> str:
    return f"## {_line(result.method.name)}\n\n{result.method.paper_count} papers."


def benchmark(result: BenchmarkResult) -> str:
    note = f" Note: {_line(result.metric_note).rstrip('.')}." if result.metric_note else ""
    return (
        f"## {_line(result.benchmark.name)}\n\n{result.evaluation_count} evaluation rows; returned "
        f"{len(result.evaluations)} models on page {result.page}. Ranks are task-scoped."
        f"{_next(result.next_page)}{note}"
    )


def benchmark_list(page: BenchmarkPage, notes: list[str]) -> str:
    return f"Found {len(page.items)} benchmarks.{_next(page.next_page)}" + "".join(
        f" Note: {_line(note).rstrip('.')}." for note in notes
    )


def paper_markdown(result: PaperReadResult) -> str:
    """The chunk's Markdown, once, and when more follows how to ask for it.

    `structuredContent` already holds the chunk, so the text block carries it only
    this once (not a second JSON copy): a client that shows text reads the paper.
    """
    if not result.truncated or result.next_cursor is None:
        return result.markdown
    return (
        f"{result.markdown}\n\n[Truncated: call read_paper again with the same paper and "
        f"cursor {result.next_cursor} to read on.]"
    )


def behind_notice(saved_at: str, newer_seen: str) -> str:
    """The first line of an answer from a saved copy the catalog has a newer version of."""
    return (
        f"From the library's copy saved at {saved_at}; the catalog showed a newer version "
        f"at {newer_seen}. save_papers with this paper refreshes the copy."
    )


def stale_notice(cached_at: str) -> str:
    return (
        f"This answer comes from the local cache saved at {cached_at}, because the Papers With "
        "Code catalog could not be reached."
    )
