"""Cut a paper's Markdown into searchable passages, each with its heading path and byte offset.

Full-text search answers with a *place* in a paper, not just a paper: the quote,
the section it sits in, and where `read_paper` should start to read on from there.
So the unit of the index is a passage: a run of whole paragraphs of roughly
`TARGET_BYTES`, never crossing a heading, tagged with

* `start`: the UTF-8 byte offset of its first byte in the document (what a
  `read_paper` cursor carries), always at the start of a line, so on a character
  boundary;
* `heading`: the path of headings it sits under, outermost first, joined with
  ` > ` (`"3 Model Architecture > 3.2 Attention"`); empty before the first heading.
  The paper's title (a level-1 heading equal to the `title` given) is left out of
  it: most papers open with their title as the one H1, and in every passage's
  path it would make every passage match the title's words. The title still
  counts once per paper, in the text of the passage its heading line opens.

Headings are ATX lines (`#` to `######` followed by a space). Lines inside fenced
code blocks (``` or ~~~) are never headings: a `# comment` in a code listing does
not open a section.

A document may arrive in pieces (the chunks of a cached read). `split_passages`
takes the byte offset the piece starts at and the heading path in force there, so
the passages of a piece carry absolute offsets; a passage never crosses the end
of its piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pwc_local.safe_text import one_line

TARGET_BYTES = 1200
MAX_BYTES = 4000
HEADING_SEPARATOR = " > "
ELLIPSIS = "…"

_HEADING = re.compile(rb"(#{1,6})[ \t]+(.*?)[ \t#]*\r?$")
_FENCE = re.compile(rb"[ ]{0,3}(`{3,}|~{3,})")


Headings = tuple[tuple[int, str], ...]
"""The open headings at some point of a document: `(level, text)` pairs, outermost first."""


@dataclass(frozen=True)
class Passage:
    """One indexed piece of a document (see the module docstring)."""

    start: int
    heading: str
    text: str


@dataclass(frozen=True)
class Split:
    """The passages of a piece, and the headings open at its end (for the next piece)."""

    passages: list[Passage]
    headings: Headings


def split_passages(text: str, *, base: int = 0, headings: Headings = (), title: str = "") -> Split:
    """The passages of `text`, which starts at byte `base` of its document under `headings`.

    `title` is the paper's title, left out of the heading paths (module docstring).

    Blank passages are dropped; every other byte of `text` belongs to exactly one
    passage, so concatenating the passages' texts in order gives `text` back minus
    blank runs between them.
    """
    data = text.encode("utf-8")
    stack: list[tuple[int, str]] = list(headings)
    passages: list[Passage] = []
    start = 0  # byte offset (in `data`) of the passage being collected
    in_fence: bytes | None = None
    position = 0

    named = _comparable(title)

    def flush(end: int) -> None:
        nonlocal start
        if end > start:
            body = data[start:end].decode("utf-8", errors="replace")
            if body.strip():
                passages.append(Passage(base + start, _path(stack, named), body))
        start = end

    while position < len(data):
        newline = data.find(b"\n", position)
        line_end = len(data) if newline < 0 else newline + 1
        line = data[position:line_end].rstrip(b"\n")
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            if in_fence is None:
                in_fence = marker[:1] * 3
            elif line.strip().startswith(in_fence):
                in_fence = None
        elif in_fence is None:
            match = _HEADING.match(line)
            if match:
                flush(position)
                level = len(match.group(1))
                while stack and stack[-1][0] >= level:
                    stack.pop()
                title = match.group(2).decode("utf-8", errors="replace").strip()
                stack.append((level, title))
            elif not line.strip() and position - start >= TARGET_BYTES:
                flush(line_end)  # a paragraph ended and the passage is long enough
        if line_end - start > MAX_BYTES and in_fence is None:
            flush(line_end)  # one enormous paragraph: cut it at a line end
        elif line_end - start > 2 * MAX_BYTES:
            flush(line_end)  # an enormous code block
        position = line_end
    flush(len(data))
    return Split(passages, tuple(stack))


def _path(stack: list[tuple[int, str]], title: str) -> str:
    """The heading path of `stack`, without a leading level-1 heading equal to `title`."""
    if title and stack and stack[0][0] == 1 and _comparable(stack[0][1]) == title:
        stack = stack[1:]
    return HEADING_SEPARATOR.join(text for _, text in stack)


def _comparable(text: str) -> str:
    return " ".join(text.split()).casefold()


def bounded_path(path: str, limit: int) -> str:
    """A heading path shown in at most `limit` characters, as one line.

    The innermost headings say most about a place, so the outer ones go first
    (`… > 3.2 Attention`), and a heading that alone is too long is cut with an
    ellipsis.
    """
    flat = one_line(path)
    if len(flat) <= limit:
        return flat
    lead = ELLIPSIS + HEADING_SEPARATOR
    parts = flat.split(HEADING_SEPARATOR)
    shown = one_line(parts[-1], limit - len(lead), cut=ELLIPSIS)
    for part in reversed(parts[:-1]):
        longer = part + HEADING_SEPARATOR + shown
        if len(lead) + len(longer) > limit:
            break
        shown = longer
    return lead + shown
