"""The one sanitiser for text that goes into a message: caller input or catalog data.

Error sentences, notes and summaries quote things nobody here wrote: a paper
reference, a title from the catalog, the catalog's explanation of a 400, a
Retry-After header, a tool name. Before any of it is shown it goes through
`one_line`, so a message is always one line of printable text of bounded length:

    >>> one_line("line one\\nline\\ttwo\\x00\\u2028  three")
    'line one line two three'
    >>> one_line("x" * 10, 5, cut="…")
    'xxxx…'

Non-printable characters (controls, separators, format characters such as zero
width spaces: everything `str.isprintable` refuses) become spaces, every run of
blank space becomes one space, and the ends are trimmed. Text the catalog wrote
for people (the detail of a 400) keeps its own spacing with `fold=False`: each
non-printable character is then one space and nothing else moves. This module
imports nothing, so every layer can use it.
"""

from __future__ import annotations


def one_line(text: str, limit: int | None = None, *, cut: str = "", fold: bool = True) -> str:
    """`text` as one line of printable characters, at most `limit` characters long.

    A longer text is shortened to `limit` characters, the last of them `cut` when
    one is given (an ellipsis says "there was more"); `None` means no limit.
    `fold=False` keeps runs of spaces inside the text (see the module docstring).
    """
    printable = "".join(char if char.isprintable() else " " for char in text)
    flat = " ".join(printable.split()) if fold else printable.strip()
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - len(cut)].rstrip() + cut
