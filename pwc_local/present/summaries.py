"""The hosted server's text of a result (the `summary` mode), and two notices.

The hosted tools' short templates, literally (`result_text = "summary"`), and the
notices a stale or out-of-date answer carries in that mode.
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
