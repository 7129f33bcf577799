"""Read a TOML file and replace one table's text, leaving the rest byte-identical.

Codex keeps its MCP servers in `~/.codex/config.toml` as tables named
`[mcp_servers.NAME]`, with the environment in `[mcp_servers.NAME.env]`. The standard
library reads TOML but cannot write it, and a round trip through any writer would
lose the person's comments and layout. So `TomlText` finds the text regions of the
tables that belong to one entry (the entry's own table and its sub-tables) and
replaces or removes just those, appending a new entry at the end of the file.

As in `pwc_local.clients.jsonc`, every edit is verified by parsing the result: it
must equal the old document with exactly the intended change, otherwise
`UnsafeEdit` is raised. That catches the forms this module does not rewrite, such as
an entry written as an inline table or with dotted keys.
"""

from __future__ import annotations

import copy
import datetime
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit
from pwc_local.clients.jsonc import value_at

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
# A line with its ending. TOML lines end at "\n" alone; str.splitlines would also split
# at U+2028, U+0085 and other characters that strings and comments may hold.
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def loads(text: str) -> dict[str, Any]:
    """Parse TOML, turning the parser's error into a `ConfigSyntaxError` with a position."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _ERROR_AT.search(message)
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            reason = message[: match.start()].strip()
        else:  # "(at end of document)"
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
            reason = message.split(" (at ")[0].strip()
        raise ConfigSyntaxError(reason or "invalid TOML", line, column) from None


@dataclass(frozen=True)
class Table:
    """A `[header]` and the text it owns: `text[start:end]` up to its last content line.

    Comment and blank lines after the last key belong to whatever follows (they
    usually describe the next table), so they are outside the region.
    """

    keys: tuple[str, ...]
    start: int
    end: int


class TomlText:
    """A TOML document whose `[PREFIX.NAME]` tables can be replaced or removed."""

    def __init__(self, text: str, *, newline: str = "\n") -> None:
        self.text = text
        self.newline = newline
        self.value = loads(text)
        self.tables = _scan_tables(text)

    def get(self, path: tuple[str, ...]) -> Any:
        """The value at `path`, or `None` when a key along it is missing."""
        return value_at(self.value, path)

    def set_table(self, prefix: tuple[str, ...], name: str, entry: Mapping[str, Any]) -> str:
        """Text with table `prefix.name` replaced by `entry` (or appended when absent)."""
        expected = copy.deepcopy(self.value)
        container: Any = expected
        for key in prefix:
            container = container.setdefault(key, {}) if isinstance(container, dict) else None
        if not isinstance(container, dict):
            raise UnsafeEdit(f"{'.'.join(prefix)!r} is not a table; fix it by hand")
        container[name] = copy.deepcopy(dict(entry))

        rendered = render_table((*prefix, name), entry, self.newline)
        keys = (*prefix, name)
        text = _without_regions(self.text, keys, keep=1)
        regions = _regions(text, keys)
        if regions:
            start, end = regions[0]
            new_text = text[:start] + rendered + text[end:]
        else:
            new_text = self._append(rendered)
        return self._checked(new_text, expected)

    def remove_table(self, prefix: tuple[str, ...], name: str) -> str:
        """Text without table `prefix.name` and its sub-tables; unchanged when absent."""
        container = self.get(prefix)
        if not isinstance(container, dict) or name not in container:
            return self.text
        expected = copy.deepcopy(self.value)
        del self._container(expected, prefix)[name]
        # A parent table that only our headers created implicitly disappears with them.
        for depth in range(len(prefix), 0, -1):
            parent = prefix[:depth]
            explicit = any(t.keys == parent for t in self.tables)
            if self._container(expected, parent) or explicit:
                break
            del self._container(expected, parent[:-1])[parent[-1]]
        return self._checked(_without_regions(self.text, (*prefix, name), keep=0), expected)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _container(value: dict[str, Any], prefix: tuple[str, ...]) -> dict[str, Any]:
        for key in prefix:
            value = value[key]
        return value

    def _append(self, rendered: str) -> str:
        text = self.text
        if not text.strip():
            return rendered
        if not text.endswith("\n"):
            text += self.newline
        return text + self.newline + rendered

    def _checked(self, new_text: str, expected: dict[str, Any]) -> str:
        try:
            actual = loads(new_text)
        except ConfigSyntaxError:
            actual = None
        if actual != expected:
            raise UnsafeEdit(
                "the entry is written in a form this command does not rewrite "
                "(an inline table or dotted keys); edit the file by hand"
            )
        return new_text


def render_table(keys: tuple[str, ...], entry: Mapping[str, Any], newline: str = "\n") -> str:
    """The TOML text of a table: scalar and list keys first, then one sub-table per
    nested mapping (`[mcp_servers.NAME.env]`)."""
    header = ".".join(_key(k) for k in keys)
    lines = [f"[{header}]"]
    subtables: list[tuple[str, Mapping[str, Any]]] = []
    for key, value in entry.items():
        if isinstance(value, Mapping):
            subtables.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in subtables:
        lines.append("")
        lines.append(f"[{header}.{_key(key)}]")
        lines.extend(f"{_key(k)} = {_value(v)}" for k, v in value.items())
    return newline.join(lines) + newline


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    raise UnsafeEdit(f"cannot write a value of type {type(value).__name__} to TOML")


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _regions(text: str, keys: tuple[str, ...]) -> list[tuple[int, int]]:
    """Regions of the tables named `keys` or nested below it, in file order."""
    return [(t.start, t.end) for t in _scan_tables(text) if t.keys[: len(keys)] == keys]


def _without_regions(text: str, keys: tuple[str, ...], *, keep: int) -> str:
    """Remove the regions of `keys` and its sub-tables, last first, keeping `keep` of
    them at the front. Each removal rescans, so blank-line tidying sees the current text."""
    while True:
        regions = _regions(text, keys)
        if len(regions) <= keep:
            return text
        start, end = _removal_span(text, *regions[-1])
        text = text[:start] + text[end:]


def _removal_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a removed region over blank lines so that no double gap is left.

    At the end of the file the blank lines before the region go too; elsewhere the
    blank lines after it go when a blank line (or the file start) is before it.
    """
    if not text[end:].strip():
        while text[:start].endswith(("\n\n", "\r\n\r\n")):
            start -= 2 if text[:start].endswith("\r\n") else 1
        return start, len(text)
    if start and not text[:start].endswith(("\n\n", "\r\n\r\n")):
        return start, end
    while True:
        for blank in ("\r\n", "\n"):
            if text.startswith(blank, end):
                end += len(blank)
                break
        else:
            return start, end


def _scan_tables(text: str) -> list[Table]:
    """Find every `[table]` / `[[array]]` header and the content region it owns.

    A small scanner follows strings (including multi-line ones) and brackets, so a
    `[` that starts a line inside a multi-line array or string is not taken for a
    header. Header keys are decoded by the TOML parser itself.
    """
    scanner = _Scanner()
    tables: list[Table] = []
    current: tuple[tuple[str, ...], int] | None = None
    last_content_end = 0
    offset = 0
    for line in _LINE.findall(text):
        line_end = offset + len(line)
        if scanner.at_top_level() and line.lstrip(" \t").startswith("["):
            if current is not None:
                tables.append(Table(current[0], current[1], last_content_end))
            current = (_header_keys(line), offset)
            last_content_end = line_end
        elif scanner.scan(line):
            last_content_end = line_end
        offset = line_end
    if current is not None:
        tables.append(Table(current[0], current[1], last_content_end))
    return tables


def _header_keys(line: str) -> tuple[str, ...]:
    """Keys of a header line, decoded by parsing the header alone as a document."""
    try:
        document: Any = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return ()
    keys: list[str] = []
    while isinstance(document, dict) and len(document) == 1:
        key, document = next(iter(document.items()))
        keys.append(key)
        if isinstance(document, list):  # [[array.of.tables]]
            document = document[-1] if document else None
    return tuple(keys)


class _Scanner:
    """Tracks multi-line strings and open brackets across lines of TOML values."""

    def __init__(self) -> None:
        self.depth = 0
        self.multiline: str | None = None  # '"""' or "'''" while inside one

    def at_top_level(self) -> bool:
        return self.depth == 0 and self.multiline is None

    def scan(self, line: str) -> bool:
        """Consume one line; return whether it holds content (not blank or comment)."""
        content = self.multiline is not None or self.depth > 0
        i = 0
        while i < len(line):
            if self.multiline is not None:
                close = self._find_close(line, i, self.multiline)
                if close < 0:
                    return True
                i = close + 3
                self.multiline = None
                continue
            char = line[i]
            if char in " \t\r\n":
                i += 1
                continue
            if char == "#":
                break
            content = True
            if line.startswith(('"""', "'''"), i):
                self.multiline = line[i : i + 3]
                i += 3
            elif char == '"':
                i = self._skip_basic(line, i + 1)
            elif char == "'":
                close = line.find("'", i + 1)
                i = len(line) if close < 0 else close + 1
            else:
                if char in "[{":
                    self.depth += 1
                elif char in "]}":
                    self.depth = max(0, self.depth - 1)
                i += 1
        return content

    @staticmethod
    def _skip_basic(line: str, i: int) -> int:
        while i < len(line):
            if line[i] == "\\":
                i += 2
            elif line[i] == '"':
                return i + 1
            else:
                i += 1
        return i

    @staticmethod
    def _find_close(line: str, i: int, delimiter: str) -> int:
        while i < len(line):
            if delimiter == '"""' and line[i] == "\\":
                i += 2
                continue
            if line.startswith(delimiter, i):
                # Up to two quotes may sit just inside the closing delimiter.
                while line.startswith(delimiter, i + 1):
                    i += 1
                return i
            i += 1
        return -1
