"""Paper endpoints of the fake catalog (catalog-api.md §2.1-§2.8 and §3).

* `papers/search` (§2.1): `q`, `page`, `page_size`, `mode`, date range and
  `has_official_implementation`, with the `applied_filters` echo.
* `papers/` (§2.2): the filtered listing, the raw-value echo of catalog filters,
  author references (name, numeric ID, `@hf_username`) with 404/409/422 errors.
* `papers/recent`, `papers/trending` (§2.3, §2.4): bare JSON arrays.
* `papers/{ref}`, `papers/{ref}/related`, `research/papers/{ref}/lineage`
  (§2.5-§2.7): `{ref}` is a numeric ID or an arXiv ID, `vN` ignored.
* `research/papers/{ref}/read` (§3): whole document or byte chunks.

Search semantics are unknown upstream (§7 item 4); the fake's reading, chosen to
be deterministic: `keyword` requires every query word; `semantic` and `hybrid`
accept any non-trivial word, `hybrid` ranking rows that contain all of them
first. A double-quoted part of `q` is an exact phrase that must occur in the
title, abstract or author list (inferred from the MCP's phrase-first title lookup).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import unquote

from .data_papers import CATALOG_TODAY, RELATED, Author, Paper
from .fixtures import Catalog
from .markdown import OffsetNotOnBoundary, cut_chunk, encoded
from .wire import HttpError, Query, Reply, folded, invalid, paginate

NO_PAPER = "No paper found"
NO_MARKDOWN = "Paper Markdown was not found"
MAX_PAGE = 100
MAX_AUTHORS = 10
SEARCH_MODES = ("hybrid", "keyword", "semantic")
ORDER_BY = ("trending", "date_published", "citation_count")

_WORD = re.compile(r"\w+(?:[./-]\w+)*")
_PHRASE = re.compile(r'"([^"]*)"')
_VERSION_HEX = re.compile(r"[0-9a-f]{64}")
# Words too common to decide a match on their own in the any-word modes.
_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of"}
    | {"on", "or", "the", "to", "with", "all", "you", "we", "our"}
)


def _paper_or_404(catalog: Catalog, ref: str) -> Paper:
    paper = catalog.paper(unquote(ref))
    if paper is None:
        raise HttpError(404, NO_PAPER)
    return paper


def _numeric_id(paper: Paper) -> int:
    return int(paper.id)


# -- search ---------------------------------------------------------------------------


class _Matcher:
    """Decides whether a paper matches a search text and how well, per mode."""

    def __init__(self, text: str, mode: str) -> None:
        self.exact = folded(_PHRASE.sub(lambda m: m.group(1), text))
        self.phrases = [folded(p) for p in _PHRASE.findall(text) if p.strip()]
        self.words = _WORD.findall(_PHRASE.sub(" ", text).casefold())
        self.mode = mode
        meaningful = [word for word in self.words if word not in _STOPWORDS]
        self.any_words = meaningful or self.words

    def score(self, catalog: Catalog, paper: Paper) -> int | None:
        names = " ".join(catalog.author_names(paper))
        identifiers = f"{paper.id} {paper.arxiv_id or ''} {paper.bare_arxiv_id or ''}"
        title_words = set(_WORD.findall(paper.title.casefold()))
        all_words = title_words | set(
            _WORD.findall(f"{paper.abstract} {names} {identifiers}".casefold())
        )
        haystack = folded(f"{paper.title} {paper.abstract} {names}")
        if any(phrase not in haystack for phrase in self.phrases):
            return None
        if not self.words:
            matched: list[str] = []
        elif self.mode == "keyword":
            if any(word not in all_words for word in self.words):
                return None
            matched = self.words
        else:
            matched = [word for word in self.any_words if word in all_words]
            if not matched:
                return None
        score = sum(3 if word in title_words else 1 for word in matched)
        if self.mode == "hybrid" and all(word in all_words for word in self.words):
            score += 20
        if self.exact and folded(paper.title) == self.exact:
            score += 100
        return score


def search(catalog: Catalog, query: Query) -> dict[str, Any]:
    text = query.get("q")
    if text is None:
        raise invalid("q is required")
    page = query.page(max_page=MAX_PAGE)
    page_size = query.page_size(10, 100)
    mode = query.choice("mode", SEARCH_MODES, "hybrid")
    assert mode is not None
    start, end = query.day("start_date"), query.day("end_date")
    official = query.boolean("has_official_implementation", False)
    applied: dict[str, Any] = {}
    if official:
        applied["has_official_implementation"] = "true"
    if start:
        applied["start_date"] = start.isoformat()
    if end:
        applied["end_date"] = end.isoformat()

    scored: list[tuple[int, Paper]] = []
    if text.strip():
        matcher = _Matcher(text, mode)
        for paper in catalog.papers:
            if official and not paper.has_official_implementation:
                continue
            if start and paper.published < start.isoformat():
                continue
            if end and paper.published > end.isoformat():
                continue
            score = matcher.score(catalog, paper)
            if score is not None:
                scored.append((score, paper))
    scored.sort(key=lambda item: (-item[0], -item[1].citation_count, int(item[1].id)))
    rows = [catalog.paper_row(paper) for _, paper in scored]
    envelope = paginate(rows, page, page_size)
    envelope["applied_filters"] = applied
    return envelope


# -- listing with catalog filters -----------------------------------------------------------


def _matches_any(value: str, *candidates: str | None) -> bool:
    wanted = folded(value)
    return any(candidate is not None and folded(candidate) == wanted for candidate in candidates)


def _conference_series(name: str) -> str:
    """`NeurIPS 2025` -> `NeurIPS`: a bare series name matches every year (§2.2)."""
    return re.sub(r"\s*\d{4}$", "", name)


def resolve_author(catalog: Catalog, reference: str) -> Author:
    """One author for a `papers/?author=` value, or the API's error (§2.2, §6.3).

    Numeric references match the ID by value (`000264` is 264); `@handle` matches the
    Hugging Face username case-insensitively; anything else is an exact normalised
    name, and a name shared by several people is a 409 `ambiguous_author`.
    """
    text = reference.strip()
    if not text:
        raise invalid("author references must not be empty")
    people = {author.id: author for author in catalog.authors.values()}
    if text.isdigit():
        author = people.get(str(int(text)))
        if author is None:
            raise HttpError(404, f"Author not found: {text}")
        return author
    if text.startswith("@"):
        handle = text[1:].strip()
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", handle):
            raise invalid(f"Malformed author reference: {text}")
        for author in people.values():
            if author.hf_username and author.hf_username.casefold() == handle.casefold():
                return author
        raise HttpError(404, f"Author not found: {text}")
    matches = [author for author in people.values() if folded(author.name) == folded(text)]
    if not matches:
        raise HttpError(404, f"Author not found: {text}")
    if len(matches) > 1:
        raise HttpError(
            409,
            {
                "code": "ambiguous_author",
                "reference": text,
                "candidates": [author.echo() for author in sorted(matches, key=_author_id)],
            },
        )
    return matches[0]


def _author_id(author: Author) -> int:
    return int(author.id)


def with_resources(catalog: Catalog, paper: Paper, row: dict[str, Any]) -> dict[str, Any]:
    detail = catalog.paper_detail(paper, include_resources=True)
    for key in ("repositories", "project_pages", "hf_models", "hf_datasets", "hf_spaces"):
        row[key] = detail[key]
    return row


def order_papers(papers: list[Paper], order_by: str, descending: bool) -> list[Paper]:
    def key(paper: Paper) -> tuple[Any, int]:
        if order_by == "date_published":
            primary: Any = paper.published
        elif order_by == "citation_count":
            primary = paper.citation_count
        else:
            primary = paper.velocity
        # Ties always in ascending ID order, whatever the direction.
        return (primary, -int(paper.id) if descending else int(paper.id))

    return sorted(papers, key=key, reverse=descending)


def list_papers(catalog: Catalog, query: Query) -> dict[str, Any]:
    page = query.page(max_page=MAX_PAGE)
    page_size = query.page_size(20, 100)
    start, end = query.day("start_date"), query.day("end_date")
    order_by = query.choice("order_by", ORDER_BY, "trending")
    order_dir = query.choice("order_dir", ("asc", "desc"), "desc")
    query.boolean("latest_only", True)  # every fixture paper is its latest version
    include_resources = query.boolean("include_resources", False)
    official = query.boolean("has_official_implementation", False)
    author_refs = query.all("author")
    if len(author_refs) > MAX_AUTHORS:
        raise invalid(f"at most {MAX_AUTHORS} author filters are allowed")
    authors = [resolve_author(catalog, reference) for reference in author_refs]

    applied: dict[str, Any] = {}
    papers = list(catalog.papers)
    search_text = query.text("search")
    if search_text:
        applied["search"] = query.get("search")
        matcher = _Matcher(search_text, "keyword")
        papers = [p for p in papers if matcher.score(catalog, p) is not None]
    if start:
        applied["start_date"] = start.isoformat()
        papers = [p for p in papers if p.published >= start.isoformat()]
    if end:
        applied["end_date"] = end.isoformat()
        papers = [p for p in papers if p.published <= end.isoformat()]
    if official:
        applied["has_official_implementation"] = "true"
        papers = [p for p in papers if p.has_official_implementation]

    filters = {
        "task": lambda value: {
            t.id for t in catalog.tasks.values() if _matches_any(value, t.name, t.slug, t.id)
        },
        "method": lambda value: {
            m.id
            for m in catalog.methods.values()
            if _matches_any(value, m.name, m.full_name, m.slug, m.id)
        },
        "conference": lambda value: {
            c.slug
            for c in catalog.conferences.values()
            if _matches_any(value, c.name, c.slug, c.id, _conference_series(c.name))
        },
        "framework": lambda value: {
            fid
            for fid, (fw, *_) in catalog.frameworks.items()
            if _matches_any(value, fw.name, fw.slug, fw.id)
        },
        "organization": lambda value: {
            o.id
            for o in catalog.organizations.values()
            if _matches_any(value, o.name, o.slug, o.id)
        },
    }
    links = {
        "task": lambda p: set(p.tasks),
        "method": lambda p: set(p.methods),
        "conference": lambda p: {p.conference} if p.conference else set(),
        "framework": lambda p: set(p.frameworks),
        "organization": lambda p: set(p.organizations),
    }
    for name, resolve in filters.items():
        raw = query.get(name)
        if raw is None or not raw.strip():
            continue
        # Echo the raw requested text, not a canonical name: the CLI compares it (§2.2).
        applied[name] = raw
        wanted = resolve(raw)
        papers = [p for p in papers if links[name](p) & wanted]

    if authors:
        unique = {author.id: author for author in authors}
        applied["authors"] = [author.echo() for author in unique.values()]
        for author in unique.values():
            papers = [p for p in papers if author.id in catalog.paper_author_ids(p)]

    assert order_by is not None
    ordered = order_papers(papers, order_by, order_dir == "desc")
    envelope = paginate(ordered, page, page_size)
    rows = []
    for paper in envelope["results"]:
        row = catalog.paper_row(paper)
        rows.append(with_resources(catalog, paper, row) if include_resources else row)
    envelope["results"] = rows
    envelope["applied_filters"] = applied
    return envelope


def recent(catalog: Catalog, query: Query) -> list[dict[str, Any]]:
    limit = query.page_size(10, 100, name="limit")
    papers = sorted(catalog.papers, key=lambda p: (p.added_date, int(p.id)), reverse=True)
    return [catalog.paper_row(paper) for paper in papers[:limit]]


def trending(catalog: Catalog, query: Query) -> list[dict[str, Any]]:
    """Papers published within `max_age_days` of the catalog's fixed today, by velocity."""
    limit = query.page_size(20, 100, name="limit")
    max_age = query.integer("max_age_days", 180, low=1, high=365)
    assert max_age is not None
    min_velocity = query.number("min_velocity")
    oldest = (CATALOG_TODAY - timedelta(days=max_age)).isoformat()
    papers = [
        paper
        for paper in catalog.papers
        if paper.published >= oldest
        and paper.velocity > 0
        and (min_velocity is None or paper.velocity >= min_velocity)
    ]
    papers.sort(key=lambda p: (-p.velocity, int(p.id)))
    return [catalog.paper_row(paper) for paper in papers[:limit]]


# -- one paper ---------------------------------------------------------------------------------


def detail(catalog: Catalog, query: Query, ref: str) -> dict[str, Any]:
    include_resources = query.boolean("include_resources", False)
    paper = _paper_or_404(catalog, ref)
    return catalog.paper_detail(paper, include_resources=bool(include_resources))


def related(catalog: Catalog, query: Query, ref: str) -> dict[str, Any]:
    """Hand-picked related papers first, then papers sharing the most tasks."""
    limit = query.page_size(4, 20, name="limit")
    paper = _paper_or_404(catalog, ref)
    chosen = [catalog.paper_by_id(pid) for pid in RELATED.get(paper.id, ())]
    picked = [p for p in chosen if p is not None]
    others = [
        (len(set(other.tasks) & set(paper.tasks)), other)
        for other in catalog.papers
        if other.id != paper.id and other not in picked and set(other.tasks) & set(paper.tasks)
    ]
    others.sort(key=lambda item: (-item[0], -item[1].citation_count, int(item[1].id)))
    results = [*picked, *(other for _, other in others)][:limit]
    return {"count": len(results), "results": [catalog.paper_row(p) for p in results]}


def lineage(catalog: Catalog, query: Query, ref: str) -> dict[str, Any]:
    paper = _paper_or_404(catalog, ref)

    def node(item: Paper) -> dict[str, Any]:
        # The lineage fixture uses integer IDs, unlike every other endpoint (§1.8).
        return {"id": _numeric_id(item), "reference": item.route_identifier, "title": item.title}

    return {
        "paper": node(paper),
        "predecessors": [node(p) for p in catalog.lineage(paper, predecessors=True)],
        "successors": [node(p) for p in catalog.lineage(paper, predecessors=False)],
    }


def read(catalog: Catalog, query: Query, ref: str) -> Reply:
    """Stored Markdown, whole or in byte chunks, pinned by content version (§3.2-§3.5)."""
    offset = query.integer("offset", None, low=0)
    limit = query.integer("limit", None, low=1)
    requested_version = query.get("content_version")
    if requested_version is not None and not _VERSION_HEX.fullmatch(requested_version):
        raise invalid("content_version must be 64 lowercase hexadecimal characters")
    paper, text = catalog.markdown_for_read_key(unquote(ref))
    if paper is None:
        raise HttpError(404, NO_PAPER)
    if text is None:
        raise HttpError(404, NO_MARKDOWN)
    document, version = encoded(text)
    if requested_version is not None and requested_version != version:
        # The 409 body is unspecified upstream (§7 item 3); this wording is the fake's.
        raise HttpError(409, "Paper Markdown changed; restart reading from offset 0")
    try:
        chunk = cut_chunk(document, offset or 0, limit)
    except OffsetNotOnBoundary as exc:
        raise invalid(str(exc)) from None
    headers = {
        "Content-Type": "text/markdown; charset=utf-8",
        "x-pwc-content-version": version,
        "x-pwc-truncated": "0" if chunk.next_offset is None else "1",
    }
    if chunk.next_offset is not None:
        headers["x-pwc-next-offset"] = str(chunk.next_offset)
    return Reply(200, body=chunk.body, headers=headers)
