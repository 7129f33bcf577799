"""From a catalog body to a JSON document whose size and shape can be trusted.

`HttpCatalog.get_json` hands every successful JSON body to `parse_document`, which
applies four rules before any query or projection sees the document:

* **Valid UTF-8 JSON**, else `InvalidResponse` (Python's parser accepts `NaN` and
  `Infinity`; the serialisers downstream turn them into `null`).
* **No page longer than asked for.** When the request carried a page size
  (`page_size` or `limit`), the row lists (a bare array, `results`, `items`: where
  `envelopes.result_rows` looks) are cut to that many rows. A catalog that answers
  `page_size=5` with 180,000 rows therefore costs one parse, not 180,000 projected
  rows and a 30 MB answer. A listing fetched without a page size may have at most
  `UNPAGED_ROWS` rows.
* **Text is valid Unicode.** A lone surrogate escape (`"\\ud800"`) in a string
  becomes U+FFFD, so nothing downstream (the cache, the log, the answer) meets
  text that cannot be written as UTF-8.
* **At most `MAX_DEPTH` levels of nesting.** Real catalog documents nest a handful
  of levels; an 800-deep array where a title should be would otherwise reach the
  serialisers, which give up on it with a recursion error, i.e. a crash that looks
  like our bug. It is an unusable answer instead (`upstream_error:`).

Parsing a large body takes a long time for an event loop (json.loads needs over
100 ms for a 2 MiB page of 180,000 rows on a busy machine, holding the GIL all
along), so above `OFF_LOOP_BYTES` `HttpCatalog` runs `parse_document` in a worker
thread, and the document is parsed row by row (`_Splitter`): the event loop keeps
answering pings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from pwc_local.upstream.errors import InvalidResponse, NotJSON

MAX_DEPTH = 64
"""Deepest nesting accepted in a catalog document (the top level counts as 1)."""

OFF_LOOP_BYTES = 64 * 1024
"""Bodies larger than this are parsed in a worker thread, not on the event loop."""

UNPAGED_ROWS = 5_000
"""Most rows a listing fetched without a page size may have (conferences, organizations):
the real ones have hundreds. More is an unusable answer, refused before it is projected."""

ROW_KEYS = ("results", "items")
"""Where a list response keeps its rows (besides being a bare array)."""

PAGE_SIZE_PARAMS = ("page_size", "limit")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = json.JSONDecoder()
# JSON whitespace; `*` always matches, so the match is never None.
_space_match = cast(Callable[[str, int], "re.Match[str]"], re.compile(r"[ \t\n\r]*").match)


def page_size(params: Mapping[str, Any] | None) -> int | None:
    """The number of rows a request asked for, or `None` when it did not say."""
    for name in PAGE_SIZE_PARAMS:
        value = (params or {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def parse_document(body: bytes, *, max_rows: int | None = None) -> Any:
    """The JSON document in `body`, its row lists cut to `max_rows`, depth checked.

    >>> parse_document(b'{"results": [{"id": 1}, {"id": 2}]}', max_rows=1)
    {'results': [{'id': 1}]}
    """
    try:
        text = body.decode("utf-8")
        if len(body) > OFF_LOOP_BYTES:
            document = _Splitter(text, max_rows).document()
        else:
            document = _cut_rows(json.loads(text), max_rows)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotJSON("catalog returned invalid JSON") from exc
    _check_depth(document)
    if may_hold_surrogates(body):
        document = _mended(document)
    return document


def may_hold_surrogates(raw: bytes) -> bool:
    """Whether raw JSON contains a surrogate escape (`\\ud800`), paired or not.

    Raw bytes that are not UTF-8 fail decoding, so an escape is the only way a JSON
    text can produce a `str` that cannot be encoded as UTF-8 again.
    """
    return _SURROGATE_ESCAPE.search(raw) is not None


def _mended(value: Any) -> Any:
    """`value` with every lone surrogate replaced by U+FFFD (keys too).

    Such text cannot be written as UTF-8 (the cache, the log, a client expecting
    UTF-8 all fail on it), and it was never readable text. Recursion is safe here:
    the depth was checked first.
    """
    if isinstance(value, str):
        return value if is_encodable(value) else _replace_surrogates(value)
    if isinstance(value, list):
        return [_mended(item) for item in value]
    if isinstance(value, dict):
        return {_mended(key): _mended(item) for key, item in value.items()}
    return value


def is_encodable(text: str) -> bool:
    """Whether `text` can be encoded as UTF-8 (no lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _replace_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text)


def _cut_rows(document: Any, max_rows: int | None) -> Any:
    """The small-body path: parsed whole, then cut like `_Splitter` cuts while parsing."""
    if isinstance(document, list):
        return _bounded(document, max_rows)
    if isinstance(document, dict):
        for key in ROW_KEYS:
            rows = document.get(key)
            if isinstance(rows, list):
                document[key] = _bounded(rows, max_rows)
    return document


def _bounded(rows: list[Any], max_rows: int | None) -> list[Any]:
    if max_rows is None:
        if len(rows) > UNPAGED_ROWS:
            raise InvalidResponse("catalog listing has more rows than any real listing")
        return rows
    return rows[:max_rows]


class _Splitter:
    """Parses a large document one row at a time, so no single step holds the GIL long.

    `json.loads` is one C call: on a 2 MiB page of 180,000 rows it holds the GIL for
    100 ms or more, and no worker thread helps the event loop then. Here each row (and
    each other top-level value) is its own `raw_decode` call; between them the
    interpreter can switch to the event loop thread. Rows past `max_rows` are parsed
    to find the end of their list and dropped at once.
    """

    def __init__(self, text: str, max_rows: int | None) -> None:
        self.text = text
        self.at = 0
        self.max_rows = max_rows

    def document(self) -> Any:
        self._space()
        opener = self._peek()
        if opener == "[":
            document: Any = self._rows()
        elif opener == "{":
            document = self._object()
        else:
            document = self._value()
        self._space()
        if self.at != len(self.text):
            raise ValueError("data after the JSON document")
        return document

    def _object(self) -> dict[str, Any]:
        self.at += 1  # "{"
        members: dict[str, Any] = {}
        self._space()
        if self._peek() == "}":
            self.at += 1
            return members
        while True:
            self._space()
            if self._peek() != '"':
                raise ValueError("an object key must be a string")
            key = self._value()
            self._space()
            self._expect(":")
            self._space()
            if key in ROW_KEYS and self._peek() == "[":
                members[key] = self._rows()
            else:
                members[key] = self._value()
            self._space()
            if self._next_of(",}") == "}":
                return members

    def _rows(self) -> list[Any]:
        # The hot loop of a huge page: locals only, one raw_decode per row.
        text, decode, space = self.text, _DECODER.raw_decode, _space_match
        keep = UNPAGED_ROWS if self.max_rows is None else self.max_rows
        rows: list[Any] = []
        seen = 0
        at = space(text, self.at + 1).end()  # past "["
        if text.startswith("]", at):
            self.at = at + 1
            return rows
        while True:
            row, at = decode(text, at)
            seen += 1
            if seen <= keep:
                rows.append(row)
            elif self.max_rows is None:
                raise InvalidResponse("catalog listing has more rows than any real listing")
            at = space(text, at).end()
            char = text[at : at + 1]
            at = space(text, at + 1).end()
            if char == "]":
                self.at = at
                return rows
            if char != ",":
                raise ValueError("expected ',' or ']' in a row list")

    def _value(self) -> Any:
        value, self.at = _DECODER.raw_decode(self.text, self.at)
        return value

    def _space(self) -> None:
        self.at = _space_match(self.text, self.at).end()

    def _peek(self) -> str:
        return self.text[self.at : self.at + 1]

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise ValueError(f"expected {char!r}")
        self.at += 1

    def _next_of(self, chars: str) -> str:
        char = self._peek()
        if not char or char not in chars:
            raise ValueError(f"expected one of {chars!r}")
        self.at += 1
        return char


def _check_depth(document: Any) -> None:
    """Raise `InvalidResponse` when containers nest deeper than `MAX_DEPTH`.

    Iterative, so a hostile document cannot exhaust the Python stack here either.
    """
    if not isinstance(document, dict | list):
        return
    pending: list[tuple[Any, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value
        for child in children:
            if isinstance(child, dict | list):
                if depth >= MAX_DEPTH:
                    raise InvalidResponse("catalog response is nested too deeply")
                pending.append((child, depth + 1))
