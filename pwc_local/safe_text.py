"""The one sanitiser for text that goes into a message: caller input or catalog data.

Error sentences, notes and summaries quote things nobody here wrote: a paper
reference, a title from the catalog, the catalog's explanation of a 400, a
Retry-After header, a tool name. Before any of it is shown it goes through
`one_line`, so a message is always one line of printable text of bounded length:

    >>> one_line("line one\\nline\\ttwo\\x00\\u2028  three")
    'line one line two three'
    >>> one_line("x" * 10, 5, cut="…")
    'xxxx…'
    >>> one_line("\\x1b]0;pwned\\x07Title \\x1b[2Jhere")
    'Title here'

Terminal escape sequences go first, whole: a CSI (`ESC [ ... m`, `ESC [ 2 J`),
an OSC up to its terminator (`ESC ] 0 ; title BEL`, an OSC 8 link's target), DCS,
APC, PM and SOS strings, and two-character escapes, in their 7-bit and 8-bit (C1)
spellings. Dropping only the ESC byte would leave `]0;title` on the screen, and
what remains of the text is what a reader should see. Then non-printable
characters (controls, separators, format characters such as zero
width spaces: everything `str.isprintable` refuses) become spaces, every run of
blank space becomes one space, and the ends are trimmed. Text the catalog wrote
for people (the detail of a 400) keeps its own spacing with `fold=False`: each
non-printable character is then one space and nothing else moves. This module
imports nothing of the project, so every layer can use it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from typing import Any

# 7-bit and 8-bit spellings; an unterminated string runs to the end, as it would on
# a terminal. Sequence grammar: ECMA-48 (CSI parameters 0x30-0x3F, intermediates
# 0x20-0x2F, final 0x40-0x7E; strings end at BEL or ST).
MAX_SHOWN_CHARS = 200  # a reference or title echoed in a message or a command's line

_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)


def one_line(text: str, limit: int | None = None, *, cut: str = "", fold: bool = True) -> str:
    """`text` as one line of printable characters, at most `limit` characters long.

    A longer text is shortened to `limit` characters, the last of them `cut` when
    one is given (an ellipsis says "there was more"); `None` means no limit.
    `fold=False` keeps runs of spaces inside the text (see the module docstring).
    """
    if text.isprintable():  # the usual case: nothing to remove, checked at C speed
        printable = text
    else:
        stripped = _ESCAPES.sub("", text)
        printable = "".join(char if char.isprintable() else " " for char in stripped)
    flat = " ".join(printable.split()) if fold else printable.strip()
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - len(cut)].rstrip() + cut


# Structured results and `--json` output: catalog text as written, made printable and
# bounded (`printable_tree`). A Markdown chunk or section is at most 64 KiB.
MAX_FIELD_CHARS = 10_000  # a one-line string (a title, an abstract, a name)
MAX_BLOCK_CHARS = 65_536  # a string of several lines (Markdown, a citation)
_KEPT = frozenset("\t")  # Markdown's indentation; a line break is kept by the split


def printable(text: str) -> str:
    """Catalog text for a structured result: the same sanitiser, the text as written.

    Printable text within its bound is returned as it is (the hosted profile's bytes);
    otherwise escape sequences go whole and every other non-printable character (a
    control, a bidi override such as U+202E, a zero width space) becomes a space, line
    breaks and tabs kept (and a CR ending a line of several: CRLF Markdown), nothing
    folded or trimmed; then the length is bounded
    (`MAX_FIELD_CHARS` a line, `MAX_BLOCK_CHARS` several), the cut marked with `…`.
    """
    if len(text) <= MAX_FIELD_CHARS and text.isprintable():  # the usual case, at C speed
        return text
    several = "\n" in text
    limit = MAX_BLOCK_CHARS if several else MAX_FIELD_CHARS
    if several and len(text) <= limit and text.replace("\n", " ").isprintable():
        return text  # Markdown as usual: lines of printable text
    if several:
        kept = "\n".join(
            _printable_line(line[:-1]) + "\r" if line.endswith("\r") else _printable_line(line)
            for line in text.split("\n")
        )
    else:
        kept = _printable_line(text)
    return kept if len(kept) <= limit else kept[: limit - 1] + "…"


def _printable_line(line: str) -> str:
    if line.isprintable():
        return line
    stripped = _ESCAPES.sub("", line)
    return "".join(char if char.isprintable() or char in _KEPT else " " for char in stripped)


_SCALARS = (int, float, bool, type(None))


def printable_tree(document: Any) -> Any:
    """A copy of a JSON document with every string and key through `printable`."""
    if isinstance(document, str):
        return printable(document)
    if isinstance(document, dict):
        return {
            printable(key): value if isinstance(value, _SCALARS) else printable_tree(value)
            for key, value in document.items()
        }
    if isinstance(document, list):
        return [item if isinstance(item, _SCALARS) else printable_tree(item) for item in document]
    return document


def shown(text: str) -> str:
    """A reference or title as echoed in messages: one line, at most 200 characters.

    A longer one ends in `…`, so the reader knows it was cut.
    """
    return one_line(text, MAX_SHOWN_CHARS, cut="…")
