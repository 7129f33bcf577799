"""Parse JSON (or JSON with comments) and edit one object member in place.

Client configuration files belong to the person and to the application that owns
them, so an edit must change the member it is about and nothing else: not the
indentation, not the key order, not the comments in Zed's or VS Code's settings.
`JsonText` therefore keeps, for every object, the character span of each member, and
makes changes as small text replacements at those spans. Everything outside the
replaced span stays byte for byte as it was.

Two dialects are read:

* strict JSON (RFC 8259) for clients that parse with a plain JSON parser, where a
  comment would break the client itself and is reported as an error;
* JSONC, which also allows `//` and `/* */` comments and trailing commas, as
  editors based on VS Code and Zed do.

Every edit is checked before it is returned: the new text is parsed again and must
hold exactly the old values with the one intended change. An edit that fails this
check raises `UnsafeEdit` instead of returning text that would damage the file.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit

MAX_DEPTH = 200

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_LITERALS = {"true": True, "false": False, "null": None}
_BLANKS = re.compile(r"[ \t\r\n]*")


@dataclass
class Node:
    """A parsed value and its span `text[start:end]`."""

    start: int
    end: int
    value: Any


@dataclass
class Member:
    """One `"key": value` pair; `comma` is the offset of the comma after it, if any."""

    key: str
    key_start: int
    node: Node
    comma: int | None = None


@dataclass
class ObjectNode(Node):
    """An object; its closing brace is at `end - 1`."""

    members: list[Member] = field(default_factory=list)

    def find(self, key: str) -> list[Member]:
        """All members named `key`, in file order (the last one is the effective one)."""
        return [m for m in self.members if m.key == key]


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


class _Parser:
    def __init__(self, text: str, *, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0

    def fail(self, reason: str, offset: int | None = None) -> ConfigSyntaxError:
        line, column = _position(self.text, self.pos if offset is None else offset)
        return ConfigSyntaxError(reason, line, column)

    def skip(self) -> None:
        """Skip whitespace and, in JSONC, comments."""
        text = self.text
        while True:
            blanks = _BLANKS.match(text, self.pos)
            assert blanks is not None  # the pattern matches the empty string
            self.pos = blanks.end()
            if text.startswith(("//", "/*"), self.pos):
                if not self.comments:
                    raise self.fail("comments are not allowed in this file (plain JSON)")
                if text.startswith("//", self.pos):
                    newline = text.find("\n", self.pos)
                    self.pos = len(text) if newline < 0 else newline + 1
                else:
                    close = text.find("*/", self.pos + 2)
                    if close < 0:
                        raise self.fail("unterminated /* comment")
                    self.pos = close + 2
            else:
                return

    def document(self) -> Node | None:
        self.skip()
        if self.pos == len(self.text):
            return None
        node = self.value(0)
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the end of the JSON value")
        return node

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH} levels")
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        char = self.text[self.pos]
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        start = self.pos
        if char == '"':
            text = self.string()
            return Node(start, self.pos, text)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return Node(start, self.pos, json.loads(match.group()))
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return Node(start, self.pos, literal)
        raise self.fail(f"unexpected character {char!r}")

    def string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if not match:
            raise self.fail("invalid or unterminated string")
        self.pos = match.end()
        return json.loads(match.group())

    def expect(self, char: str, reason: str) -> None:
        if self.pos >= len(self.text) or self.text[self.pos] != char:
            raise self.fail(reason)
        self.pos += 1

    def object(self, depth: int) -> ObjectNode:
        node = ObjectNode(self.pos, self.pos, {})
        self.pos += 1
        self.skip()
        while not self._at("}"):
            if not self._at('"'):
                raise self.fail("expected a property name in double quotes")
            key_start = self.pos
            key = self.string()
            self.skip()
            self.expect(":", "expected ':' after the property name")
            self.skip()
            member = Member(key, key_start, self.value(depth + 1))
            node.members.append(member)
            node.value[key] = member.node.value
            self.skip()
            if self._at(","):
                member.comma = self.pos
                self.pos += 1
                self.skip()
                if self._at("}") and not self.comments:
                    raise self.fail("trailing comma before '}'", member.comma)
            elif not self._at("}"):
                raise self.fail("expected ',' or '}' after the property value")
        self.pos += 1
        node.end = self.pos
        return node

    def array(self, depth: int) -> Node:
        start = self.pos
        items: list[Any] = []
        self.pos += 1
        self.skip()
        while not self._at("]"):
            items.append(self.value(depth + 1).value)
            self.skip()
            if self._at(","):
                comma = self.pos
                self.pos += 1
                self.skip()
                if self._at("]") and not self.comments:
                    raise self.fail("trailing comma before ']'", comma)
            elif not self._at("]"):
                raise self.fail("expected ',' or ']' after the array item")
        self.pos += 1
        return Node(start, self.pos, items)

    def _at(self, char: str) -> bool:
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        return self.text[self.pos] == char


def loads(text: str, *, comments: bool = False) -> Any:
    """Parse `text` and return its value (`None` for an empty document)."""
    node = _Parser(text, comments=comments).document()
    return None if node is None else node.value


def _nest(path: Sequence[str], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def value_at(document: Any, path: Sequence[str]) -> Any:
    """The value at `path` in a parsed document, or `None` when a key along it is missing.

    Shared by the JSON and TOML editors, whose parsed documents are plain dicts.
    """
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


class JsonText:
    """A JSON or JSONC document whose top level is an object, editable in place.

    An empty file (or one holding only comments) counts as an empty object. Edits
    return new text and leave the instance unchanged.
    """

    def __init__(self, text: str, *, comments: bool = False, newline: str = "\n") -> None:
        self.text = text
        self.comments = comments
        self.newline = newline
        root = _Parser(text, comments=comments).document()
        if root is not None and not isinstance(root, ObjectNode):
            line, column = _position(text, root.start)
            raise ConfigSyntaxError("the top level must be a JSON object", line, column)
        self.root: ObjectNode | None = root
        self.indent_unit = _indent_unit(text)

    @property
    def value(self) -> dict[str, Any]:
        return {} if self.root is None else self.root.value

    def get(self, path: Sequence[str]) -> Any:
        """The value at `path`, or `None` when a key along it is missing."""
        return value_at(self.value, path)

    # -- edits --------------------------------------------------------------------------

    def set(self, path: Sequence[str], value: Any) -> str:
        """Text with `path` set to `value`, creating missing objects along the way."""
        if not path:
            raise ValueError("path must name at least one key")
        expected = copy.deepcopy(self.value)
        target = expected
        for key in path[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else target
        if not isinstance(target, dict):
            raise self._not_object(path)
        target[path[-1]] = value

        if self.root is None:
            new_text = self._fresh_document(_nest(path, value))
        else:
            new_text = self._set_in(self.root, list(path), value)
        return self._checked(new_text, expected)

    def remove(self, path: Sequence[str]) -> str:
        """Text without the member at `path`; the same text when it is absent."""
        container = self._object_at(path[:-1])
        if container is None:
            return self.text
        members = container.find(path[-1])
        if not members:
            return self.text
        if len(members) > 1:
            raise UnsafeEdit(
                f"the key {path[-1]!r} appears {len(members)} times in the same object; "
                "edit the file by hand"
            )
        expected = copy.deepcopy(self.value)
        target = expected
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return self._checked(self._remove_member(container, members[0]), expected)

    # -- helpers --------------------------------------------------------------------------

    def _not_object(self, path: Sequence[str]) -> UnsafeEdit:
        for depth in range(1, len(path)):
            if not isinstance(self.get(path[:depth]), dict | None):
                name = ".".join(path[:depth])
                return UnsafeEdit(f"{name!r} is not a JSON object; fix or remove it by hand")
        return UnsafeEdit("the file does not have the expected shape; edit it by hand")

    def _object_at(self, path: Sequence[str]) -> ObjectNode | None:
        node: Node | None = self.root
        for key in path:
            if not isinstance(node, ObjectNode):
                return None
            found = node.find(key)
            node = found[-1].node if found else None
        if node is not None and not isinstance(node, ObjectNode):
            raise self._not_object([*path, ""])
        return node

    def _checked(self, new_text: str, expected: dict[str, Any]) -> str:
        try:
            actual = loads(new_text, comments=self.comments)
        except ConfigSyntaxError:
            actual = None
        if actual != expected:
            raise UnsafeEdit("could not change the file without disturbing it; edit it by hand")
        return new_text

    def _fresh_document(self, value: Any) -> str:
        rendered = self._render(value, "") + self.newline
        if not self.text.strip():
            return rendered
        # Only comments so far: keep them above the new object.
        return self.text.rstrip() + self.newline + rendered

    def _render(self, value: Any, indent: str) -> str:
        text = json.dumps(value, indent=self.indent_unit, ensure_ascii=False)
        # json.dumps escapes newlines inside strings, so every real newline is layout.
        return text.replace("\n", self.newline + indent)

    def _set_in(self, node: ObjectNode, path: list[str], value: Any) -> str:
        key = path[0]
        found = node.find(key)
        if not found:
            return self._insert(node, key, _nest(path[1:], value))
        member = found[-1]
        if len(path) == 1:
            indent = _line_indent(self.text, member.key_start)
            new = self._render(value, indent)
            return self.text[: member.node.start] + new + self.text[member.node.end :]
        if not isinstance(member.node, ObjectNode):
            raise self._not_object(path)  # unreachable: set() checked the shape
        return self._set_in(member.node, path[1:], value)

    def _insert(self, node: ObjectNode, key: str, value: Any) -> str:
        text, nl = self.text, self.newline
        key_text = json.dumps(key, ensure_ascii=False) + ": "
        if not node.members:
            outer = _line_indent(text, node.start)
            inner = outer + self.indent_unit
            member = key_text + self._render(value, inner)
            close = node.end - 1
            between = text[node.start + 1 : close]
            if not between.strip():
                return _splice(text, [(node.start + 1, close, nl + inner + member + nl + outer)])
            if _starts_line(text, close):  # comments inside, closing brace on its own line
                start = _line_start(text, close)
                return _splice(text, [(start, start, inner + member + nl)])
            return _splice(text, [(close, close, nl + inner + member + nl + outer)])

        last = node.members[-1]
        anchor = last.comma + 1 if last.comma is not None else last.node.end
        if "\n" not in text[node.start : node.end]:
            # A one-line object stays on one line.
            compact = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
            comma_before = ", " if last.comma is None else " "
            return _splice(text, [(anchor, anchor, comma_before + key_text + compact)])
        first = node.members[0]
        if _starts_line(text, first.key_start):
            inner = _line_indent(text, first.key_start)
        else:
            inner = _line_indent(text, node.start) + self.indent_unit
        member = key_text + self._render(value, inner)
        edits: list[tuple[int, int, str]] = []
        if last.comma is None:
            edits.append((last.node.end, last.node.end, ","))
        # After a trailing `// comment` on the last member's line, not inside it.
        eol = _blank_to_eol(text, anchor, self.comments)
        at = anchor if eol is None else eol
        trailing = "," if last.comma is not None else ""  # keep a trailing-comma habit
        edits.append((at, at, nl + inner + member + trailing))
        return _splice(text, edits)

    def _remove_member(self, node: ObjectNode, member: Member) -> str:
        text = self.text
        index = node.members.index(member)
        end = member.comma + 1 if member.comma is not None else member.node.end
        if len(node.members) == 1:
            before = text[node.start + 1 : member.key_start]
            after = text[end : node.end - 1]
            if not before.strip() and not after.strip():
                return _splice(text, [(node.start + 1, node.end - 1, "")])
        own_line = _starts_line(text, member.key_start)
        eol = _blank_to_eol(text, end, self.comments)
        if member.comma is not None or index == 0:
            # The member goes with its own comma; whole lines when it has them to itself.
            if own_line and eol is not None:
                start = _line_start(text, member.key_start)
                return _splice(text, [(start, _after_newline(text, eol), "")])
            stop = end
            while stop < len(text) and text[stop] in " \t":
                stop += 1
            return _splice(text, [(member.key_start, stop, "")])
        # The last member without a trailing comma: the comma before it goes instead.
        previous = node.members[index - 1]
        assert previous.comma is not None  # only the last member lacks a comma
        if own_line and eol is not None:
            start = _line_start(text, member.key_start)
            # Take the line break before the member too, so no blank line remains.
            start -= 2 if text.startswith("\r\n", start - 2) else 1
            return _splice(text, [(previous.comma, previous.comma + 1, ""), (start, eol, "")])
        return _splice(text, [(previous.comma, member.node.end, "")])


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping `(start, end, replacement)` edits.

    Insertions at the same offset land in the order they are listed.
    """
    ordered = sorted(enumerate(edits), key=lambda item: (item[1][0], item[0]), reverse=True)
    for _, (start, end, replacement) in ordered:
        text = text[:start] + replacement + text[end:]
    return text


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _starts_line(text: str, offset: int) -> bool:
    return not text[_line_start(text, offset) : offset].strip()


def _line_indent(text: str, offset: int) -> str:
    line = text[_line_start(text, offset) : offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _blank_to_eol(text: str, offset: int, comments: bool) -> int | None:
    """Where `offset`'s line break starts, when only blanks (or, in JSONC, a `//`
    comment) follow `offset` on its line; `None` when something else follows."""
    pos = offset
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if comments and text.startswith("//", pos):
        newline = text.find("\n", pos)
        if newline < 0:
            return len(text)
        return newline - 1 if text[newline - 1] == "\r" else newline
    if pos == len(text) or text.startswith(("\n", "\r\n"), pos):
        return pos
    return None


def _after_newline(text: str, offset: int) -> int:
    if text.startswith("\r\n", offset):
        return offset + 2
    if text.startswith("\n", offset):
        return offset + 1
    return offset


def _indent_unit(text: str) -> str:
    """The file's indentation step: a tab, or the smallest run of leading spaces."""
    smallest = 0
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if not stripped or len(stripped) == len(line):
            continue
        if line[0] == "\t":
            return "\t"
        width = len(line) - len(line.lstrip(" "))
        if width and (not smallest or width < smallest):
            smallest = width
    return " " * (smallest if 0 < smallest <= 8 else 2)
