"""Public-metadata endpoints of the fake catalog (catalog-api.md §2.27, §2.28: ASSUMED).

The real request and response shapes are unknown; the fake implements the spec's
proposal so the client's adapter has something to talk to:

* `GET public-metadata?reference=<ref>` where `<ref>` is an arXiv ID (with or
  without `vN`, modern or legacy), a bare DOI, or an arXiv abs/pdf,
  Hugging Face papers or doi.org URL. 200 with one record; 404 when no public
  record matches (reason `identifier`); 422 for any other form (`unsupported`).
* `GET public-metadata/search?title=<title>`: an exact (normalised) title match,
  else the single arXiv record sharing the leading "Name:" part; the record
  carries `requested_title`. 404 otherwise (reason `title`).

Catalog papers with an arXiv ID are found too and come back as `in_catalog: true`
records naming the catalog paper, as the spec describes for references the
catalog actually holds.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from .data_papers import Paper, strip_version
from .data_public import PUBLIC_RECORDS, public_record
from .fixtures import Catalog
from .wire import HttpError, Query, folded, invalid

_MODERN_ARXIV = re.compile(r"\d{4}\.\d{4,5}(v\d+)?", re.IGNORECASE)
_LEGACY_ARXIV = re.compile(r"[a-z][a-z0-9.-]*/\d{7}(v\d+)?", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_ARXIV_HOSTS = ("arxiv.org", "www.arxiv.org")
_DOI_HOSTS = ("doi.org", "dx.doi.org", "www.doi.org")


def classify(reference: str) -> tuple[str, str] | None:
    """(`arxiv` | `doi`, normalised key) for a supported reference, else None."""
    text = reference.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() in ("http", "https"):
        host = parts.hostname or ""
        path = parts.path.strip("/")
        if host in _ARXIV_HOSTS and path.split("/", 1)[0] in ("abs", "pdf"):
            text = path.split("/", 1)[1] if "/" in path else ""
            text = text.removesuffix(".pdf")
        elif host == "huggingface.co" and path.startswith("papers/"):
            text = path.removeprefix("papers/")
        elif host in _DOI_HOSTS and path:
            text = path
        else:
            return None
    if _MODERN_ARXIV.fullmatch(text) or _LEGACY_ARXIV.fullmatch(text):
        return "arxiv", strip_version(text).casefold()
    if _DOI.fullmatch(text):
        return "doi", text.casefold()
    return None


def _catalog_record(catalog: Catalog, paper: Paper) -> dict[str, Any]:
    arxiv_id = paper.bare_arxiv_id
    return public_record(
        in_catalog=True,
        catalog_id=paper.id,
        arxiv_id=arxiv_id,
        title=paper.title,
        authors=catalog.author_names(paper),
        published=paper.published,
        abstract=paper.abstract,
        metadata_source="arxiv",
        arxiv_url=f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None,
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}" if arxiv_id else None,
    )


def public_metadata(catalog: Catalog, query: Query) -> dict[str, Any]:
    reference = query.text("reference")
    if reference is None:
        raise invalid("reference is required")
    found = classify(reference)
    if found is None:
        raise invalid(
            "Unsupported reference: only arXiv IDs, DOIs and arXiv, Hugging Face or DOI "
            "URLs can be looked up"
        )
    kind, key = found
    for record in PUBLIC_RECORDS:
        value = record["arxiv_id"] if kind == "arxiv" else record["doi"]
        if value is not None and value.casefold() == key:
            return dict(record)
    if kind == "arxiv":
        paper = catalog.paper(key)
        if paper is not None and paper.bare_arxiv_id is not None:
            return _catalog_record(catalog, paper)
    raise HttpError(404, "No public metadata matched this identifier")


def _leading_name(title: str) -> str | None:
    return folded(title.split(":", 1)[0]) if ":" in title else None


def public_metadata_search(catalog: Catalog, query: Query) -> dict[str, Any]:
    title = query.text("title")
    if title is None:
        raise invalid("title is required")
    wanted = folded(title)
    candidates = [dict(record) for record in PUBLIC_RECORDS]
    candidates += [
        _catalog_record(catalog, paper) for paper in catalog.papers if paper.bare_arxiv_id
    ]
    chosen = next((record for record in candidates if folded(record["title"]) == wanted), None)
    if chosen is None:
        name = _leading_name(title)
        same_name = [
            record
            for record in candidates
            if name is not None
            and record["arxiv_id"] is not None
            and _leading_name(record["title"]) == name
        ]
        if len(same_name) == 1:
            chosen = same_name[0]
    if chosen is None:
        raise HttpError(404, "No public paper has exactly this title")
    chosen["requested_title"] = title
    return chosen
