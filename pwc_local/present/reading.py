"""Reading: a chunk of a paper's Markdown (`read_paper`, cursor first), outlines, sections,
citations.

Clients cut long tool results (each its own way: a preview, the head and the tail),
and what they cut first is the end, so the record declares where the reader is and
how to go on (`next_cursor`, the byte range, whether more follows) before the
Markdown, and the text says the same in its first line.
"""

from __future__ import annotations

from typing import Any

from pwc_local.config import format_size
from pwc_local.contract import CitationFormat
from pwc_local.present.hosted import PaperReadResult, ToolOutput, _Strict
from pwc_local.present.papers import links_line, links_of
from pwc_local.present.record import Record, Shown, Table, paragraphs, table_of
from pwc_local.present.words import clean, printable_block


class PaperChunk(Record):
    newer_version_seen: str | None = None  # a saved copy the catalog has changed since
    next_cursor: str | None = None
    more: bool
    start: int
    end: int
    paper: str
    in_catalog: bool | None = None
    available_at: dict[str, str] | None = None
    markdown: str


def paper_chunk(model: PaperReadResult, answer: Any, _arguments: Any) -> PaperChunk:
    start = answer.start
    return PaperChunk(
        newer_version_seen=model.cache.newer_version_seen if model.cache else None,
        next_cursor=model.next_cursor,
        more=model.truncated,
        start=start,
        end=start + len(model.markdown.encode()),
        paper=model.paper,
        in_catalog=None if model.in_catalog else False,
        available_at=links_of(model.available_at),
        markdown=model.markdown,
    )


def paper_chunk_text(record: PaperChunk, shown: Shown) -> str:
    where = f"bytes {record.start:,}-{record.end:,} of the paper's Markdown"
    if record.next_cursor:
        head = f"{where}; more follows: {shown.hint(cursor=record.next_cursor)}."
    else:
        head = f"{where}, to its end."
    blocks = [head, links_line(record.available_at), record.markdown]
    return paragraphs(blocks)


class Outline(Record):
    paper: str
    title: str | None = None
    size: int
    sections: Table | None = None
    note: str | None = None


def outline(model: Any, _answer: Any, _arguments: Any) -> Outline:
    """From `PaperOutlineResult` (below): its sections as one table."""
    rows = [[s.id, s.level, s.heading, s.offset, s.length] for s in model.sections]
    return Outline(
        paper=model.paper,
        title=model.title,
        size=model.size,
        sections=table_of(("id", "level", "heading", "offset", "length"), rows),
        note=model.note,
    )


def outline_text(record: Outline, _shown: Shown | None) -> str:
    """`Outline of <paper> (<size>):` then one indented line per section."""
    name = clean(record.title or record.paper)
    lines = [f"Outline of {name} ({clean(record.paper, 100)}, {format_size(record.size)}):"]
    for sid, level, heading, offset, length in record.sections.rows if record.sections else []:
        indent = "  " * max(level - 1, 0) if isinstance(level, int) else ""
        lines.append(f"{indent}- {sid} {clean(heading)} [offset {offset}, {format_size(length)}]")  # type: ignore[arg-type]
    if record.note:
        lines.append(clean(record.note, 1000))
    lines.append("Read one with read_paper_section(paper, section=<id>).")
    return "\n".join(lines)


# -- the reading tools' models (get_paper_outline, read_paper_section, cite_paper) --

# The models carry no docstrings or field descriptions on purpose: they would be
# repeated in every session's tools/list (the budget of issue 9 is 4,000 bytes for the
# three tools). What the fields mean: `offset`/`length` are UTF-8 byte positions in
# the whole Markdown, a length includes the subsections, `level` 0 is the text
# before the first heading, and `id` is what read_paper_section takes.


class OutlineSection(_Strict):
    id: str
    level: int
    heading: str
    offset: int
    length: int
    parent: str | None = None


class PaperOutlineResult(ToolOutput):
    paper: str
    title: str | None = None
    size: int
    sections: list[OutlineSection]
    note: str | None = None


class PaperSectionResult(ToolOutput):
    next_cursor: str | None = None  # first: clients that cut long results keep it
    paper: str
    section: OutlineSection
    truncated: bool
    next_heading: str | None = None  # where a cut section ends; null: the paper's end
    markdown: str


class CitationResult(ToolOutput):
    paper: str
    format: CitationFormat
    key: str
    citation: str
    in_catalog: bool = True


# -- projections --------------------------------------------------------------------------


def section_model(section: Any) -> OutlineSection:
    """The model of an `outline.Section` (its fields of the same names)."""
    return OutlineSection.model_validate(section, from_attributes=True)


def paper_outline(answer: Any, _arguments: Any = None) -> PaperOutlineResult:
    """From `sections.PaperOutline` (its bounded `sections`, with the note when cut)."""
    return PaperOutlineResult(
        paper=answer.paper,
        title=answer.title,
        size=answer.outline.size,
        sections=[section_model(section) for section in answer.sections],
        note=answer.note,
    )


def paper_section(answer: Any, _arguments: Any = None) -> PaperSectionResult:
    """From `sections.SectionRead`: its fields of the same names, the section's too."""
    return PaperSectionResult.model_validate(answer, from_attributes=True)


def citation(answer: Any, _arguments: Any = None) -> CitationResult:
    """From `citing.Citation`: its fields of the same names."""
    return CitationResult.model_validate(answer, from_attributes=True)


# -- text blocks --------------------------------------------------------------------------


def outline_model_text(result: PaperOutlineResult) -> str:
    """The text of the outline model (the hosted profile): its compact record's text."""
    return outline_text(outline(result, None, None), None)


def section_text(result: PaperSectionResult, _answer: Any = None) -> str:
    """The section's Markdown once, and when cut how much was shown and how to read on."""
    if not result.truncated or result.next_cursor is None:
        return result.markdown
    shown = format_size(len(result.markdown.encode()))
    end = (
        f"the section ends at the heading '{clean(result.next_heading)}', after which "
        "read_paper goes on into the next sections"
        if result.next_heading
        else "the section runs to the end of the paper"
    )
    return (
        f"{result.markdown}\n\n[Cut at max_bytes: {shown} of the section's "
        f"{format_size(result.section.length)} shown. To read on, call read_paper with the "
        f"same paper and cursor={result.next_cursor}; {end}.]"
    )


def citation_text(result: CitationResult, _answer: Any = None) -> str:
    """The citation document itself, each line through the sanitiser."""
    return printable_block(result.citation)
