"""How exactly a passage holds a query's words: the re-ranking of library search hits.

The full-text index stems words (FTS5's porter tokenizer), so "encodings" also
finds "encoder" and BM25 scores both alike. A reader who typed "position
encodings" wants the passage that says so first. `exact_ranker` gives each
candidate passage a rank that sorts before BM25:

| rank      | the passage holds                                          |
| --------- | ---------------------------------------------------------- |
| `(0, -n)` | the query as a phrase (two or more words, in order)        |
| `(1, -n)` | `n` of the query's words as written, not just their stems  |

Words compare as the index's tokenizer compares them: case folded, (Latin)
accents dropped, letters and digits only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

_COMBINING = re.compile("[\u0300-\u036f]")  # the combining diacritical marks


def exact_ranker(words: Sequence[str]) -> Callable[[str], tuple[int, int]]:
    """How exactly a text holds the query `words` (smaller is better), before BM25.

    The rank of a text is `(0, ...)` when it holds them as a phrase (two or more
    words in order, anything but letters and digits between), else `(1, ...)`; the
    second number is minus how many of the words it holds as written (case and
    accents aside), not just their stems.
    """
    wanted = [_folded(word) for word in words]
    singles = [re.compile(rf"(?<!\w){re.escape(word)}(?!\w)") for word in wanted]
    phrase = None
    if len(wanted) > 1:
        phrase = re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, wanted)) + r"(?!\w)")

    def rank(text: str) -> tuple[int, int]:
        folded = _folded(text)
        exact = sum(1 for single in singles if single.search(folded))
        whole = phrase is not None and exact == len(wanted) and phrase.search(folded) is not None
        return (0 if whole else 1, -exact)

    return rank


def _folded(text: str) -> str:
    """Case folded, (Latin) accents dropped: how the index's tokenizer compares words."""
    if text.isascii():
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text.casefold()))
