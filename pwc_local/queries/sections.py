"""`get_paper_outline` and `read_paper_section`: read a paper by its structure.

Both queries gather the paper's complete Markdown for one content version
(`whole_markdown.read_document`, through the disk cache like every read) and parse its
headings (`outline.parse_outline`). The outline lists the sections with their byte
offsets; a section read returns one section, subsections included, within a byte
budget.

A section that does not fit the budget is cut on a UTF-8 character boundary,
preferably at the end of a paragraph (a blank line) in the last quarter of the
budget, else at a line end there, and the answer carries a `read_paper` cursor at
the byte where the text stopped. That cursor is an ordinary `read_paper` cursor
(same signature, expiry, paper and version checks, 64 KiB chunks), so a reader
continues with `read_paper(paper, cursor)`: the two tools compose, and no second
cursor kind exists. The continuation reads on to the end of the paper, not just
the section; the outline's offsets say where the section ends.

Papers outside the catalog have no stored Markdown: both queries answer
`NoMarkdown` for them, after the usual public-metadata lookup has shown that the
reference is not just another spelling of a catalog paper.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from pwc_local.common.cursors import CursorCodec, CursorState, source_for
from pwc_local.common.references import paper_text, resolve_paper
from pwc_local.contract import CHUNK_BYTES, MAX_REFERENCE_CHARS
from pwc_local.queries.outline import Outline, Section, parse_outline
from pwc_local.queries.public import catalog_or_public
from pwc_local.queries.reading import missing_markdown_error
from pwc_local.queries.whole_markdown import Document, char_boundary, read_document
from pwc_local.safe_text import one_line
from pwc_local.upstream.errors import (
    Ambiguous,
    NoMarkdown,
    NotFound,
    RecordMissing,
    UsageError,
)
from pwc_local.upstream.source import CatalogSource

ELLIPSIS = "…"

MIN_SECTION_BYTES = 1024
MAX_SECTION_QUERY_CHARS = 500
MAX_CANDIDATES = 10
MAX_CLOSEST = 5  # headings a miss suggests
MAX_OUTLINE_SECTIONS = 500  # sections one outline answer lists (`listed_sections`)
MAX_HEADING_CHARS = 300  # characters of a heading (or path) an answer shows, like a quote

OUTSIDE_CATALOG_MESSAGE = (
    "this paper is not in the catalog, so no stored Markdown is available; use "
    "get_paper_info for its metadata and links"
)


@dataclass(frozen=True)
class PaperOutline:
    """The outline of `paper` (canonical ID) at content `version`.

    `outline` is the whole tree; `sections` what the answer lists, each heading at
    most `MAX_HEADING_CHARS`, at most `MAX_OUTLINE_SECTIONS` of them, with a `note`
    saying what was left out and how to read it (`listed_sections`).
    """

    paper: str
    version: str
    outline: Outline
    sections: tuple[Section, ...]
    note: str | None = None

    @property
    def title(self) -> str | None:
        """The paper's title (its first level-1 heading), bounded like a heading."""
        title = self.outline.title
        return None if title is None else one_line(title, MAX_HEADING_CHARS, cut=ELLIPSIS)


@dataclass(frozen=True)
class SectionRead:
    """One `read_paper_section` answer.

    `markdown` is the section's text from its start; `truncated` says it was cut at
    `max_bytes`, and then `next_cursor` continues with `read_paper` at byte
    `offset + len(markdown in bytes)` of the paper. `next_heading` is the heading
    that ends the section (bounded), `None` when it runs to the end of the paper:
    where a reader going on with `read_paper` has finished the section.
    """

    paper: str
    version: str
    section: Section
    markdown: str
    truncated: bool
    next_cursor: str | None
    next_heading: str | None = None


async def get_paper_outline(catalog: CatalogSource, paper: str, *, depth: int) -> PaperOutline:
    """The section tree of `paper`'s Markdown (see `outline` for the rules), `depth`
    levels below the title (`listed_sections`)."""
    document = await _document(catalog, _reference(paper))
    outline = parse_outline(document.text)
    sections, note = listed_sections(outline, depth)
    return PaperOutline(document.paper, document.version, outline, sections, note)


def section_depth(section: Section, titled: bool) -> int:
    """How deep `section` sits: 1 for a chapter, 2 for its subsections ...

    The title does not count as a level when it holds the whole paper (`titled`: the
    only top-level heading), so "depth 2" means chapters and their subsections
    whether or not the paper has a title heading. The title and preamble are 0.
    """
    return max(len(section.path) - (1 if titled else 0), 0)


def listed_sections(
    outline: Outline, depth: int | None = None
) -> tuple[tuple[Section, ...], str | None]:
    """The sections an outline answer lists, and the note when some are left out.

    First those at most `depth` levels deep (`section_depth`; `None`: all): a
    compact outline of a long paper by default, the note saying how many deeper ones
    were left out and which `depth` lists them. Then at most `MAX_OUTLINE_SECTIONS`,
    deeper sections left out first (`_capped`). Every section stays readable by ID or
    heading with `read_paper_section`, whose text shows the headings under it.
    """
    titled = sum(s.level > 0 for s in outline.top_level()) == 1
    within = tuple(
        s for s in outline.sections if depth is None or section_depth(s, titled) <= depth
    )
    listed, note = _capped(within)
    left_out = len(outline.sections) - len(within)
    if left_out and depth is not None:
        deepest = max(section_depth(s, titled) for s in outline.sections)
        more = f"depth={depth + 1} lists one level more" + (
            f", depth={deepest} all" if deepest > depth + 1 else ""
        )
        deeper = (
            f"{left_out} deeper section{'s' if left_out > 1 else ''} left out "
            f"({len(listed)} of {len(outline.sections)} listed, {depth} level"
            f"{'s' if depth > 1 else ''} below the title); {more}, or read_paper_section "
            "reads one with the headings under it."
        )
        note = deeper if note is None else f"{note} {deeper}"
    return listed, note


def _capped(every: tuple[Section, ...]) -> tuple[tuple[Section, ...], str | None]:
    """At most `MAX_OUTLINE_SECTIONS` of `every`, and the note when some are left out.

    Deeper sections are left out first: every section down to the deepest level at
    which all fit, then the first ones (in document order) of the level below, as
    many as still fit. So a paper whose title is its only H1 still lists its chapters.
    """
    if len(every) <= MAX_OUTLINE_SECTIONS:
        return tuple(shown_section(s) for s in every), None
    depth = 0  # len(path): 0 for the preamble, 1 for a top-level section
    while sum(len(s.path) <= depth + 1 for s in every) <= MAX_OUTLINE_SECTIONS:
        depth += 1
    room = MAX_OUTLINE_SECTIONS - sum(len(s.path) <= depth for s in every)
    kept: list[Section] = []
    deeper: list[Section] = []
    for section in every:
        if len(section.path) <= depth:
            kept.append(section)
        elif len(section.path) == depth + 1 and len(deeper) < room:
            kept.append(section)
            deeper.append(section)
    which = (
        f"the first {len(deeper)} top-level sections"
        if depth == 0
        else f"every section down to {depth} level{'s' if depth > 1 else ''} deep, then the "
        f"first {len(deeper)} one level deeper"
    )
    note = (
        f"Outline cut: {len(kept)} of {len(every)} sections listed ({which}, to "
        f"{deeper[-1].id if deeper else kept[-1].id}). read_paper_section reads any section "
        "by ID or heading, with its subsections, whose headings its text shows."
    )
    return tuple(shown_section(s) for s in kept), note


def shown_section(section: Section) -> Section:
    """`section` with its heading and path bounded for an answer (`MAX_HEADING_CHARS`)."""
    heading = one_line(section.heading, MAX_HEADING_CHARS, cut=ELLIPSIS)
    path = tuple(one_line(h, MAX_HEADING_CHARS, cut=ELLIPSIS) for h in section.path)
    if heading == section.heading and path == section.path:
        return section
    return dataclasses.replace(section, heading=heading, path=path)


async def read_paper_section(
    catalog: CatalogSource,
    codec: CursorCodec,
    paper: str,
    section: str,
    *,
    max_bytes: int,
    now: float | None = None,
) -> SectionRead:
    """One section of `paper`, by section ID (`s2.1`) or heading text, within `max_bytes`.

    Raises `UsageError` for a bad budget or an empty section, `NotFound` when no
    section matches, `Ambiguous` (listing the candidates' IDs) when several headings
    match, plus the errors of `get_paper_outline`.
    """
    reference = _reference(paper)
    wanted = section.strip() if isinstance(section, str) else ""
    if not wanted:
        raise UsageError("section cannot be empty; pass a section ID from get_paper_outline")
    if len(wanted) > MAX_SECTION_QUERY_CHARS:
        raise UsageError(f"section must be at most {MAX_SECTION_QUERY_CHARS} characters")
    if isinstance(max_bytes, bool) or not MIN_SECTION_BYTES <= max_bytes <= CHUNK_BYTES:
        raise UsageError(f"max_bytes must be from {MIN_SECTION_BYTES} to {CHUNK_BYTES}")
    instant = time.time() if now is None else now
    document = await _document(catalog, reference)
    outline = parse_outline(document.text)
    chosen = find_section(outline, wanted)
    data = document.data
    body = data[chosen.offset : chosen.end]
    shown = shown_section(chosen)
    if len(body) <= max_bytes:
        return SectionRead(
            document.paper, document.version, shown, body.decode("utf-8"), False, None
        )
    cut = cut_point(body, max_bytes)
    state = CursorState(
        ref=reference,
        paper=document.paper,
        source=source_for(document.paper),
        version=document.version,
        offset=chosen.offset + cut,
        limit=CHUNK_BYTES,
        exp=codec.expiry_for_new_read(instant),
    )
    following = next((s for s in outline.sections if s.level and s.offset == chosen.end), None)
    return SectionRead(
        document.paper,
        document.version,
        shown,
        body[:cut].decode("utf-8"),
        True,
        codec.mint(state, now=instant),
        None if following is None else one_line(following.heading, 80, cut=ELLIPSIS),
    )


def find_section(outline: Outline, wanted: str) -> Section:
    """The section `wanted` names: an ID, else a heading, else a heading as people name it.

    In that order, each a unique match or `Ambiguous`: the section ID (`s2.1`); the
    heading as written (case and spacing aside); the heading without its number and
    punctuation (`outline.heading_name`: "Key ideas" finds "2 Key ideas"); the first
    words of such a heading ("Appendix B" finds "Appendix B — Multilingual results").
    A miss lists the closest headings with their IDs.
    """
    by_id = outline.by_id(wanted)
    if by_id is not None:
        return by_id
    for matches in (outline.by_heading(wanted), outline.by_name(wanted), outline.by_start(wanted)):
        if len(matches) == 1:
            return matches[0]
        if matches:
            listed = "; ".join(_labelled(s, path=True) for s in matches[:MAX_CANDIDATES])
            more = (
                f" and {len(matches) - MAX_CANDIDATES} more"
                if len(matches) > MAX_CANDIDATES
                else ""
            )
            raise Ambiguous(
                f"Several sections are headed {_quoted(wanted)}: {listed}{more}; pass one of "
                "these section IDs"
            )
    closest = outline.closest(wanted, MAX_CLOSEST)
    hint = (
        "closest: " + "; ".join(_labelled(s) for s in closest)
        if closest
        else "no heading is close to it"
    )
    raise NotFound(
        f"Section not found: {_quoted(wanted)}; {hint}; call get_paper_outline for every "
        "section ID and heading"
    )


def _labelled(section: Section, *, path: bool = False) -> str:
    """`s2.1 (2.1 Key ideas)`: a section ID and its heading (or path), bounded."""
    text = " > ".join(section.path) if path else section.heading
    return f"{section.id} ({one_line(text, MAX_HEADING_CHARS // 3, cut=ELLIPSIS)})"


def _quoted(text: str) -> str:
    return repr(one_line(text, 80, cut=ELLIPSIS))


def cut_point(body: bytes, budget: int) -> int:
    """Where to cut `body` to at most `budget` bytes: a paragraph end if one is near.

    Looks for the end of a blank line, then for a line end, within the last quarter of
    the budget; otherwise cuts at the last character boundary that fits.
    """
    limit = char_boundary(body, budget)
    floor = budget - budget // 4
    window = body[:limit]
    for separator in (b"\n\n", b"\n"):
        found = window.rfind(separator, floor)
        if found != -1:
            return found + len(separator)
    return limit


def _reference(paper: object) -> str:
    reference = paper_text(paper)
    if len(reference) > MAX_REFERENCE_CHARS:
        raise UsageError(f"paper must be at most {MAX_REFERENCE_CHARS} characters")
    return reference


async def _document(catalog: CatalogSource, reference: str) -> Document:
    """The whole Markdown `reference` names; public-fallback aware; `NoMarkdown` when none."""

    async def from_catalog(spelling: str) -> Document:
        canonical = await resolve_paper(catalog, spelling)
        try:
            return await read_document(catalog, canonical)
        except RecordMissing as exc:
            raise await missing_markdown_error(catalog, spelling, canonical) from exc

    outcome = await catalog_or_public(catalog, reference, from_catalog)
    if isinstance(outcome, Document):
        return outcome
    raise NoMarkdown(OUTSIDE_CATALOG_MESSAGE)
