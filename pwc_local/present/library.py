"""Output models, projections and text of the library tools (save, list, search).

Kept apart from `present/hosted.py` (the hosted tools' contract) so the local additions
are visibly local. Their text (every mode but `json`) is the Markdown of the pieces
at the end. Every schema here ends up in `tools/list`, which the three
tools may grow by at most 6,000 bytes, so fields carry descriptions only where
the name does not say enough.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import Field

from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.present.words import clean, count_of, handle, plural

# A search hit's quote in the text: a sentence or so; structuredContent has the whole quote.
QUOTE_CHARS = 160


class SavedRow(_Strict):
    reference: str
    status: Literal["saved", "already saved", "failed"]
    paper: str | None = None
    title: str | None = None
    in_catalog: bool = True
    markdown_bytes: int = 0
    error: str | None = Field(default=None, description="code: sentence, when failed")


class SavePapersResult(ToolOutput):
    saved: int
    already_saved: int
    failed: int
    results: list[SavedRow]


class LibraryRow(_Strict):
    paper: str
    title: str
    in_catalog: bool
    markdown_bytes: int | None = None
    saved_at: str


class LibraryPage(ToolOutput):
    page: int
    pages: int
    next_page: int | None = None
    count: int
    results: list[LibraryRow]


class PassageHit(_Strict):
    paper: str
    title: str
    saved: bool = Field(description="false: only read before, kept while cached")
    section: str = Field(description="heading path, outermost first")
    quote: str = Field(description="<= 300 chars, matches in **bold**")
    cursor: str | None = Field(
        default=None, description="read_paper cursor starting at this passage; null: from the start"
    )


class LibrarySearchResult(ToolOutput):
    query: str
    count: int
    results: list[PassageHit]


# -- projections ---------------------------------------------------------------------


def saved_result(
    outcomes: list[Any], error_text: Callable[[BaseException], str]
) -> SavePapersResult:
    """From `saving` outcomes; `error_text` spells a failed paper's error (`code: sentence`)."""
    rows = [
        SavedRow(
            reference=o.reference,
            status=o.status,
            paper=o.paper,
            title=o.title or None,
            in_catalog=o.in_catalog,
            markdown_bytes=o.size,
            error=None if o.error is None else error_text(o.error),
        )
        for o in outcomes
    ]
    return SavePapersResult(
        saved=sum(r.status == "saved" for r in rows),
        already_saved=sum(r.status == "already saved" for r in rows),
        failed=sum(r.status == "failed" for r in rows),
        results=rows,
    )


def library_page(answer: Any, _arguments: Any = None) -> LibraryPage:
    return LibraryPage(
        count=answer.count,
        page=answer.page,
        pages=answer.pages,
        next_page=answer.next_page,
        results=[
            LibraryRow(
                paper=e.paper,
                title=e.title,
                in_catalog=e.in_catalog,
                markdown_bytes=e.size if e.has_markdown else None,
                saved_at=datetime.fromtimestamp(e.saved_at, tz=timezone.utc).isoformat(
                    timespec="seconds"
                ),
            )
            for e in answer.entries
        ],
    )


def search_result(answer: Any, _arguments: Any = None) -> LibrarySearchResult:
    return LibrarySearchResult(
        query=answer.query,
        count=len(answer.hits),
        # A hit's fields of the same names (its byte offset stays behind, in the cursor).
        results=[PassageHit.model_validate(hit, from_attributes=True) for hit in answer.hits],
    )


# -- text, from the models alone ---------------------------------------


def saved_text(result: SavePapersResult) -> str:
    lines = [f"Saved {result.saved}, already saved {result.already_saved}, failed {result.failed}."]
    for row in result.results:
        if row.status == "failed":
            lines.append(f"- {literal_reference(row.reference)}: {clean(row.error, 600)}")
        else:
            size = (
                f", {count_of(row.markdown_bytes)} bytes of Markdown" if row.markdown_bytes else ""
            )
            lines.append(f"- {handle(row.title or row.paper, row.paper)}: {row.status}{size}")
    if result.saved or result.already_saved:
        lines.append("Saved papers answer read_paper, get_paper_info and search_library offline.")
    return "\n".join(lines)


def literal_reference(reference: str) -> str:
    """A caller's reference quoted, cleaned and bounded: it never reads as a line of ours."""
    return f'"{clean(reference, 120)}"'


def library_text(page: LibraryPage) -> str:
    if not page.count:
        return "The library is empty; save papers with save_papers."
    if not page.results:  # past the end: say where the pages end
        return (
            f"{plural(page.count, 'saved paper')}, {plural(page.pages, 'page')} at this limit: "
            f"page {page.page} is past the end."
        )
    head = f"{plural(page.count, 'saved paper')} (page {page.page}):"
    rows = [
        f"- {handle(row.title, row.paper)} · saved {clean(row.saved_at, 40)}"
        + ("" if row.in_catalog else " · outside the catalog")
        for row in page.results
    ]
    return "\n".join([head, *rows])


def search_text(result: LibrarySearchResult) -> str:
    """`search_library`: hits grouped by paper, each with its section, quote and cursor."""
    if not result.count:
        return (
            "No passage of a saved or previously read paper matches; save papers with "
            "save_papers, or use search_papers to search the catalog."
        )
    lines = [f"{plural(result.count, 'passage')} for {literal_reference(result.query)}:"]
    current = None
    for hit in result.results:
        if hit.paper != current:
            current = hit.paper
            kind = "saved" if hit.saved else "read before"
            lines.append(f"### {handle(hit.title, hit.paper)}, {kind}")
        section = clean(hit.section, 300)
        title = clean(hit.title)
        if section.startswith(title + " > "):
            section = section[len(title) + 3 :]
        # A quote that starts at its section's heading need not say the heading again.
        heading = re.escape(section.rsplit(" > ", 1)[-1])
        quote = re.sub(rf"^#{{1,6}} {heading} ", "", clean(hit.quote, QUOTE_CHARS))
        cursor = f" · cursor {clean(hit.cursor, 2000)}" if hit.cursor else " · from the start"
        lines.append(f"- {section or '(before the first heading)'}: {quote}{cursor}")
    lines.append('Read on at a passage: read_paper(paper="<its paper>", cursor="<its cursor>").')
    return "\n".join(lines)
