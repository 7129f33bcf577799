"""Reading: a chunk of a paper's Markdown (`read_paper`, cursor first) and its outline.

Clients cut long tool results (each its own way: a preview, the head and the tail),
and what they cut first is the end, so the record declares where the reader is and
how to go on (`next_cursor`, the byte range, whether more follows) before the
Markdown, and the text says the same in its first line.
"""

from __future__ import annotations

from typing import Any

from pwc_local.config import format_size
from pwc_local.present.hosted import PaperReadResult
from pwc_local.present.papers import links_line, links_of
from pwc_local.present.record import Record, Shown, Table, table_of
from pwc_local.present.words import clean


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
    return "\n\n".join(block for block in blocks if block)


class Outline(Record):
    paper: str
    title: str | None = None
    size: int
    sections: Table | None = None
    note: str | None = None


def outline(model: Any, _answer: Any, _arguments: Any) -> Outline:
    """From the outline model (`server.reading_results`): its sections as one table."""
    rows = [[s.id, s.level, s.heading, s.offset, s.length] for s in model.sections]
    return Outline(
        paper=model.paper,
        title=model.title,
        size=model.size,
        sections=table_of(("id", "level", "heading", "offset", "length"), rows),
        note=model.note,
    )


def outline_text(record: Outline, _shown: Shown) -> str:
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
