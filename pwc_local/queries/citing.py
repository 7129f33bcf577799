"""`cite_paper`: one paper's citation as BibTeX, RIS or CSL-JSON.

The metadata comes through the same path as `get_paper_info`
(`public.paper_info_or_public`): the catalog's record, or for a paper outside the
catalog (a DOI-only journal article, say) its public metadata. That path goes
through the disk cache, so a paper whose information was fetched before, or that
is saved in the library, is cited offline. The formatting itself is the shared
formatter of `pwc_local.queries.citations`, the one `library export` uses, so a
citation copied from a tool answer and one exported from the library agree; the
one difference is a paper saved from the user's own BibTeX entry, which the export
gives with that entry's type and venue (`citations.SourceCitation`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pwc_local.contract import CITATION_FORMATS
from pwc_local.queries.citations import citation_fields, format_citation
from pwc_local.queries.public import paper_info_or_public
from pwc_local.upstream.errors import UsageError
from pwc_local.upstream.source import CatalogSource


@dataclass(frozen=True)
class Citation:
    """`citation` is the citation document in `format`; `key` its BibTeX key / CSL id.

    `paper` is the catalog ID (or, outside the catalog, the DOI or arXiv ID the
    public record carries; the reference as given when it carries neither).
    """

    paper: str
    format: str
    key: str
    citation: str
    in_catalog: bool


async def cite_paper(catalog: CatalogSource, paper: str, *, format: str) -> Citation:
    """The citation of `paper` in `format` (`bibtex`, `ris` or `csl-json`).

    Raises `UsageError` for another format, before any request, and the errors of
    `get_paper_info` (not found, ambiguous title, upstream failures).
    """
    chosen = format.strip().casefold() if isinstance(format, str) else ""
    if chosen not in CITATION_FORMATS:
        raise UsageError(f"format must be one of {', '.join(CITATION_FORMATS)}")
    answer = await paper_info_or_public(catalog, paper, include_evaluations=False)
    detail = answer.paper
    fields = citation_fields(detail)
    ident = next(
        (
            value
            for value in (detail.get("id"), fields.doi, fields.arxiv_id)
            if isinstance(value, str) and value
        ),
        paper.strip(),
    )
    return Citation(
        paper=ident,
        format=chosen,
        key=fields.key,
        citation=format_citation(fields, chosen),
        in_catalog=answer.in_catalog,
    )
