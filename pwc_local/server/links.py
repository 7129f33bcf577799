"""`resource_link` content items: open a paper's resources without another tool call.

A tool whose contract entry declares `links` (a function from its output model to
the papers it names: `page_links`, `info_links`, `row_links`) gets, after its text
block, one `resource_link` per paper to `pwc://papers/{paper}` (the metadata, always
resolvable for a catalog paper) and a second one to `pwc://papers/{paper}/markdown`
when that resource would resolve right now: the paper's Markdown is known locally
and fits in one response (`markdown_readable`). A client can show the links, or read them with
`resources/read`, which answers through the same tools (and offline from the
cache).

`{paper}` is the arXiv ID when the paper has one (the key the Markdown is stored
under, resolved without a request), else the catalog ID, percent-encoded as one
URI segment (legacy IDs contain `/`). Papers outside the catalog get no links:
their resources would only repeat the public-metadata answer.

Size: at most `MAX_LINKED_PAPERS` papers (two links each, a few hundred bytes per
link), so links add at most a few tens of KiB, well inside the 2 MiB answer bound.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from mcp_types import ResourceLink

from pwc_local.contract import CHUNK_BYTES
from pwc_local.safe_text import one_line

if TYPE_CHECKING:
    from pwc_local.upstream.source import CatalogSource

MAX_LINKED_PAPERS = 25
MAX_TITLE_CHARS = 200
JSON = "application/json"
MARKDOWN = "text/markdown"


@dataclass(frozen=True)
class PaperLink:
    """A paper a tool result names: its URI key and a title to show."""

    key: str
    title: str


def paper_key(arxiv_id: object, paper_id: object) -> str | None:
    """The `{paper}` of a paper's URIs: its arXiv ID, else its catalog ID."""
    for value in (arxiv_id, paper_id):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def page_links(model: Any) -> list[PaperLink]:
    """The papers of a `PaperPage` (search and listing results), in order."""
    links = []
    for item in getattr(model, "items", []):
        key = paper_key(item.arxiv_id, item.id)
        if key is not None:
            links.append(PaperLink(key, item.title))
    return links


def info_links(model: Any) -> list[PaperLink]:
    """The paper of a `PaperInfoResult`, when it is a catalog paper."""
    if not getattr(model, "in_catalog", False):
        return []
    paper = model.paper
    key = paper_key(getattr(paper, "arxiv_id", None), getattr(paper, "id", None))
    return [PaperLink(key, paper.title)] if key is not None else []


def row_links(model: Any) -> list[PaperLink]:
    """The papers of a library answer's `results` rows (saved, listed or found).

    Rows of `save_papers` that failed name no paper and are skipped; so are rows of
    papers outside the catalog where the row says so.
    """
    links = []
    for row in getattr(model, "results", []):
        paper = getattr(row, "paper", None)
        if not isinstance(paper, str) or not paper or getattr(row, "status", "") == "failed":
            continue
        if getattr(row, "in_catalog", True) is False:
            continue
        title = getattr(row, "title", None)
        links.append(PaperLink(paper, title if isinstance(title, str) and title else paper))
    return links


async def resource_links(
    papers: Iterable[PaperLink], markdown_readable: Callable[[str], Awaitable[bool]]
) -> list[ResourceLink]:
    """The `resource_link` items for `papers` (see the module docstring)."""
    links: list[ResourceLink] = []
    seen: set[str] = set()
    for paper in papers:
        if paper.key in seen or len(seen) >= MAX_LINKED_PAPERS:
            continue
        seen.add(paper.key)
        segment = quote(paper.key, safe="")
        # Catalog text a client shows: through the one sanitiser (no escapes, one line).
        shown = one_line(paper.key, MAX_TITLE_CHARS)
        title = one_line(paper.title, MAX_TITLE_CHARS) or shown
        links.append(
            ResourceLink(
                uri=f"pwc://papers/{segment}",
                name=f"paper-info {shown}",
                title=title,
                description="The paper's catalog metadata.",
                mime_type=JSON,
            )
        )
        if await markdown_readable(paper.key):
            links.append(
                ResourceLink(
                    uri=f"pwc://papers/{segment}/markdown",
                    name=f"paper-markdown {shown}",
                    title=f"{title} (Markdown)",
                    description="The paper's full stored Markdown.",
                    mime_type=MARKDOWN,
                )
            )
    return links


async def markdown_readable(catalog: CatalogSource, paper: str, first_chunk: int) -> bool:
    """Whether `pwc://papers/{paper}/markdown` resolves from what is stored locally.

    The catalog source says (`CatalogSource.whole_markdown_cached`: the library for
    saved papers, else the cache), for a first chunk of the profile's size
    (`first_chunk`, what read_paper reads) or of the catalog's 64 KiB. Any failure
    means "not known", so no Markdown link is offered.
    """
    try:
        for limit in dict.fromkeys((first_chunk, CHUNK_BYTES)):
            if await catalog.whole_markdown_cached(paper, limit=limit):
                return True
    except Exception:  # a link is an extra; never fail the answer for it
        pass
    return False
