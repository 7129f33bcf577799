"""Reading lists for `library add --from FILE`: one reference per line, or a BibTeX file.

A file whose first non-blank character is `@` (after optional `%` comment lines) is
read as BibTeX: each entry contributes one reference, the first it has of

1. an arXiv ID: `eprint` (when `archivePrefix`/`eprinttype` is arXiv or absent and
   the value looks like an arXiv ID), an `arxiv`/`arxivid` field, or
   `arXiv:<id>` inside `journal`, `note` or `howpublished`;
2. a DOI: the `doi` field (a `https://doi.org/` prefix is removed);
3. a URL: the `url` field.

Entries with none of these are reported by key so the caller can say which were
skipped. `@comment`, `@preamble` and `@string` blocks are ignored. The parser is
deliberately small (fields in braces or quotes, nested braces, `#` concatenation
ignored): reading identifiers needs no more, and it avoids a dependency.

Any other file is a list: one reference per line; blank lines and lines starting
with `#` are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*[{(]")
_FIELD = re.compile(r"\s*([A-Za-z][\w\-:.]*)\s*=\s*")
_ARXIV = re.compile(r"(?:arxiv:\s*)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})", re.I)
_ARXIV_IN_TEXT = re.compile(r"arxiv[:\s]+(\d{4}\.\d{4,5}(?:v\d+)?)", re.I)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_IGNORED = frozenset({"comment", "preamble", "string"})


@dataclass
class ReadingList:
    """The references found, in file order, and the BibTeX keys that gave none."""

    references: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def parse_reading_list(text: str) -> ReadingList:
    """The references of a reading-list file (see the module docstring)."""
    if _looks_like_bibtex(text):
        return _from_bibtex(text)
    found = ReadingList()
    for line in text.splitlines():
        reference = line.strip()
        if reference and not reference.startswith("#"):
            found.references.append(reference)
    return found


def bibtex_entries(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """`(entry type, key, fields)` of every entry; field names lower-case, values unbraced."""
    entries: list[tuple[str, str, dict[str, str]]] = []
    position = 0
    while True:
        match = _ENTRY.search(text, position)
        if match is None:
            return entries
        kind = match.group(1).lower()
        opener = text[match.end() - 1]
        body, position = _balanced(text, match.end(), "(" if opener == "(" else "{")
        if kind in _IGNORED:
            continue
        key, _, rest = body.partition(",")
        entries.append((kind, key.strip(), _fields(rest)))


def entry_reference(fields: dict[str, str]) -> str | None:
    """The reference an entry's fields give (arXiv ID, else DOI, else URL), or `None`."""
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").lower()
    candidates = [fields.get("eprint", "")] if prefix == "arxiv" else []
    candidates += [fields.get(name, "") for name in ("arxiv", "arxivid", "arxiv_id")]
    for value in candidates:
        match = _ARXIV.fullmatch(value.strip())
        if match:
            return match.group(1)
    for name in ("journal", "note", "howpublished"):
        match = _ARXIV_IN_TEXT.search(fields.get(name, ""))
        if match:
            return match.group(1)
    doi = _DOI_PREFIX.sub("", fields.get("doi", "").strip())
    if doi:
        return doi
    url = fields.get("url", "").strip()
    return url or None


def _looks_like_bibtex(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        return stripped.startswith("@")
    return False


def _from_bibtex(text: str) -> ReadingList:
    found = ReadingList()
    for _kind, key, fields in bibtex_entries(text):
        reference = entry_reference(fields)
        if reference is None:
            found.skipped.append(key or "(entry without key)")
        elif reference not in found.references:
            found.references.append(reference)
    return found


def _balanced(text: str, start: int, opener: str = "{") -> tuple[str, int]:
    """The text up to the `opener` (brace or parenthesis) closing the one before `start`.

    Inside a parenthesised entry, parentheses within braces or quotes do not count.
    """
    depth = 1
    braces = 0
    quoted = False
    position = start
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if opener == "{":
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
        elif char == "{":
            braces += 1
        elif char == "}":
            braces = max(0, braces - 1)
        elif char == '"' and braces == 0:
            quoted = not quoted
        elif not quoted and braces == 0:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
        if depth == 0:
            return text[start:position], position + 1
        position += 1
    return text[start:], len(text)


def _fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    position = 0
    while position < len(body):
        match = _FIELD.match(body, position)
        if match is None:
            comma = body.find(",", position)
            if comma < 0:
                break
            position = comma + 1
            continue
        name = match.group(1).lower()
        value, position = _value(body, match.end())
        fields.setdefault(name, " ".join(value.split()))
        comma = body.find(",", position)
        position = len(body) if comma < 0 else comma + 1
    return fields


def _value(body: str, start: int) -> tuple[str, int]:
    if start >= len(body):
        return "", start
    opener = body[start]
    if opener == "{":
        inner, end = _balanced(body, start + 1)
        return inner.replace("{", "").replace("}", ""), end
    if opener == '"':
        end = start + 1
        depth = 0
        while end < len(body):
            char = body[end]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            elif char == '"' and depth == 0:
                break
            end += 1
        return body[start + 1 : end].replace("{", "").replace("}", ""), end + 1
    end = start
    while end < len(body) and body[end] not in ",}\n":
        end += 1
    return body[start:end].strip(), end
