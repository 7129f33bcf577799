"""Exported BibTeX read back with bibtexparser 2, the parser `library add --from` uses.

`entries(text)` fails the test when any block of `text` did not parse: bibtexparser 2
skips a broken block and carries on, so checking only the entries it found would let
a malformed export pass.
"""

from __future__ import annotations

from typing import Any

import bibtexparser


def entries(text: str) -> list[Any]:
    """Every entry of `text` (`entry["ID"]`, `entry["ENTRYTYPE"]`, `entry["title"]` ...)."""
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [block.error for block in library.failed_blocks]
    return list(library.entries)
