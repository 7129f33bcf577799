"""Public metadata for papers the catalog does not hold, and the fallback built on it.

When `get_paper_info`, `read_paper` or `get_related_papers` cannot find a paper in
the catalog, the answer need not be a dead end: the catalog API also serves public
records (Hugging Face Papers, arXiv, Crossref) for papers it has not indexed. This
module asks for such a record and turns the outcome into one of three things:

* the paper *is* in the catalog after all (the record says `in_catalog: true`): the
  command is retried with the IDs the record names, and a success is an ordinary
  catalog answer;
* the paper is outside the catalog: an answer built from the public record, with a
  note saying it is "not indexed on Papers With Code" and links to where it can be read;
* no public record either: the original not-found error, extended with why the public
  lookup did not help.

The request and response shapes of `public-metadata` and `public-metadata/search`
are NOT known (no published documentation; the fields used here are our best
reading). Every assumption about them lives in this module, in `_lookup_request`,
`_miss_reason` and `_parse_record`, so a correction touches nothing else.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pwc_local.common.references import (
    ARXIV,
    DOI_HOSTS,
    DOI_TEXT,
    LEGACY,
    arxiv_without_version,
    classify_identifier,
    normalize_title,
    shown,
)
from pwc_local.queries.papers import get_paper_info, get_related_papers, hybrid_search
from pwc_local.safe_text import one_line
from pwc_local.upstream.envelopes import require_object
from pwc_local.upstream.errors import (
    CatalogError,
    HTTPRejected,
    NotFound,
    PaperMissing,
    RecordMissing,
    UpstreamError,
    is_missing,
)
from pwc_local.upstream.source import CatalogSource

logger = logging.getLogger(__name__)

T = TypeVar("T")

Link = tuple[str, str]
"""A place an out-of-catalog paper can be read: `(label, url)`."""

IDENTIFIER = "identifier"
TITLE = "title"
UNSUPPORTED = "unsupported"
UNAVAILABLE = "unavailable"

NOT_INDEXED = "not indexed on Papers With Code"
UNTITLED = "Untitled paper"
MAX_QUERY_CHARS = 500

# ASSUMED response fields holding links, in display order, with their labels.
_LINK_FIELDS = (
    ("hf_paper_url", "Hugging Face Papers"),
    ("arxiv_url", "arXiv"),
    ("pdf_url", "PDF"),
    ("doi_url", "DOI"),
    ("publisher_url", "Publisher"),
)
_SOURCE_LABELS = {"huggingface": "Hugging Face Papers", "arxiv": "arXiv", "crossref": "Crossref"}
_ARXIV_HOSTS = frozenset({"arxiv.org", "www.arxiv.org"})
_DIGITS = re.compile(r"\d{1,20}")
# Control characters other than tab and newline: removed from multi-line text and URLs.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_MISS_TAILS = {
    IDENTIFIER: (
        "no public record for this identifier was found on Hugging Face Papers, arXiv or Crossref"
    ),
    TITLE: (
        "no arXiv or Crossref paper has exactly this title; check the title, or retry "
        "with an arXiv ID, DOI or paper URL"
    ),
    UNSUPPORTED: (
        "public records were not searched, because only arXiv IDs, DOIs, arXiv or "
        "Hugging Face paper URLs and complete titles can be looked up there"
    ),
    UNAVAILABLE: (
        "the public metadata sources could not be consulted just now, so it is unknown "
        "whether a public record exists; retry later"
    ),
}


@dataclass(frozen=True)
class PublicRecord:
    """What the public sources know about a paper.

    `in_catalog` is true only when the service says the reference is a catalog
    paper after all; `catalog_id` and `arxiv_id` then name it. `requested_title` is
    the title asked for when it was looked up by title. `links` are `(label, url)`
    pairs, http(s) only.
    """

    in_catalog: bool
    catalog_id: str | None
    arxiv_id: str | None
    doi: str | None
    title: str | None
    authors: list[str]
    published: str | None
    abstract: str | None
    metadata_source: str
    requested_title: str | None
    links: list[Link]

    def retry_ids(self, reference: str) -> list[str]:
        """Catalog IDs to retry, arXiv first (Markdown is keyed by it), minus the reference."""
        original = reference.strip()
        ids: list[str] = []
        for value in (self.arxiv_id, self.catalog_id):
            if value and value != original and value not in ids:
                ids.append(value)
        return ids

    def paper_detail(self) -> dict[str, Any]:
        """The record in catalog paper-detail field names, so one projection serves both.

        The catalog-only lists (tasks, methods, repositories, resources) are empty.
        """
        return {
            "id": self.arxiv_id or self.doi or "",
            "arxiv_id": self.arxiv_id,
            "title": self.title or UNTITLED,
            "abstract": self.abstract,
            "authors": list(self.authors),
            "published": self.published,
            "citation_count": None,
            "url_abs": _first_url(self.links, ("arXiv", "Hugging Face Papers", "DOI", "Publisher")),
            "url_pdf": _first_url(self.links, ("PDF",)),
            "code_repository_count": 0,
            "tasks": [],
            "methods": [],
            "repositories": [],
            "project_pages": [],
            "hf_models": [],
            "hf_datasets": [],
            "hf_spaces": [],
        }


@dataclass(frozen=True)
class PublicMiss:
    """No usable public record; `reason` says why (`identifier`, `title`, `unsupported` ...)."""

    reason: str

    @property
    def tail(self) -> str:
        """How the miss continues "...; it is not indexed on Papers With Code and ..."."""
        return _MISS_TAILS[self.reason]


# -- the ASSUMED endpoint shapes -------------------------------------------------------


def _lookup_request(reference: str) -> tuple[str, dict[str, str]] | None:
    """The request for a reference, or `None` when it cannot be looked up publicly.

    Identifiers (arXiv IDs, DOIs, arXiv / DOI / Hugging Face paper URLs) go to
    `public-metadata?reference=`; other text not shaped like a URL or catalog ID is a
    title for `public-metadata/search?title=`. Catalog IDs, Papers With Code URLs and
    other URLs are not looked up.
    """
    if reference.lower().startswith(("http://", "https://")):
        try:
            parts = urlsplit(reference)
        except ValueError:
            return None
        host = parts.netloc.lower()
        path = parts.path.strip("/")
        if (
            host in _ARXIV_HOSTS
            or host in DOI_HOSTS
            or (host == "huggingface.co" and path.startswith("papers/"))
        ) and path:
            return "public-metadata", {"reference": reference}
        return None
    if DOI_TEXT.fullmatch(reference):
        return "public-metadata", {"reference": reference}
    identifier = classify_identifier(reference)
    if identifier is not None:
        if identifier.kind in (ARXIV, LEGACY):
            return "public-metadata", {"reference": reference}
        return None  # a catalog ID means nothing to the public sources
    return "public-metadata/search", {"title": reference}


def _miss_reason(exc: CatalogError, *, by_title: bool) -> str:
    if is_missing(exc):
        return TITLE if by_title else IDENTIFIER
    if isinstance(exc, HTTPRejected):
        return UNSUPPORTED
    return UNAVAILABLE


def _parse_record(document: Any) -> PublicRecord:
    """The shape check of a public-metadata answer: a JSON object, read leniently."""
    record = require_object(document, what="public metadata response")
    return PublicRecord(
        in_catalog=record.get("in_catalog") is True,
        catalog_id=_catalog_id(record.get("catalog_id")),
        arxiv_id=arxiv_without_version(record.get("arxiv_id")),
        doi=_line(record.get("doi")),
        title=_line(record.get("title")),
        authors=[name for name in map(_line, _list(record.get("authors"))) if name],
        published=_line(record.get("published")),
        abstract=_block(record.get("abstract")),
        metadata_source=str(record.get("metadata_source") or "").strip().lower(),
        requested_title=_line(record.get("requested_title")),
        links=[
            (label, url)
            for key, label in _LINK_FIELDS
            if (url := _http_url(record.get(key))) is not None
        ],
    )


# -- lookup ------------------------------------------------------------------------------


async def lookup_public(catalog: CatalogSource, reference: str) -> PublicRecord | PublicMiss:
    """Ask the public-metadata service about a reference; never raises for a miss.

    Unreachable sources, timeouts and unusable answers are all `PublicMiss
    ("unavailable")`: the caller reports the original catalog miss either way. An
    answer that is not a record fails `_parse_record` at the fetch, so it is not cached.
    """
    text = reference.strip()
    request = _lookup_request(text) if text else None
    if request is None:
        return PublicMiss(UNSUPPORTED)
    path, params = request
    by_title = path.endswith("/search")
    try:
        record = await catalog.get_json(path, params, accept=_parse_record)
    except UpstreamError as exc:
        if not isinstance(exc, RecordMissing | HTTPRejected):
            logger.info("public metadata lookup failed type=%s", type(exc).__name__)
        return PublicMiss(_miss_reason(exc, by_title=by_title))
    if by_title and record.requested_title is None:
        record = _with_requested_title(record, text)
    return record


def _with_requested_title(record: PublicRecord, title: str) -> PublicRecord:
    return replace(record, requested_title=_line(title))


def miss_message(exc: BaseException, reference: str) -> str:
    """The caller-facing text of a catalog miss (an HTTP 404 carries none of its own)."""
    if isinstance(exc, NotFound):
        return str(exc)
    return f"Paper not found: {shown(reference.strip())}"


def public_miss_error(exc: BaseException, reference: str, miss: PublicMiss) -> NotFound:
    """The final error when neither the catalog nor the public sources know a paper."""
    return NotFound(f"{miss_message(exc, reference)}; it is {NOT_INDEXED} and {miss.tail}")


async def fall_back(
    catalog: CatalogSource,
    reference: str,
    miss: BaseException,
    retry: Callable[[str], Awaitable[T]],
) -> T | PublicRecord:
    """The fallback procedure after a catalog miss on `reference` (module docstring).

    Returns `retry(<id>)`'s answer when the public record maps the reference to a
    catalog paper and a retry succeeds, or the `PublicRecord` of a paper outside the
    catalog. Raises the original `miss` when every retry fails (a catalogued paper is
    never presented as uncatalogued), and the public-miss `NotFound` when there is no
    public record. An unusable answer on the way was never cached (shape checks run
    at the fetch), so the next call asks for it again.
    """
    outcome = await lookup_public(catalog, reference)
    if isinstance(outcome, PublicMiss):
        raise public_miss_error(miss, reference, outcome) from miss
    if not outcome.in_catalog:
        return outcome
    for alternative in outcome.retry_ids(reference):
        try:
            return await retry(alternative)
        except CatalogError:
            continue
    raise miss


async def catalog_or_public(
    catalog: CatalogSource, reference: str, from_catalog: Callable[[str], Awaitable[T]]
) -> T | PublicRecord:
    """`from_catalog(reference)`, or after a catalog miss, the fallback of `fall_back`."""
    try:
        return await from_catalog(reference)
    except (PaperMissing, RecordMissing) as exc:
        # Only "the catalog has no such paper" falls back. Ambiguous titles, too many
        # results, empty references and upstream failures would fail the same way with
        # any public record.
        return await fall_back(catalog, reference, exc, from_catalog)


# -- presentation ------------------------------------------------------------------------


def source_label(record: PublicRecord) -> str:
    """Which public source supplied the record; unknown sources read as arXiv."""
    return _SOURCE_LABELS.get(record.metadata_source, "arXiv")


def links_text(links: list[Link]) -> str:
    return "; ".join(f"{label}: {url}" for label, url in links)


def public_note(record: PublicRecord) -> str:
    """Why the answer comes from public metadata, and how to cite the paper instead."""
    title = record.title or UNTITLED
    sentences = []
    requested = record.requested_title
    if requested and normalize_title(requested) != normalize_title(title):
        sentences.append(
            f'No paper is titled exactly "{requested}"; this is the paper with the same '
            f'name: "{title}".'
        )
    sentences.append(
        f"This paper is {NOT_INDEXED}, so it has no Papers With Code page, and the "
        "catalog holds no tasks, methods, evaluations or curated code for it."
    )
    sentences.append(f"This metadata comes from public {source_label(record)} records.")
    if record.links:
        sentences.append(f"Link to it where it is available instead: {links_text(record.links)}.")
    else:
        sentences.append("Do not link to a Papers With Code page for it.")
    return " ".join(sentences)


def related_note(record: PublicRecord) -> str:
    """The note of `get_related_papers` when it falls back to a title search."""
    title = record.title or UNTITLED
    note = (
        f'"{title}" is {NOT_INDEXED}, so the catalog records no related papers for it. '
        "These rows are only catalog search hits for its title, not curated related work. "
    )
    if record.links:
        return note + (
            "Link to the paper itself through available_at "
            f"({links_text(record.links)}), not through a Papers With Code page."
        )
    return note + "Do not link to a Papers With Code page for the paper itself."


def public_markdown(record: PublicRecord) -> str:
    """The short Markdown page `read_paper` returns for a paper outside the catalog."""
    blocks = [
        f"# {record.title or UNTITLED}",
        f"> {public_note(record)} Its full text is not available here.",
    ]
    facts = []
    if record.authors:
        facts.append(f"**Authors:** {', '.join(record.authors)}")
    if record.published:
        facts.append(f"**Published:** {record.published}")
    if facts:
        blocks.append("\n".join(facts))
    if record.links:
        blocks.append("## Available at")
        blocks.append("\n".join(f"- [{label}]({_md_url(url)})" for label, url in record.links))
    if record.abstract:
        blocks.append("## Abstract")
        blocks.append(record.abstract)
    return "\n\n".join(blocks) + "\n"


# -- the two JSON commands with fallback -----------------------------------------------


@dataclass(frozen=True)
class PaperInfoAnswer:
    """`get_paper_info` with fallback: a catalog `payload`, or a `public` record.

    Exactly one of `payload` and `public` is set. For a public answer `paper` is the
    record in catalog field names (`PublicRecord.paper_detail`), `note` explains the
    situation and `available_at` lists the links.
    """

    payload: dict[str, Any] | None
    public: PublicRecord | None = None
    note: str | None = None
    available_at: list[Link] = field(default_factory=list)

    @property
    def in_catalog(self) -> bool:
        return self.public is None

    @property
    def paper(self) -> dict[str, Any]:
        """The paper detail to project: catalog payload or public record."""
        if self.public is not None:
            return self.public.paper_detail()
        return self.payload or {}


@dataclass(frozen=True)
class RelatedAnswer:
    """`get_related_papers` with fallback.

    `payload` is the catalog document either way: the related-papers document, or
    (for a paper outside the catalog) the `papers/search` document for its public
    title, with `note` and `available_at` set and `in_catalog` false.
    """

    payload: dict[str, Any]
    note: str | None = None
    available_at: list[Link] = field(default_factory=list)
    in_catalog: bool = True


async def paper_info_or_public(
    catalog: CatalogSource, paper: str, *, include_evaluations: bool
) -> PaperInfoAnswer:
    """`papers.get_paper_info`, answering from public metadata on a catalog miss."""

    async def from_catalog(reference: str) -> PaperInfoAnswer:
        payload = await get_paper_info(catalog, reference, include_evaluations=include_evaluations)
        return PaperInfoAnswer(payload)

    outcome = await catalog_or_public(catalog, paper, from_catalog)
    if isinstance(outcome, PaperInfoAnswer):
        return outcome
    return PaperInfoAnswer(
        None, public=outcome, note=public_note(outcome), available_at=list(outcome.links)
    )


async def related_or_public(catalog: CatalogSource, paper: str, *, limit: int) -> RelatedAnswer:
    """`papers.get_related_papers`; outside the catalog, a search on the public title."""

    async def from_catalog(reference: str) -> RelatedAnswer:
        return RelatedAnswer(await get_related_papers(catalog, reference, limit=limit))

    outcome = await catalog_or_public(catalog, paper, from_catalog)
    if isinstance(outcome, RelatedAnswer):
        return outcome
    query = (outcome.title or paper.strip())[:MAX_QUERY_CHARS]
    document = await hybrid_search(catalog, query, limit=limit)
    return RelatedAnswer(
        document,
        note=related_note(outcome),
        available_at=list(outcome.links),
        in_catalog=False,
    )


# -- field helpers ---------------------------------------------------------------------


def _line(value: Any) -> str | None:
    """Text on one line (`safe_text.one_line`), or `None` when missing or blank."""
    if not isinstance(value, str):
        return None
    return one_line(value) or None


def _block(value: Any) -> str | None:
    """Multi-line text with control characters removed and outer blank space trimmed."""
    if not isinstance(value, str):
        return None
    text = _CONTROL.sub(" ", value.replace("\r\n", "\n")).strip()
    return text or None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _catalog_id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    return text if _DIGITS.fullmatch(text) else None


def _http_url(value: Any) -> str | None:
    """An absolute http(s) URL without whitespace, or `None`."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    if any(ch.isspace() for ch in url) or _CONTROL.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme in ("http", "https") and parts.netloc else None


def _first_url(links: list[Link], labels: tuple[str, ...]) -> str | None:
    for wanted in labels:
        for label, url in links:
            if label == wanted:
                return url
    return None


def _md_url(url: str) -> str:
    # Parentheses would end the Markdown link target early.
    return url.replace("(", "%28").replace(")", "%29")
