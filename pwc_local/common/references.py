"""Paper references: what a caller may type, and the canonical ID it names.

Every paper tool accepts the same spellings of a paper, as the hosted server does:

* a modern arXiv ID, `1706.03762`, optionally with a version (`1706.03762v7`) or an
  `arXiv:` prefix (`arXiv:1706.03762`);
* a legacy arXiv ID, `hep-th/9901001` or `math.GT/0309136`, optionally versioned;
* a numeric catalog ID, `755`;
* an arXiv URL (`https://arxiv.org/abs/...`, `.../pdf/....pdf`), a Hugging Face
  paper URL (`https://huggingface.co/papers/<id>`) or a Papers With Code paper URL
  (`https://paperswithcode.co/paper/<id-or-slug>`);
* arXiv's DOI of a paper, `10.48550/arXiv.1810.04805` (or its `https://doi.org/` URL):
  the arXiv ID it names. Any other DOI is kind `doi`, never searched as a title: the
  catalog finds no paper by it, so it is `Paper not found` (the public-metadata
  fallback, which knows DOIs, takes it from there);
* the exact title, in any case and spacing.

`parse_reference` classifies the text without any request; `resolve_paper` turns it
into the one canonical ID the catalog stores the paper under: the arXiv ID without
version when the paper has one, else its numeric catalog ID. That is the key of the
Markdown store too, which is why numeric IDs are canonicalised through the catalog.

Deliberate difference from the hosted server: a version suffix is removed from
identifiers only. The hosted server also strips it from titles, so a title ending in
`YOLOv3` was searched as `YOLO`; here titles are searched as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from pwc_local.safe_text import shown
from pwc_local.upstream.envelopes import listing_of, next_page_after, object_of
from pwc_local.upstream.errors import (
    Ambiguous,
    NotFound,
    PaperMissing,
    UsageError,
    translate_404,
)
from pwc_local.upstream.source import CatalogSource, segment

TITLE_PAGE_SIZE = 100
TITLE_PAGE_BUDGET = 10
MAX_SHOWN_CANDIDATES = 10

_MODERN = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)
_LEGACY = re.compile(r"([a-z][a-z0-9.\-]*/\d{7})(?:v\d+)?", re.IGNORECASE)
_NUMERIC = re.compile(r"\d{1,20}")
_SLUG_CHARS = re.compile(r"[^a-z0-9]+")

# arXiv's DOIs (`10.48550/arXiv.<id>`, since 2022) and DOIs at large, `doi:` optional.
_ARXIV_DOI = re.compile(r"(?:doi:\s*)?10\.48550/arxiv\.(\S+)", re.IGNORECASE)
DOI_TEXT = re.compile(r"(?:doi:\s*)?10\.\d{4,9}/\S+", re.IGNORECASE)
DOI_HOSTS = frozenset({"doi.org", "www.doi.org", "dx.doi.org"})
_ARXIV_HOSTS = frozenset({"arxiv.org", "www.arxiv.org"})
_HF_HOSTS = frozenset({"huggingface.co"})
_PWC_HOSTS = frozenset({"paperswithcode.co", "www.paperswithcode.co"})

ARXIV = "arxiv"
LEGACY = "legacy"
NUMERIC = "numeric"
TITLE = "title"
SLUG = "slug"
DOI = "doi"


@dataclass(frozen=True)
class ParsedReference:
    """A classified paper reference.

    `kind` is one of `arxiv`, `legacy`, `numeric` (identifiers, `candidate` is the
    ID without version), `title` (`candidate` is the title as typed, trimmed),
    `slug` (`candidate` is the slug of a Papers With Code URL) or `doi` (a DOI other
    than arXiv's, as typed).
    """

    kind: str
    candidate: str

    @property
    def is_identifier(self) -> bool:
        return self.kind in (ARXIV, LEGACY, NUMERIC)

    @property
    def search_text(self) -> str:
        """What a title search sends: a slug's hyphens read as spaces."""
        return self.candidate.replace("-", " ") if self.kind == SLUG else self.candidate


def paper_text(text: object) -> str:
    """The reference `text` spells, without surrounding blanks.

    Empty or only blanks is a `UsageError` (`invalid_argument`), the same answer the
    input schema gives an empty string: `"   "` names no paper either.
    """
    reference = text.strip() if isinstance(text, str) else ""
    if not reference:
        raise UsageError("paper must not be empty; pass an arXiv ID, catalog ID, URL or title")
    return reference


def parse_reference(text: str) -> ParsedReference:
    """Classify a paper reference without asking the catalog.

    Raises `UsageError` for an empty or blank reference (`paper_text`) and
    `PaperMissing` ("Paper URL not supported") for an http(s) URL that is not an
    arXiv, Hugging Face or Papers With Code paper URL.
    """
    reference = paper_text(text)
    if reference.lower().startswith(("http://", "https://")):
        return _parse_url(reference)
    if reference[:6].lower() == "arxiv:":  # `arXiv:1706.03762`, as papers cite it
        prefixed = classify_identifier(reference[6:].strip())
        if prefixed is not None and prefixed.kind != NUMERIC:
            return prefixed
    identifier = classify_identifier(reference) or _arxiv_doi(reference)
    if identifier is not None:
        return identifier
    if DOI_TEXT.fullmatch(reference):
        return ParsedReference(DOI, reference)
    return ParsedReference(TITLE, reference)


def _arxiv_doi(doi: str) -> ParsedReference | None:
    """The arXiv ID arXiv's DOI `10.48550/arXiv.<id>` names, or `None` for any other text."""
    match = _ARXIV_DOI.fullmatch(doi)
    parsed = classify_identifier(match.group(1)) if match else None
    return parsed if parsed is not None and parsed.kind != NUMERIC else None


def spelled_identifier(text: str) -> str | None:
    """The arXiv or catalog ID `text` spells, without a request; `None` for a title or slug.

    Every spelling `parse_reference` accepts counts: `arXiv:1706.03762v5`, an arXiv
    or Hugging Face URL, `1706.03762v7` all give `1706.03762`. That is how the
    library finds a saved paper by any of them.
    """
    try:
        parsed = parse_reference(text)
    except (UsageError, NotFound):
        return None
    return parsed.candidate if parsed.is_identifier else None


def classify_identifier(text: str) -> ParsedReference | None:
    """`text` as an arXiv or catalog identifier (version removed), or `None`."""
    match = _MODERN.fullmatch(text)
    if match:
        return ParsedReference(ARXIV, match.group(1))
    match = _LEGACY.fullmatch(text)
    if match:
        return ParsedReference(LEGACY, match.group(1))
    if _NUMERIC.fullmatch(text):
        return ParsedReference(NUMERIC, text)
    return None


def arxiv_without_version(value: object) -> str | None:
    """A catalog `arxiv_id` field as a version-free arXiv ID, or `None` if it is not one."""
    if not isinstance(value, str):
        return None
    parsed = classify_identifier(value.strip())
    if parsed is None or parsed.kind == NUMERIC:
        return None
    return parsed.candidate


def unsupported_url(reference: str) -> PaperMissing:
    return PaperMissing(
        f"Paper URL not supported: {shown(reference)}; pass an arxiv.org, huggingface.co/papers "
        "or paperswithcode.co/paper URL, an arXiv ID, a catalog ID or the exact title"
    )


def _parse_url(reference: str) -> ParsedReference:
    try:
        parts = urlsplit(reference)
    except ValueError:
        raise unsupported_url(reference) from None
    # netloc, not hostname: a port or user part means it is not one of the known hosts.
    host = parts.netloc.lower()
    segments = [unquote(piece) for piece in parts.path.split("/") if piece]
    if host in DOI_HOSTS:
        parsed = _arxiv_doi("/".join(segments))
        if parsed is not None:
            return parsed
    if len(segments) >= 2:
        head, rest = segments[0], "/".join(segments[1:])
        if host in _ARXIV_HOSTS and head in ("abs", "pdf"):
            if rest.lower().endswith(".pdf"):
                rest = rest[:-4]
            parsed = classify_identifier(rest)
            if parsed is not None and parsed.kind != NUMERIC:
                return parsed
        elif host in _HF_HOSTS and head == "papers" and len(segments) == 2:
            parsed = classify_identifier(rest)
            if parsed is not None and parsed.kind != NUMERIC:
                return parsed
        elif host in _PWC_HOSTS and head == "paper":
            parsed = classify_identifier(rest)
            if parsed is not None:
                return parsed
            if len(segments) == 2 and segments[1].strip():
                return ParsedReference(SLUG, segments[1].strip())
    raise unsupported_url(reference)


async def resolve_paper(catalog: CatalogSource, reference: str) -> str:
    """The canonical catalog ID of a paper reference.

    arXiv IDs (modern or legacy) are returned without a request. A numeric ID costs
    one `papers/<id>` lookup: the paper's arXiv ID replaces it when it has one.
    Titles and slugs are resolved by search (`resolve_title`).

    Raises `PaperMissing` when nothing matches (the public-metadata fallback
    trigger), `Ambiguous` when several papers match a title, `UsageError` for a blank
    reference, `NotFound` for a title search that cannot be settled within its page budget.
    """
    parsed = parse_reference(reference)
    if parsed.kind in (ARXIV, LEGACY):
        return parsed.candidate
    if parsed.kind == NUMERIC:
        return await _canonical_numeric(catalog, parsed.candidate, reference)
    if parsed.kind == DOI:  # the catalog has no DOI lookup, and no title is a DOI
        raise PaperMissing(f"Paper not found: {shown(reference)}")
    return await resolve_title(catalog, parsed)


async def _canonical_numeric(catalog: CatalogSource, paper_id: str, reference: str) -> str:
    with translate_404(PaperMissing(f"Paper not found: {shown(reference)}")):
        record = await catalog.get_json(
            f"papers/{segment(paper_id)}", accept=object_of("paper response")
        )
    arxiv_id = arxiv_without_version(record.get("arxiv_id"))
    if arxiv_id is not None:
        return arxiv_id
    # The record's own ID is canonical (`0755` and `755` are one paper).
    own = record.get("id")
    own_text = str(own) if isinstance(own, int | str) and not isinstance(own, bool) else ""
    return own_text if _NUMERIC.fullmatch(own_text) else paper_id


def normalize_title(text: str) -> str:
    """Titles compare with whitespace runs collapsed and case folded."""
    return " ".join(text.split()).casefold()


def _derived_slug(normalized_title: str) -> str:
    return _SLUG_CHARS.sub("-", normalized_title).strip("-")


def row_key(row: dict[str, Any]) -> str | None:
    """The canonical ID a search row stands for: arXiv ID without version, else catalog ID."""
    arxiv_id = arxiv_without_version(row.get("arxiv_id"))
    if arxiv_id is not None:
        return arxiv_id
    value = row.get("id")
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    return text if _NUMERIC.fullmatch(text) else None


@dataclass
class _TitleScan:
    """What one paged query found: exact matches by key, first rows, budget left over."""

    matches: dict[str, str]
    first_rows: list[tuple[str, str]]
    exhausted: bool


async def resolve_title(catalog: CatalogSource, parsed: ParsedReference) -> str:
    """Resolve a title (or Papers With Code slug) by keyword search.

    First a quoted-phrase query, then (only if that found no exact match) the plain
    text; each query pages `papers/search` 100 rows at a time for at most 10 pages.
    One matching paper resolves, several are `Ambiguous`; none is `PaperMissing`
    ("Paper title not found"), or `NotFound` ("Too many results ...") when the plain
    query still had pages left after the budget.
    """
    text = parsed.search_text
    wanted = normalize_title(text)
    slug = parsed.candidate.casefold() if parsed.kind == SLUG else None
    scans: list[_TitleScan] = []
    # A title holding a double quote cannot be written as a phrase; go straight to plain.
    queries = [text] if '"' in text else [f'"{text}"', text]
    for query in queries:
        scan = await _scan_title_query(catalog, query, wanted, slug)
        scans.append(scan)
        if scan.matches:
            return _single_match(text, scan.matches)
    plain = scans[-1]
    if plain.exhausted:
        raise NotFound(
            f"Too many results to resolve paper title safely: {shown(text)}; "
            "pass the paper's arXiv ID or catalog ID instead"
        )
    closest = plain.first_rows or scans[0].first_rows
    message = f"Paper title not found: {shown(text)}"
    if closest:
        message += "; closest results: " + ", ".join(
            f"{shown(title)} ({key})" for title, key in closest
        )
    raise PaperMissing(message)


def _single_match(text: str, matches: dict[str, str]) -> str:
    """The one key of `matches`, or `Ambiguous` listing them: a candidate titled exactly
    as asked is its ID alone (the title is said once, first), another spelling
    `title (ID)`."""
    if len(matches) == 1:
        return next(iter(matches))
    asked = " ".join(text.split())
    listed = [
        key if " ".join(title.split()) == asked else f"{shown(title)} ({key})"
        for key, title in matches.items()
    ]
    extra = len(listed) - MAX_SHOWN_CANDIDATES
    shown_list = "; ".join(listed[:MAX_SHOWN_CANDIDATES])
    if extra > 0:
        shown_list += f"; and {extra} more"
    raise Ambiguous(
        f"Paper title is ambiguous: {shown(text)}; {shown_list}; pass one of these IDs as paper"
    )


async def _scan_title_query(
    catalog: CatalogSource, query: str, wanted: str, slug: str | None
) -> _TitleScan:
    matches: dict[str, str] = {}
    first_rows: list[tuple[str, str]] = []
    page = 1
    for _ in range(TITLE_PAGE_BUDGET):
        document, rows = await catalog.get_json(
            "papers/search",
            {"q": query, "page": page, "page_size": TITLE_PAGE_SIZE, "mode": "keyword"},
            accept=listing_of("paper search response"),
        )
        for row in rows:
            key = row_key(row)
            title = row.get("title")
            if key is None or not isinstance(title, str):
                continue
            if len(first_rows) < 3 and all(key != seen for _, seen in first_rows):
                first_rows.append((title, key))
            if key not in matches and _is_exact(row, title, wanted, slug):
                matches[key] = title
        following = next_page_after(document, page)
        if following is None:
            return _TitleScan(matches, first_rows, exhausted=False)
        page = following
    return _TitleScan(matches, first_rows, exhausted=True)


def _is_exact(row: dict[str, Any], title: str, wanted: str, slug: str | None) -> bool:
    normalized = normalize_title(title)
    if normalized == wanted:
        return True
    if slug is None:
        return False
    row_slug = row.get("slug")
    if not isinstance(row_slug, str) or not row_slug.strip():
        row_slug = _derived_slug(normalized)
    return row_slug.strip().casefold() == slug
