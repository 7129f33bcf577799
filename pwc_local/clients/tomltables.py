"""Read a TOML file and change one table in it, leaving the rest as it was.

Codex keeps its MCP servers in `~/.codex/config.toml` as tables named
`[mcp_servers.NAME]`, with the environment in `[mcp_servers.NAME.env]`. The standard
library reads TOML but cannot write it, so edits go through tomlkit, whose document
remembers every comment, blank line and spelling and writes back only what changed.

* A new entry becomes `[mcp_servers.NAME]` (and `.env`) after the last server, one
  blank line above it.
* An existing entry is edited in place, in the form it is written in (a table, dotted
  keys, an inline table): a value that stays the same keeps its text and comments, a
  new key goes after the entry's last key, a new `env` becomes its `[...env]` table
  (an inline table among dotted keys).
* Removing an entry removes its tables and the blank lines that would be left doubled.

One rule about ownership is ours, not tomlkit's: comment and blank lines after a
table's last key belong to the header below them (they usually describe it), so a
key added to our table goes above them and removing our table keeps them.
`_gaps_to_headers` moves them into the next header's indent (the text tomlkit writes
before the `[`) before any edit; the text stays the same.

The standard library's parser stays the reader: it is the strict one and its errors
give the line and column. As in `pwc_local.clients.jsonc`, every edit is verified by
parsing the result: it must equal the old document with exactly the intended change,
otherwise `UnsafeEdit` is raised. tomlkit is imported only when an edit is made.
"""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit
from pwc_local.clients.jsonc import value_at

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

if TYPE_CHECKING:
    from tomlkit import TOMLDocument
    from tomlkit.items import Table

_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
# A line with its ending. TOML lines end at "\n" alone; str.splitlines would also split
# at U+2028, U+0085 and other characters that comments may hold.
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


class TomlText:
    """A TOML document whose `[PREFIX.NAME]` tables can be replaced or removed.

    `newline` is the file's line break; new lines are written with it.
    """

    def __init__(self, text: str, *, newline: str = "\n") -> None:
        self.text = text
        self.newline = newline
        self.value = loads(text)

    def get(self, path: tuple[str, ...]) -> Any:
        """The value at `path`, or `None` when a key along it is missing."""
        return value_at(self.value, path)

    def set_table(self, prefix: tuple[str, ...], name: str, entry: Mapping[str, Any]) -> str:
        """Text with table `prefix.name` holding `entry` (added when absent)."""
        expected = copy.deepcopy(self.value)
        container: Any = expected
        for key in prefix:
            container = container.setdefault(key, {}) if isinstance(container, dict) else None
        if not isinstance(container, dict):
            raise UnsafeEdit(f"{'.'.join(prefix)!r} is not a table; fix it by hand")
        container[name] = copy.deepcopy(dict(entry))

        def edit(document: TOMLDocument, headers: list[_Header]) -> None:
            import tomlkit
            from tomlkit.items import InlineTable, Table

            servers: Any = document
            for key in prefix:
                if key not in servers:
                    _add(servers, key, tomlkit.table(is_super_table=True))
                    servers[key].trivia.indent = ""  # the blank line is our header's
                servers = servers[key]
            current = servers.get(name)
            if isinstance(current, Table):
                _update(current, entry)
                return
            inline = isinstance(servers, InlineTable) or isinstance(current, InlineTable)
            table = _table(entry, inline=inline)
            if current is not None:
                servers[name] = table
                return
            if not inline and self.text.strip():
                table.trivia.indent = "\n"  # one blank line above the new header
            _add(servers, name, table)

        return self._edited(edit, expected)

    def remove_table(self, prefix: tuple[str, ...], name: str) -> str:
        """Text without table `prefix.name` and its sub-tables; unchanged when absent."""
        container = self.get(prefix)
        if not isinstance(container, dict) or name not in container:
            return self.text
        expected = copy.deepcopy(self.value)
        path = (*prefix, name)

        def edit(document: TOMLDocument, headers: list[_Header]) -> None:
            from tomlkit.items import Table

            ours = [i for i, header in enumerate(headers) if header.keys[: len(path)] == path]
            below, gap = None, ""
            if ours:
                first = headers[ours[0]]
                below = headers[ours[-1] + 1] if ours[-1] + 1 < len(headers) else None
                gap = _joined_gap(
                    first.table.trivia.indent,
                    below.table.trivia.indent if below else None,
                    at_start=not first.after_content,
                )
            tables: list[Any] = [document]
            for key in prefix:
                tables.append(tables[-1][key])
            del tables[-1][name]
            # A parent table that only our headers created implicitly goes with them.
            for depth in range(len(prefix), 0, -1):
                parent = tables[depth]
                if parent or not (isinstance(parent, Table) and parent.is_super_table()):
                    break
                del tables[depth - 1][prefix[depth - 1]]
                del _table_at(expected, prefix[: depth - 1])[prefix[depth - 1]]
            if below is not None:
                below.table.trivia.indent = gap
            elif gap:  # comments above our table at the end of the file stay
                import tomlkit

                for _, item in tomlkit.parse(gap).body:
                    document.add(item)

        del _table_at(expected, prefix)[name]
        return self._edited(edit, expected)

    def _edited(
        self, edit: Callable[[TOMLDocument, list[_Header]], None], expected: dict[str, Any]
    ) -> str:
        """Apply `edit` to the file's tomlkit document and return the new text, checked.

        tomlkit writes new lines as "\\n"; a file whose every line ends in "\\r\\n" is
        edited with "\\n" and turned back, so that new lines match the old ones.
        """
        import tomlkit
        from tomlkit.exceptions import TOMLKitError

        crlf = self.newline == "\r\n" and self.text.count("\n") == self.text.count("\r\n")
        text = self.text.replace("\r\n", "\n") if crlf else self.text
        try:
            document = tomlkit.parse(text)
            headers = _gaps_to_headers(document)
            if document.as_string() != text:
                raise UnsafeEdit("tomlkit does not write this file back as it was")
            edit(document, headers)
            new_text = document.as_string()
        except (TOMLKitError, ValueError) as exc:  # tomlkit's ParseError is a ValueError
            raise UnsafeEdit(f"cannot rewrite this file ({exc}); edit it by hand") from None
        if crlf:
            new_text = new_text.replace("\n", "\r\n")
        try:
            actual = loads(new_text)
        except ConfigSyntaxError:
            actual = None
        if actual != expected:
            raise UnsafeEdit(
                "the entry is written in a form this command does not rewrite; "
                "edit the file by hand"
            )
        return new_text


def _table_at(value: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path:
        value = value[key]
    return value


def _table(entry: Mapping[str, Any], *, inline: bool) -> Any:
    """`entry` as a tomlkit table: inline (`{ ... }`), or a `[header]` table whose
    nested mappings are sub-tables (`[mcp_servers.NAME.env]`)."""
    import tomlkit

    table: Any = tomlkit.inline_table() if inline else tomlkit.table()
    for key, value in entry.items():
        table[key] = _table(value, inline=inline) if isinstance(value, Mapping) else value
    return table


def _update(table: Table, entry: Mapping[str, Any]) -> None:
    """Make `table` hold `entry`, touching only the keys whose value changes.

    A mapping the table lacks becomes a sub-table below a `[header]` table, and an
    inline table in one written with dotted keys (tomlkit cannot add a sub-table there).
    """
    from tomlkit.items import Table

    for key in [key for key in table if key not in entry]:
        del table[key]
    for key, value in entry.items():
        current = table.get(key)
        if isinstance(value, Mapping) and isinstance(current, Table):
            _update(current, value)
        elif _same(current, value):
            continue
        elif current is not None:  # a changed value; a changed inline table stays inline
            table[key] = _table(value, inline=True) if isinstance(value, Mapping) else value
        elif isinstance(value, Mapping) and not table.is_super_table():
            sub = _table(value, inline=False)
            sub.trivia.indent = "\n"  # a blank line above `[...env]`, as in a new entry
            _add(table, key, sub)
        else:
            _add(table, key, _table(value, inline=True) if isinstance(value, Mapping) else value)


def _add(parent: Any, key: str, value: Any) -> None:
    """Add a new `key`, indented like the parent's `[header]` line as tomlkit would, but
    not like the comments that `_gaps_to_headers` moved above that line."""
    import tomlkit
    from tomlkit.items import Table

    if not isinstance(parent, Table):  # the document, or an inline table
        parent[key] = value
        return
    item = tomlkit.item(value)
    item.trivia.indent += parent.trivia.indent.rpartition("\n")[2]
    parent.raw_append(key, item)


def _same(item: Any, value: Any) -> bool:
    """Whether a tomlkit item stands for `value` (`1` is not `true`)."""
    plain = item.unwrap() if hasattr(item, "unwrap") else item
    return type(plain) is type(value) and plain == value


@dataclass(frozen=True)
class _Header:
    """A `[header]` table, in file order; `after_content` when a key or header is above it."""

    keys: tuple[str, ...]
    table: Table
    after_content: bool


def _gaps_to_headers(document: TOMLDocument) -> list[_Header]:
    """Move comment and blank lines that follow a table's last key into the indent of
    the header below them, and list the `[header]` tables in file order."""
    from tomlkit.items import Comment, Null, Table, Whitespace

    headers: list[_Header] = []
    gap: list[tuple[list[Any], int]] = []  # (body, index) of the lines since the last key
    content = False

    def walk(body: list[Any], keys: tuple[str, ...]) -> None:
        nonlocal content
        for index, (key, item) in enumerate(body):
            if key is None:
                if isinstance(item, Whitespace | Comment):
                    gap.append((body, index))
                continue
            if isinstance(item, Table) and not item.is_super_table():
                moved = "".join(owner[i][1].as_string() for owner, i in gap)
                for owner, i in gap:
                    owner[i] = (None, Null())
                gap.clear()
                item.trivia.indent = moved + item.trivia.indent
                headers.append(_Header((*keys, key.key), item, content))
                content = True
            if isinstance(item, Table):  # a header's body, or dotted keys / a super table
                walk(item.value.body, (*keys, key.key))
            else:  # a key, or an array of tables, which keeps its own layout
                gap.clear()
                content = True

    walk(document.body, ())
    return headers


def _joined_gap(above: str, below: str | None, *, at_start: bool) -> str:
    """What stays of the lines above a removed table (`above`) and above the header
    below it (`below`, `None` at the end of the file): the comments of both, without a
    doubled blank line, a blank first line, or blank lines at the end of the file."""
    kept = [line for line in _LINE.findall(above) if line.endswith("\n")]  # not our indent
    if below is None:
        while kept and not kept[-1].strip():
            kept.pop()
        return "".join(kept)
    rest = _LINE.findall(below)
    if (at_start and not "".join(kept).strip()) or (kept and not kept[-1].strip()):
        while rest and rest[0].endswith("\n") and not rest[0].strip():
            rest.pop(0)
    return "".join(kept) + "".join(rest)
