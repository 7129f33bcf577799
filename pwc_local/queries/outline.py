"""A paper's section tree, computed from its Markdown headings (pure logic, no I/O).

`parse_outline(markdown)` finds the headings the way a CommonMark renderer would and
turns them into sections a model can address:

* **ATX headings** (`#` to `######` followed by a space or the line end, at most three
  spaces of indentation; a closing run of `#` is dropped) and **setext headings** (a
  paragraph underlined by `===` for level 1 or `---` for level 2). Setext headings
  are rare in catalog Markdown, but a renderer shows them as headings, so they count.
* Lines inside **fenced code blocks** are never headings. A fence opens with three or
  more backticks or tildes (up to three spaces indented) and closes only with a run
  of the *same* character, at least as long as the opening one, and nothing else on
  the line; a fence that never closes runs to the end of the document.

Each section spans from the start of its heading line to the start of the next
heading of the same or a higher level (a smaller number), so a section includes its
subsections. Offsets and lengths are in **UTF-8 bytes**, the unit of `read_paper`'s
offsets. Text before the first heading is the *preamble*, a pseudo-section with
level 0 and ID `s0`; it is omitted when empty. The preamble plus the top-level
sections (those without a parent) tile the document exactly: read in order, they
reproduce it byte for byte. A document without headings is one section, `s1`,
spanning the whole text.

Section IDs are ordinal paths: `s2` is the second top-level section, `s2.3` the third
child of `s2`. They depend only on the heading structure, so they are stable across
calls for the same content version (and survive edits that leave the headings
alone); they are short, which matters in an outline of sixty sections.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

PREAMBLE_ID = "s0"
PREAMBLE_HEADING = "(text before the first heading)"
UNTITLED_HEADING = "(untitled document)"

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
# Lines that cannot be (part of) the paragraph a setext underline turns into a heading.
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[>|]|[-*+][ \t]|\d{1,9}[.)][ \t])|\s{4}")
# A heading's own number: 2, 2.1, 2.1., A.1, IV., (b), 3) ... and the space after it.
_NUMBERING = re.compile(
    r"(?:\d+(?:\.\d+)*\.?|[A-Za-z](?:\.\d+)+\.?|[A-Za-z][.)]|[IVXLCDM]+\.|\(\w{1,4}\))"
    r"(?:\s+|$)"
)
_PUNCTUATION = re.compile(r"[^\w]+|_")
_MARKERS = "#`~=-"  # what a line that may be a heading, underline or fence starts with
MAX_COMPARED_CHARS = 200  # of a heading, when looking for the closest to a name
CLOSE_ENOUGH = 0.6  # similarity (0..1) of a heading worth suggesting


@dataclass(frozen=True)
class Section:
    """One addressable part of a document.

    `offset` and `length` are UTF-8 byte positions in the whole document, `level` is
    1 to 6 for headings and 0 for the preamble, `parent` is the ID of the enclosing
    section (`None` at the top level) and `path` the headings from the top level down
    to this one.
    """

    id: str
    level: int
    heading: str
    offset: int
    length: int
    parent: str | None
    path: tuple[str, ...]

    @property
    def end(self) -> int:
        """The byte offset just past the section."""
        return self.offset + self.length


@dataclass(frozen=True)
class Outline:
    """A document's sections in document order, its byte size and its title.

    `title` is the text of the first level-1 heading, or `None` when there is none.
    """

    sections: tuple[Section, ...]
    size: int
    title: str | None

    def top_level(self) -> list[Section]:
        """The preamble (if any) and the sections without a parent: they tile the text."""
        return [section for section in self.sections if section.parent is None]

    def by_id(self, section_id: str) -> Section | None:
        """The section whose ID is `section_id` (surrounding space and case ignored)."""
        wanted = section_id.strip().casefold()
        return next((s for s in self.sections if s.id == wanted), None)

    def by_heading(self, heading: str) -> list[Section]:
        """Every section whose heading equals `heading`, ignoring case and spacing."""
        wanted = _comparable(heading)
        return [s for s in self.sections if s.level > 0 and _comparable(s.heading) == wanted]

    def by_name(self, name: str) -> list[Section]:
        """Every section whose heading is `name` as a person says it (`heading_name`).

        "Key ideas" names "2 Key ideas" and "2.1. Key Ideas:"; a name that ends with an
        ellipsis (a heading an answer cut short) names the headings it begins.
        """
        cut = name.rstrip().endswith(("…", "..."))
        wanted = heading_name(name.rstrip().rstrip(".…"))
        if not wanted:
            return []
        return [
            s
            for s in self.sections
            if s.level > 0
            and (
                heading_name(s.heading).startswith(wanted)
                if cut
                else heading_name(s.heading) == wanted
            )
        ]

    def by_start(self, name: str) -> list[Section]:
        """Every section whose heading, as a person names it, starts with the words `name`.

        "Appendix B" names "Appendix B — Multilingual results" (whole words only: not
        "Appendix Bx"), as a person cites a long heading by its first words.
        """
        wanted = heading_name(name)
        if not wanted:
            return []
        return [
            s
            for s in self.sections
            if s.level > 0 and f"{heading_name(s.heading)} ".startswith(f"{wanted} ")
        ]

    def closest(self, name: str, count: int) -> list[Section]:
        """Up to `count` sections whose headings are most like `name`, best first."""
        headed = (s for s in self.sections if s.level > 0)
        return closest(name, headed, lambda section: section.heading, count)


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str
    offset: int


def parse_outline(markdown: str) -> Outline:
    """The section tree of `markdown` (see the module docstring for the rules)."""
    headings, data_size = _headings(markdown)
    if not headings:
        whole = Section("s1", 1, UNTITLED_HEADING, 0, data_size, None, (UNTITLED_HEADING,))
        return Outline((whole,), data_size, None)
    sections: list[Section] = []
    if headings[0].offset > 0:
        sections.append(Section(PREAMBLE_ID, 0, PREAMBLE_HEADING, 0, headings[0].offset, None, ()))
    # stack of (level, id, path, child count) for the open ancestors of the next heading
    stack: list[tuple[int, str, tuple[str, ...]]] = []
    children: dict[str | None, int] = {}
    ends = _ends(headings, data_size)
    for index, heading in enumerate(headings):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        ordinal = children.get(parent, 0) + 1
        children[parent] = ordinal
        section_id = f"{parent}.{ordinal}" if parent else f"s{ordinal}"
        path = (stack[-1][2] if stack else ()) + (heading.text,)
        sections.append(
            Section(
                section_id, heading.level, heading.text, heading.offset,
                ends[index] - heading.offset, parent, path,
            )
        )  # fmt: skip
        stack.append((heading.level, section_id, path))
    title = next((h.text for h in headings if h.level == 1), None)
    return Outline(tuple(sections), data_size, title)


def _ends(headings: list[_Heading], size: int) -> list[int]:
    """Where each heading's section ends: at the next heading of its level or higher."""
    ends = [size] * len(headings)
    open_: list[int] = []  # indexes of headings whose end is not known yet
    for index, heading in enumerate(headings):
        while open_ and headings[open_[-1]].level >= heading.level:
            ends[open_.pop()] = heading.offset
        open_.append(index)
    return ends


def _headings(markdown: str) -> tuple[list[_Heading], int]:
    """The document's headings in order, with the byte offset of each heading's start,
    and the document's size in bytes.

    Offsets are counted in characters while scanning, then turned into UTF-8 bytes
    by encoding the text between consecutive headings once (not every line).
    """
    headings: list[_Heading] = []
    fence: tuple[str, int] | None = None  # (fence character, run length) while inside
    paragraph_start: int | None = None  # offset of the open paragraph's first line
    offset = 0
    # Lines end at "\n" only (a "\r" before it is dropped below); `str.splitlines`
    # would also break at U+2028, form feeds and the like, which Markdown does not.
    for line in markdown.split("\n"):
        start = offset
        offset += len(line) + 1
        content = line.rstrip("\r")
        if fence is not None:
            if _closes(content, fence):
                fence = None
            continue
        lead = content.lstrip(" ")[:1]
        if lead not in _MARKERS or not lead:
            # Most lines: no fence, ATX heading or setext underline can start so.
            if not content.strip():
                paragraph_start = None
            elif paragraph_start is None and not _NOT_PARAGRAPH.match(content):
                paragraph_start = start
            continue
        opened = _FENCE_OPEN.match(content)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = (opened.group(1)[0], len(opened.group(1)))
            paragraph_start = None
            continue
        atx = _ATX.match(content)
        if atx:
            text = _ATX_CLOSING.sub("", atx.group(2) or "").strip()
            headings.append(_Heading(len(atx.group(1)), text, start))
            paragraph_start = None
            continue
        underline = _SETEXT.match(content)
        if underline and paragraph_start is not None:
            level = 1 if underline.group(1)[0] == "=" else 2
            lines = markdown[paragraph_start:start].split("\n")[:-1]
            headings.append(_Heading(level, " ".join(p.strip() for p in lines), paragraph_start))
            paragraph_start = None
            continue
        if paragraph_start is None and not (_NOT_PARAGRAPH.match(content) or underline):
            paragraph_start = start  # not a quote, table, list item, code, thematic break
    return _in_bytes(markdown, headings)


def _in_bytes(markdown: str, headings: list[_Heading]) -> tuple[list[_Heading], int]:
    """`headings` (in document order) with character offsets turned into byte offsets,
    and the document's size in bytes (each character is encoded once)."""
    converted: list[_Heading] = []
    chars = size = 0
    for heading in headings:
        size += _utf8_size(markdown[chars : heading.offset])
        chars = heading.offset
        converted.append(_Heading(heading.level, heading.text, size))
    return converted, size + _utf8_size(markdown[chars:])


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _closes(line: str, fence: tuple[str, int]) -> bool:
    """Whether `line` closes a fence of `fence[1]` or more `fence[0]` characters."""
    char, length = fence
    stripped = line.strip()
    if len(line) - len(line.lstrip(" ")) > 3 or len(stripped) < length:
        return False
    return stripped == char * len(stripped)


def _comparable(text: str) -> str:
    return " ".join(text.split()).casefold()


def closest(name: str, candidates: Iterable[T], label: Callable[[T], str], count: int) -> list[T]:
    """Up to `count` of `candidates` whose labels are most like `name`, best first.

    The one fuzzy match for names a caller misspelt: section headings here, benchmark
    and task names in `lookup.closest_known`. Labels are compared as people name them
    (`heading_name`), by string similarity or the share of `name`'s words they hold,
    whichever is higher; below `CLOSE_ENOUGH` a label is not suggested. Ties keep the
    candidates' order.
    """
    wanted = heading_name(name)[:MAX_COMPARED_CHARS]
    words = set(wanted.split())
    scored: list[tuple[float, int, T]] = []
    for index, candidate in enumerate(candidates):
        have = heading_name(label(candidate))[:MAX_COMPARED_CHARS]
        matcher = difflib.SequenceMatcher(None, wanted, have)
        shared = len(words & set(have.split())) / max(len(words), 1)
        if shared == 0 and matcher.real_quick_ratio() < CLOSE_ENOUGH:
            continue
        score = max(matcher.ratio(), shared)
        if score >= CLOSE_ENOUGH:
            scored.append((-score, index, candidate))
    scored.sort(key=lambda item: item[:2])
    return [candidate for _score, _index, candidate in scored[:count]]


def heading_name(text: str) -> str:
    """A heading as a person names it: without its number, punctuation, case or spacing.

    `"2.1. Key Ideas:"`, `"IV. Key ideas"`, `"A.2 Key-ideas"` and `"key ideas"` all give
    `"key ideas"`. Numbering is a leading run of section numbers (`2`, `2.1.`, `A.1`,
    `IV.`, `(b)`); a word such as the "A" of "A Simple Method" stays.
    """
    words = _PUNCTUATION.sub(" ", _NUMBERING.sub("", text.strip(), count=1)).split()
    return " ".join(words).casefold()
