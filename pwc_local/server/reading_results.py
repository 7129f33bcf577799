"""The answers of the reading tools: output models, projections and text blocks.

`get_paper_outline`, `read_paper_section` and `cite_paper` (declared in the contract
table, group `reading`) return these models as `structuredContent`. Their text blocks
are written for a model that reads only text: the outline as an indented list with
sizes (headings and title through the sanitiser), the section's Markdown once (not a
second JSON copy, as `read_paper` does), and the citation document itself.
"""

from __future__ import annotations

from typing import Any

from pwc_local.config import format_size
from pwc_local.contract import CitationFormat
from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.present.words import clean, printable_block

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


def outline_text(result: PaperOutlineResult, _answer: Any = None) -> str:
    """`Outline of <paper> (<size>): ` then one indented line per section."""
    size = format_size(result.size)
    lines = [f"Outline of {clean(result.title or result.paper)} ({clean(result.paper)}, {size}):"]
    for section in result.sections:
        indent = "  " * max(section.level - 1, 0)
        lines.append(
            f"{indent}- {section.id} {clean(section.heading)} "
            f"[offset {section.offset}, {format_size(section.length)}]"
        )
    if result.note:
        lines.append(result.note)
    lines.append("Read one with read_paper_section(paper, section=<id>).")
    return "\n".join(lines)


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
