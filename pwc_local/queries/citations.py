"""Citations of papers: BibTeX, RIS and CSL-JSON from catalog or public metadata.

Pure functions, no I/O. Two steps, so every format says the same thing:

1. `citation_fields(detail)` reads a paper detail (a catalog `papers/<id>` answer,
   or `PublicRecord.paper_detail()` for a paper outside the catalog) and keeps what
   a citation needs: title, authors, year and date, venue, arXiv ID, DOI, URL, and
   a stable BibTeX key.
2. `bibtex(fields)`, `ris(fields)`, `csl_item(fields)` format one paper;
   `format_citations(list, fmt)` formats several (what `library export` writes).

A paper saved from the user's own BibTeX entry keeps what that entry said about
its kind and venue (`SourceCitation`: the entry type and the `journal`,
`booktitle`, `volume`, `number`, `pages`, `publisher` fields): a DOI saved from
`@article{..., journal = {Nature}}` exports as `@article` with that journal, in RIS
as `JOUR` with `T2  - Nature`, in CSL-JSON as `article-journal`. Without a source
the kind is inferred (`@inproceedings` with a catalog venue, `@article` for an
arXiv preprint, else `@misc`).

Keys are `<first author's family name><year><first significant title word>`,
lower-case ASCII (`vaswani2017attention`), the same for the same metadata on every
machine. `unique_keys` adds `a`, `b` ... when several papers of one export share a
key, in a stable order.

Escaping is per format. BibTeX: the LaTeX specials `& % $ # _ { } ~ ^ \\` are
written as `\\&`, `\\%`, `\\$`, `\\#`, `\\_`, `\\{`, `\\}`, `\\textasciitilde{}`,
`\\textasciicircum{}` and `\\textbackslash{}`, and the title is wrapped in an extra
pair of braces so BibTeX styles keep its capitalisation. RIS is line-based: tags
and values are separated by two spaces and a hyphen, so line breaks in a value
become spaces. CSL-JSON is JSON, whose encoder does its own escaping.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from pwc_local.contract import CITATION_FORMATS

_YEAR = re.compile(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_WORD = re.compile(r"[a-z0-9]+")
_STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "by", "for", "from", "how", "in", "into", "is"}
    | {"it", "its", "of", "on", "or", "the", "to", "via", "what", "when", "why", "with"}
)
_BIBTEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ENTRY_TYPE = re.compile(r"[a-z]{1,32}")

# The venue fields a source entry keeps, in the order BibTeX writes them, with their
# RIS tag and CSL-JSON variable.
VENUE_FIELDS = ("journal", "booktitle", "volume", "number", "pages", "publisher")
_RIS_VENUE = {"journal": "T2", "booktitle": "T2", "volume": "VL", "number": "IS"}
_RIS_VENUE |= {"pages": "SP", "publisher": "PB"}
_CSL_VENUE = {"journal": "container-title", "booktitle": "container-title", "volume": "volume"}
_CSL_VENUE |= {"number": "issue", "pages": "page", "publisher": "publisher"}
_RIS_TYPES = {"article": "JOUR", "inproceedings": "CPAPER", "conference": "CPAPER"}
_RIS_TYPES |= {"book": "BOOK", "incollection": "CHAP", "inbook": "CHAP", "phdthesis": "THES"}
_RIS_TYPES |= {"mastersthesis": "THES", "techreport": "RPRT", "misc": "GEN"}
_CSL_TYPES = {"article": "article-journal", "inproceedings": "paper-conference"}
_CSL_TYPES |= {"conference": "paper-conference", "book": "book", "incollection": "chapter"}
_CSL_TYPES |= {"inbook": "chapter", "phdthesis": "thesis", "mastersthesis": "thesis"}
_CSL_TYPES |= {"techreport": "report", "misc": "article"}


@dataclass(frozen=True)
class SourceCitation:
    """What the user's own BibTeX entry said: its type (`article`) and venue fields."""

    entry_type: str
    venue: dict[str, str] = field(default_factory=dict)


def source_citation(entry_type: str, fields: Mapping[str, str]) -> SourceCitation:
    """The kind and venue of a BibTeX entry (field names lower-case), cleaned to one line."""
    kind = entry_type.strip().lower()
    venue = {name: _line(fields[name]) for name in VENUE_FIELDS if _line(fields.get(name))}
    return SourceCitation(kind if _ENTRY_TYPE.fullmatch(kind) else "", venue)


@dataclass(frozen=True)
class CitationFields:
    """What a citation says about one paper. Empty strings / lists mean unknown.

    `date` is ISO (`2017-06-12`, or as much of it as is known); `year` its first
    four digits. `venue` is a conference or journal name when the catalog knows one.
    `entry_type` and `source_venue` are what a source BibTeX entry said
    (`SourceCitation`); empty when the paper was not saved from one.
    """

    key: str
    title: str
    authors: list[str] = field(default_factory=list)
    year: str = ""
    date: str = ""
    venue: str = ""
    arxiv_id: str = ""
    doi: str = ""
    url: str = ""
    entry_type: str = ""
    source_venue: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def with_source(self, source: SourceCitation | None) -> CitationFields:
        """These fields with a source entry's kind and venue (unchanged for `None`)."""
        if source is None:
            return self
        return replace(self, entry_type=source.entry_type, source_venue=dict(source.venue))

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> CitationFields:
        """The inverse of `as_dict`, tolerant of missing or mistyped fields."""

        def text(name: str) -> str:
            item = value.get(name)
            return item if isinstance(item, str) else ""

        authors = value.get("authors")
        venue = value.get("source_venue")
        return cls(
            key=text("key") or "paper",
            title=text("title"),
            authors=[a for a in authors if isinstance(a, str)] if isinstance(authors, list) else [],
            year=text("year"),
            date=text("date"),
            venue=text("venue"),
            arxiv_id=text("arxiv_id"),
            doi=text("doi"),
            url=text("url"),
            # Written raw after `@`: only a plain word is taken back.
            entry_type=text("entry_type") if _ENTRY_TYPE.fullmatch(text("entry_type")) else "",
            source_venue=(
                {k: v for k, v in venue.items() if k in VENUE_FIELDS and isinstance(v, str)}
                if isinstance(venue, dict)
                else {}
            ),
        )


def citation_fields(detail: Mapping[str, Any]) -> CitationFields:
    """The citation fields of a paper detail (catalog or public; see the module docstring)."""
    title = _line(detail.get("title"))
    authors = [name for name in (_author(a) for a in _list(detail.get("authors"))) if name]
    date = _date(detail.get("published") or detail.get("date_published"))
    arxiv_id = _line(detail.get("arxiv_id"))
    ident = _line(detail.get("id"))
    doi = _line(detail.get("doi"))
    if not doi and _DOI.fullmatch(ident):
        doi = ident
    venue = _line(detail.get("conference_name")) or _line(detail.get("conference"))
    url = _line(detail.get("url_abs"))
    if not url and arxiv_id:
        url = f"https://arxiv.org/abs/{arxiv_id}"
    if not url and doi:
        url = f"https://doi.org/{doi}"
    year = date[:4]
    return CitationFields(
        key=citation_key(authors, year, title),
        title=title,
        authors=authors,
        year=year,
        date=date,
        venue=venue,
        arxiv_id=arxiv_id,
        doi=doi,
        url=url,
    )


def citation_key(authors: Sequence[str], year: str, title: str) -> str:
    """`vaswani2017attention`: family name, year, first significant title word, ASCII."""
    family = _ascii_word(_family_name(authors[0])) if authors else ""
    words = [w for w in _WORD.findall(_ascii(title).lower()) if w not in _STOP_WORDS]
    first = words[0] if words else ""
    key = f"{family or 'anonymous'}{year}{first}"
    return key or "paper"


def unique_keys(papers: Sequence[CitationFields]) -> list[CitationFields]:
    """The same papers with clashing keys told apart by `a`, `b`, ... suffixes."""
    counts: dict[str, int] = {}
    for paper in papers:
        counts[paper.key] = counts.get(paper.key, 0) + 1
    seen: dict[str, int] = {}
    result = []
    for paper in papers:
        if counts[paper.key] > 1:
            index = seen.get(paper.key, 0)
            seen[paper.key] = index + 1
            paper = replace(paper, key=paper.key + _suffix(index))
        result.append(paper)
    return result


# -- formats -------------------------------------------------------------------------


def bibtex(paper: CitationFields) -> str:
    """One BibTeX entry: the source's type, else `@inproceedings` with a venue, `@article`
    for an arXiv preprint, `@misc` otherwise (see the module docstring)."""
    derived = "inproceedings" if paper.venue else ("article" if paper.arxiv_id else "misc")
    kind = paper.entry_type or derived
    entries: list[tuple[str, str]] = [("title", "{" + escape_bibtex(paper.title) + "}")]
    if paper.authors:
        entries.append(("author", " and ".join(escape_bibtex(a) for a in paper.authors)))
    if paper.year:
        entries.append(("year", paper.year))
    if len(paper.date) >= 7:
        entries.append(("month", str(int(paper.date[5:7]))))
    if paper.source_venue:
        entries += [(name, escape_bibtex(value)) for name, value in paper.source_venue.items()]
    elif paper.venue:
        entries.append(
            ("journal" if kind == "article" else "booktitle", escape_bibtex(paper.venue))
        )
    if paper.arxiv_id:
        if kind == "article" and not paper.source_venue and not paper.venue:
            entries.append(("journal", escape_bibtex(f"arXiv preprint arXiv:{paper.arxiv_id}")))
        entries += [
            ("eprint", escape_bibtex(paper.arxiv_id)),
            ("archivePrefix", "arXiv"),
        ]
    if paper.doi:
        entries.append(("doi", escape_bibtex(paper.doi)))
    if paper.url:
        entries.append(("url", escape_bibtex_url(paper.url)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in entries)
    return f"@{kind}{{{paper.key},\n{body}\n}}\n"


def ris(paper: CitationFields) -> str:
    """One RIS record (`TY` ... `ER`)."""
    derived = "CPAPER" if paper.venue else ("JOUR" if paper.arxiv_id or paper.doi else "GEN")
    kind = _RIS_TYPES.get(paper.entry_type, derived)
    lines = [("TY", kind), ("ID", paper.key), ("TI", paper.title)]
    lines += [("AU", author) for author in paper.authors]
    if paper.year:
        lines.append(("PY", paper.year))
    if paper.date:
        lines.append(("DA", paper.date.replace("-", "/")))
    if paper.source_venue:
        lines += _ris_venue(paper.source_venue)
    elif paper.venue:
        lines.append(("T2", paper.venue))
    elif paper.arxiv_id:
        lines.append(("T2", f"arXiv preprint arXiv:{paper.arxiv_id}"))
    if paper.doi:
        lines.append(("DO", paper.doi))
    if paper.url:
        lines.append(("UR", paper.url))
    if paper.arxiv_id:
        lines.append(("N1", f"arXiv:{paper.arxiv_id}"))
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {_ris_value(value)}".rstrip() + "\n" for tag, value in lines)


def csl_item(paper: CitationFields) -> dict[str, Any]:
    """One CSL-JSON item (the format Zotero, Pandoc and citeproc read)."""
    derived = "paper-conference" if paper.venue else "article"
    item: dict[str, Any] = {
        "id": paper.key,
        "type": _CSL_TYPES.get(paper.entry_type, derived),
        "title": paper.title,
    }
    if paper.authors:
        item["author"] = [_csl_name(a) for a in paper.authors]
    parts = [int(p) for p in paper.date.split("-") if p.isdigit()] if paper.date else []
    if parts:
        item["issued"] = {"date-parts": [parts]}
    if paper.source_venue:
        for name, value in paper.source_venue.items():
            item.setdefault(_CSL_VENUE[name], value)
    elif paper.venue:
        item["container-title"] = paper.venue
    elif paper.arxiv_id:
        item["container-title"] = "arXiv"
        item["number"] = f"arXiv:{paper.arxiv_id}"
    if paper.doi:
        item["DOI"] = paper.doi
    if paper.url:
        item["URL"] = paper.url
    return item


def format_citation(paper: CitationFields, fmt: str = "bibtex") -> str:
    """One paper in `fmt` (`bibtex`, `ris` or `csl-json`); `ValueError` for another format."""
    return format_citations([paper], fmt)


def format_citations(papers: Iterable[CitationFields], fmt: str = "bibtex") -> str:
    """Several papers in one document of `fmt`, keys made unique."""
    if fmt not in CITATION_FORMATS:
        raise ValueError(f"format must be one of {', '.join(CITATION_FORMATS)}")
    items = unique_keys(list(papers))
    if fmt == "csl-json":
        return json.dumps([csl_item(p) for p in items], indent=2, ensure_ascii=False) + "\n"
    formatter = bibtex if fmt == "bibtex" else ris
    return "\n".join(formatter(p) for p in items)


def escape_bibtex(text: str) -> str:
    """`text` with every LaTeX special escaped, on one line."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return "".join(_BIBTEX_SPECIALS.get(ch, ch) for ch in flat)


def escape_bibtex_url(url: str) -> str:
    """A URL for a BibTeX field: only the characters that would break the entry escaped."""
    flat = "".join(url.split())
    return "".join(_BIBTEX_SPECIALS[ch] if ch in "{}\\%#" else ch for ch in flat)


# -- helpers -------------------------------------------------------------------------


def _line(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return ""
    return " ".join(_CONTROL.sub(" ", str(value)).split())


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _author(value: Any) -> str:
    if isinstance(value, Mapping):
        value = value.get("name") or value.get("full_name")
    return _line(value)


def _date(value: Any) -> str:
    match = _YEAR.match(_line(value))
    if not match:
        return ""
    return "-".join(part for part in match.groups() if part)


def _family_name(author: str) -> str:
    if "," in author:
        return author.split(",", 1)[0]
    parts = author.split()
    return parts[-1] if parts else ""


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _ascii_word(text: str) -> str:
    return "".join(_WORD.findall(_ascii(text).lower()))


def _suffix(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _ris_venue(venue: Mapping[str, str]) -> list[tuple[str, str]]:
    """RIS lines for a source's venue fields; pages `12--19` are a start and an end page."""
    lines: list[tuple[str, str]] = []
    for name, value in venue.items():
        tag = _RIS_VENUE[name]
        if tag == "T2" and any(t == "T2" for t, _ in lines):
            continue
        if name == "pages" and re.search(r"-+", value):
            start, end = (part.strip() for part in re.split(r"-+", value, maxsplit=1))
            lines += [("SP", start), ("EP", end)]
        else:
            lines.append((tag, value))
    return lines


def _ris_value(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _csl_name(author: str) -> dict[str, str]:
    if "," in author:
        family, given = (part.strip() for part in author.split(",", 1))
    else:
        parts = author.split()
        family, given = (parts[-1], " ".join(parts[:-1])) if parts else ("", "")
    return {"family": family, "given": given} if given else {"literal": family or author}
