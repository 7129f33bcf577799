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


def shown(text: str) -> str:
    """A reference or title as echoed in messages: one line, at most 200 characters.

    A longer one ends in `…`, so the reader knows it was cut.
    """
    return one_line(text, MAX_SHOWN_CHARS, cut="…")
