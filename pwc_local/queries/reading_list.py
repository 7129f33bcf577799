"""Reading lists for `library add --from FILE`: one reference per line, or a BibTeX file.

A file named `*.bib`, or whose first non-blank character is `@` (after an optional
byte-order mark and `%` comment lines), is read as BibTeX with bibtexparser 2. Each
entry contributes one reference, the first it has of

1. an arXiv ID: `eprint` (when `archivePrefix`/`eprinttype` is arXiv or absent and
   the value looks like an arXiv ID), an `arxiv`/`arxivid` field, or
   `arXiv:<id>` inside `journal`, `note` or `howpublished`;
2. a DOI: the `doi` field (a `https://doi.org/` prefix is removed);
3. a URL: the `url` field.

With the reference goes what the entry says about the paper's kind and venue (its
entry type, `journal`, `booktitle`, `volume` ...: `citations.SourceCitation`), so
an export gives back `@article{..., journal = {Nature}}` and not a bare `@misc`.

Entries with none of these are reported by key so the caller can say which were
skipped. An entry the parser cannot read (an unclosed brace or quote, a missing
comma) is reported with its line number; the parser starts again at the next `@`
that begins a line, so one broken entry costs only itself. `@comment`,
`@preamble` and `@string` blocks are not entries (strings are substituted).

Why bibtexparser and not a small reader of our own: the hand-written one this
replaced let an unclosed brace swallow every later entry silently, giving the
first entry the next one's arXiv ID. Resynchronising and reporting failed blocks
is exactly what a maintained parser already does.

Any other file is a list: one reference per line. Blank lines and lines starting
with `#` are skipped, and `#` after blank space starts a comment
(`1412.6980   # adam` is `1412.6980`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pwc_local.queries.citations import SourceCitation, source_citation

if TYPE_CHECKING:
    from bibtexparser.model import Entry, ParsingFailedBlock

_ARXIV = re.compile(r"(?:arxiv:\s*)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})", re.I)
_ARXIV_IN_TEXT = re.compile(r"arxiv[:\s]+(\d{4}\.\d{4,5}(?:v\d+)?)", re.I)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_INLINE_COMMENT = re.compile(r"\s#.*")
_BROKEN_KEY = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s=]*)")
BYTE_ORDER_MARK = "\ufeff"


@dataclass(frozen=True)
class BrokenEntry:
    """A BibTeX entry the parser gave up on: 1-based `line`, `key` if it got that far."""

    line: int
    key: str
    reason: str


@dataclass
class ReadingList:
    """The references found, in file order, and what could not be used.

    `skipped` holds the keys of entries with no arXiv ID, DOI or URL; `broken` the
    entries that could not be read; `sources` what a BibTeX entry said about its
    reference's kind and venue, by reference.
    """

    references: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    broken: list[BrokenEntry] = field(default_factory=list)
    sources: dict[str, SourceCitation] = field(default_factory=dict)


def parse_reading_list(text: str, *, bibtex: bool = False) -> ReadingList:
    """The references of a reading-list file (see the module docstring).

    `bibtex=True` (a `.bib` file) reads BibTeX whatever the first line says.
    Raises `ValueError` when the BibTeX parser itself fails (not for a broken entry).
    """
    text = text.removeprefix(BYTE_ORDER_MARK)
    if bibtex or _looks_like_bibtex(text):
        return _from_bibtex(text)
    found = ReadingList()
    for line in text.splitlines():
        reference = _INLINE_COMMENT.sub("", line).strip()
        if reference and not reference.startswith("#"):
            found.references.append(reference)
    return found


def entry_reference(fields: dict[str, str]) -> str | None:
    """The reference an entry's fields give (arXiv ID, else DOI, else URL), or `None`."""
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
    candidates = [fields.get("eprint", "")] if prefix == "arxiv" else []
    candidates += [fields.get(name, "") for name in ("arxiv", "arxivid", "arxiv_id")]
    for value in candidates:
        match = _ARXIV.fullmatch(value.strip())
        if match:
            return match.group(1)
    for name in ("journal", "note", "howpublished"):
        match = _ARXIV_IN_TEXT.search(fields.get(name, ""))
        if match:
            return match.group(1)
    doi = _DOI_PREFIX.sub("", fields.get("doi", "").strip())
    if doi:
        return doi
    url = fields.get("url", "").strip()
    return url or None


def _looks_like_bibtex(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        return stripped.startswith("@")
    return False


def _from_bibtex(text: str) -> ReadingList:
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

    # Its warnings restate each failed block, which `broken` already reports.
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    try:
        blocks = bibtexparser.parse_string(text).blocks
    except Exception as exc:  # the parser's own invariant broke: no partial answer
        raise ValueError(f"the BibTeX parser stopped ({type(exc).__name__})") from exc
    found = ReadingList()
    for block in blocks:
        if isinstance(block, DuplicateBlockKeyBlock) and block.ignore_error_block is not None:
            block = block.ignore_error_block  # a repeated key is still a paper
        if isinstance(block, Entry):
            _add_entry(found, block)
        elif isinstance(block, ParsingFailedBlock):
            found.broken.append(_broken(block))
    return found


def _add_entry(found: ReadingList, entry: Entry) -> None:
    fields = {f.key.lower(): _plain(f.value) for f in entry.fields}
    reference = entry_reference(fields)
    if reference is None:
        found.skipped.append(entry.key or "(entry without key)")
    elif reference not in found.references:
        found.references.append(reference)
        found.sources[reference] = source_citation(entry.entry_type, fields)


def _plain(value: object) -> str:
    """A field value as text: braces that only protect capitals dropped, spacing folded."""
    text = str(value).replace("{", "").replace("}", "")
    return " ".join(text.split())


def _broken(block: ParsingFailedBlock) -> BrokenEntry:
    match = _BROKEN_KEY.match(block.raw or "")
    error = block.error
    reason = getattr(error, "abort_reason", None) or str(error) or type(error).__name__
    line = (block.start_line or 0) + 1  # the parser counts from 0
    return BrokenEntry(line=line, key=match.group(1) if match else "", reason=str(reason))
