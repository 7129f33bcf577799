"""Read and change one top-level block of a YAML file: Goose's `extensions:`.

Goose keeps its MCP servers in `config.yaml`, one entry per extension under the
top-level `extensions` mapping, written by Goose itself in block style. No YAML
library is among our dependencies, and only that one block is ours to touch, so
this module understands just what is needed there:

* the file is split into top-level keys by their lines at column 0; every other
  top-level key's text is never parsed and never changed;
* inside `extensions`, block mappings and block sequences (indented or at the key's
  column, as Goose writes them) with scalars that are plain, single- or
  double-quoted, or flow collections in JSON notation; anything else (anchors, tags,
  `|` and `>` blocks, flow collections that are not JSON) is a `ConfigSyntaxError`
  naming the line, and the file is left alone;
* our entry is written as block keys whose values are JSON (`"..."`, `true`, `[]`,
  `{"K": "V"}`), which is YAML too.

As in the other editors, the result of every edit is parsed again and must hold
exactly the intended change, or `UnsafeEdit` is raised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit

_KEY = re.compile(r"""(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{\[][^:#]*?)\s*:(?:\s+|$)""")
_PLAIN_SPECIAL = {"true": True, "false": False, "null": None, "~": None, "": None}
_NUMBER = re.compile(r"[-+]?(\d+|\d*\.\d+)([eE][-+]?\d+)?")


class YamlText:
    """A YAML document of which only `container`'s block (one top-level key) is read."""

    def __init__(self, text: str, *, newline: str = "\n") -> None:
        self.text = text
        self.newline = newline
        self.lines = text.splitlines(keepends=True)
        for number, line in enumerate(self.lines, 1):
            if line.startswith("\t"):
                raise ConfigSyntaxError("YAML does not allow tabs for indentation", number, 1)

    def get(self, path: Sequence[str]) -> Any:
        if len(path) != 1:
            raise UnsafeEdit("only a top-level key can be read in a YAML file")
        span = self._block(path[0])
        if span is None:
            return None
        start, end, inline = span
        if inline is not None:
            return _scalar(inline, start + 1)
        return _parse(self._content(start + 1, end), 0)

    def set(self, path: Sequence[str], value: Any) -> str:
        key, name = self._split(path)
        current = self.get([key])
        if current is not None and not isinstance(current, dict):
            raise UnsafeEdit(f"{key!r} is not a mapping of extensions; fix it by hand")
        wanted = {**(current or {}), name: value}
        span = self._block(key)
        lines = list(self.lines)
        if span is None or span[2] is not None:  # no block yet, or `extensions: {}`
            if span is not None:
                del lines[span[0]]  # the `extensions: {}` line; what follows stays
                at = span[0]
            else:
                at = len(lines)
                if lines and not lines[-1].endswith(("\n", "\r")):
                    lines[-1] += self.newline
            block = [f"{key}:{self.newline}", *self._entry(name, value, 2)]
            lines[at:at] = block
        else:
            start, end, _ = span
            indent = self._child_indent(start, end)
            own = self._child(start, end, name, indent)
            entry = self._entry(name, value, indent)
            if own is None:
                last = end
                while last > start + 1 and not lines[last - 1].strip():
                    last -= 1  # after the last entry, before the blank lines
                lines[last:last] = entry
            else:
                lines[own[0] : own[1]] = entry
        return self._checked("".join(lines), key, wanted)

    def remove(self, path: Sequence[str]) -> str:
        key, name = self._split(path)
        current = self.get([key])
        span = self._block(key)
        if not isinstance(current, dict) or name not in current or span is None:
            return self.text
        start, end, _ = span
        own = self._child(start, end, name, self._child_indent(start, end))
        if own is None:
            raise UnsafeEdit(f"the entry {name!r} is not one block; remove it by hand")
        lines = list(self.lines)
        del lines[own[0] : own[1]]
        wanted = {k: v for k, v in current.items() if k != name}
        if not wanted:  # leave `extensions: {}` rather than a key holding null
            lines[start] = f"{key}: {{}}{self.newline}"
        return self._checked("".join(lines), key, wanted)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _split(path: Sequence[str]) -> tuple[str, str]:
        if len(path) != 2:
            raise UnsafeEdit("only an entry of a top-level key can be changed in a YAML file")
        return path[0], path[1]

    def _block(self, key: str) -> tuple[int, int, str | None] | None:
        """The lines of top-level `key` as (first, end, inline value or None)."""
        for index, line in enumerate(self.lines):
            match = _KEY.match(line)
            if line[:1] in (" ", "#", "\n", "\r", "-") or not match:
                continue
            if _unquote(match.group("key")) != key:
                continue
            end = index + 1
            while end < len(self.lines) and (
                self.lines[end][:1] in (" ", "\n", "\r", "#") or self.lines[end].startswith("- ")
            ):
                end += 1
            rest = _strip_comment(line[match.end() :]).strip()
            return index, end, rest or None
        return None

    def _content(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """(line number, indent, text) of the lines that hold something."""
        found = []
        for index in range(start, end):
            line = self.lines[index].rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            found.append((index + 1, len(line) - len(line.lstrip(" ")), line.strip()))
        return found

    def _child_indent(self, start: int, end: int) -> int:
        content = self._content(start + 1, end)
        return content[0][1] if content else 2

    def _child(self, start: int, end: int, name: str, indent: int) -> tuple[int, int] | None:
        """The lines of entry `name` (its key line through its last nested line)."""
        for index in range(start + 1, end):
            line = self.lines[index]
            match = _KEY.match(line[indent:]) if line[:indent].strip() == "" else None
            if not match or line[indent : indent + 1] == " ":
                continue
            if _unquote(match.group("key")) != name:
                continue
            last = index + 1
            while last < end:
                text = self.lines[last]
                depth = len(text) - len(text.lstrip(" "))
                if text.strip() and not text.lstrip().startswith("#") and depth <= indent:
                    break
                last += 1
            while last > index + 1 and not self.lines[last - 1].strip():
                last -= 1
            return index, last
        return None

    def _entry(self, name: str, value: Any, indent: int) -> list[str]:
        pad, nl = " " * indent, self.newline
        lines = [f"{pad}{json.dumps(name)}:{nl}" if _needs_quotes(name) else f"{pad}{name}:{nl}"]
        for key, item in value.items():
            lines.append(f"{pad}  {key}: {json.dumps(item, ensure_ascii=True)}{nl}")
        return lines

    def _checked(self, text: str, key: str, wanted: dict[str, Any]) -> str:
        after = YamlText(text, newline=self.newline)
        if after.get([key]) != wanted or after._others(key) != self._others(key):
            raise UnsafeEdit(f"could not change {key!r} without touching other text")
        return text

    def _others(self, key: str) -> list[str]:
        """The text outside `key`'s block, to prove an edit left it alone."""
        span = self._block(key)
        if span is None:
            return self.lines
        return self.lines[: span[0]] + self.lines[span[1] :]


def _parse(content: list[tuple[int, int, str]], at: int) -> Any:
    """A block mapping or sequence from `content` (all of it one node)."""
    if not content:
        return None
    number, indent, text = content[0]
    if text.startswith("- ") or text == "-":
        items = []
        index = 0
        while index < len(content):
            number, depth, text = content[index]
            if depth != indent or not (text.startswith("- ") or text == "-"):
                raise ConfigSyntaxError("a list item was expected here", number, depth + 1)
            nested = _take(content, index + 1, indent)
            rest = text[1:].strip()
            if rest and _KEY.match(rest):
                raise ConfigSyntaxError("mappings inside lists are not read here", number, 1)
            items.append(_scalar(rest, number) if rest else _parse(nested, indent))
            index += 1 + len(nested)
        return items
    mapping: dict[str, Any] = {}
    index = 0
    while index < len(content):
        number, depth, text = content[index]
        match = _KEY.match(text)
        if depth != indent or not match:
            raise ConfigSyntaxError("a `key: value` line was expected here", number, depth + 1)
        rest = _strip_comment(text[match.end() :]).strip()
        nested = _take(content, index + 1, indent, lists_here=not rest)
        if rest and nested:
            raise ConfigSyntaxError("a value and a nested block for one key", number, 1)
        value = _scalar(rest, number) if rest else _parse(nested, indent)
        mapping[_unquote(match.group("key"))] = value
        index += 1 + len(nested)
    return mapping


def _take(
    content: list[tuple[int, int, str]], start: int, indent: int, *, lists_here: bool = False
) -> list[tuple[int, int, str]]:
    """The lines nested under the one before `start`: deeper ones, and for a key with no
    value a list at its own column (`args:` then `- x`, as Goose writes it)."""
    end = start
    while end < len(content):
        _, depth, text = content[end]
        if depth > indent or (lists_here and depth == indent and text.startswith("-")):
            end += 1
            continue
        break
    return content[start:end]


def _scalar(text: str, number: int) -> Any:
    text = _strip_comment(text).strip()
    if text[:1] in '[{"':
        try:
            return json.loads(text)
        except ValueError:
            raise ConfigSyntaxError(
                "only JSON-style flow values are read here", number, 1
            ) from None
    if text[:1] == "'":
        if not text.endswith("'") or len(text) < 2:
            raise ConfigSyntaxError("an unterminated quoted string", number, 1)
        return text[1:-1].replace("''", "'")
    if text[:1] in ("&", "*", "!", "|", ">", "%", "@", "`"):
        raise ConfigSyntaxError(f"YAML's {text[:1]!r} is not read here", number, 1)
    if text in _PLAIN_SPECIAL:
        return _PLAIN_SPECIAL[text]
    if _NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    return text


def _strip_comment(text: str) -> str:
    """`text` without a trailing ` # comment` (outside quotes)."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            return text[:index]
    return text


def _unquote(key: str) -> str:
    key = key.strip()
    if key.startswith('"'):
        return str(json.loads(key))
    if key.startswith("'"):
        return key[1:-1].replace("''", "'")
    return key


def _needs_quotes(name: str) -> bool:
    return not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]*", name)
