"""Plan and apply the change that adds, updates or removes our entry in a client config.

The work is split in two so `--dry-run` and the conflict check share one code path:

* `plan_install` / `plan_uninstall` read the file, parse it, and compute a `Change`:
  the action (`add`, `update`, `unchanged`, `conflict`, `remove`, `absent`) and the
  file's text before and after. They never write.
* `apply` writes a `Change` that has something to write: a `.bak` copy of the old
  file first, then the new text atomically, but only if the file still holds what
  was planned against (another program may have rewritten it meanwhile).

An entry that already exists is compared on the fields we manage (`command`, `args`,
`env` and the client's fixed fields); fields a person added to it, and every other
entry and key of the file, are kept.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pwc_local.clients.errors import ClientConfigError, ConfigSyntaxError, FileChanged, UnsafeEdit
from pwc_local.clients.files import ConfigText, backup, read_config, write_atomic
from pwc_local.clients.jsonc import JsonText
from pwc_local.clients.targets import ClientTarget
from pwc_local.clients.tomltables import TomlText
from pwc_local.clients.yamlblock import YamlText

Action = Literal["add", "update", "unchanged", "conflict", "remove", "absent"]
WRITING_ACTIONS = ("add", "update", "remove")


class ConfigDocument:
    """A parsed client config: its servers, and edits that return new text."""

    def __init__(self, target: ClientTarget, source: ConfigText | None) -> None:
        self.target = target
        self.source = source or ConfigText("")
        newline = self.source.newline
        text = self.source.text
        self._doc: JsonText | TomlText | YamlText
        if target.format == "toml":
            self._doc = TomlText(text, newline=newline)
        elif target.format == "yaml":
            self._doc = YamlText(text, newline=newline)
        else:
            self._doc = JsonText(text, comments=target.format == "jsonc", newline=newline)

    def servers(self) -> dict[str, Any]:
        """The servers object; `{}` when the key is absent, an error when it is not an object."""
        value = self._doc.get(self.target.container)
        if value is None:
            return {}
        if not isinstance(value, dict):
            key = ".".join(self.target.container)
            raise UnsafeEdit(f"{key!r} is not an object of servers; fix it by hand")
        return value

    def entry(self, name: str) -> dict[str, Any] | None:
        value = self.servers().get(name)
        if value is not None and not isinstance(value, dict):
            raise UnsafeEdit(f"the entry {name!r} is not an object; fix or remove it by hand")
        return value

    def with_entry(self, name: str, value: Mapping[str, Any]) -> str:
        if isinstance(self._doc, TomlText):
            return self._doc.set_table(self.target.container, name, value)
        return self._doc.set([*self.target.container, name], dict(value))

    def without_entry(self, name: str) -> str:
        if isinstance(self._doc, TomlText):
            return self._doc.remove_table(self.target.container, name)
        return self._doc.remove([*self.target.container, name])


def load_document(target: ClientTarget, path: Path) -> tuple[ConfigText | None, ConfigDocument]:
    """Read and parse `path`; syntax errors name the file, line and column."""
    source = read_config(path)
    try:
        return source, ConfigDocument(target, source)
    except ConfigSyntaxError as exc:
        raise exc.with_path(path) from None
    except UnsafeEdit as exc:
        raise UnsafeEdit(f"{path}: {exc}") from None


@dataclass(frozen=True)
class Change:
    """What installing or uninstalling would do to one file."""

    target: ClientTarget
    path: Path
    name: str
    action: Action
    source: ConfigText | None
    after: str
    # Our entry carries a secret: the file (and its backup) is written 0600.
    private: bool = False

    @property
    def before(self) -> str:
        return self.source.text if self.source else ""

    @property
    def writes(self) -> bool:
        return self.action in WRITING_ACTIONS

    def diff(self) -> str:
        """A unified diff of the file before and after, `""` when nothing changes."""
        if self.before == self.after:
            return ""
        old = self.before.splitlines()
        new = self.after.splitlines()
        label = str(self.path)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile=label if self.source else "/dev/null",
            tofile=label,
            lineterm="",
        )
        return "\n".join(lines) + "\n"


def same_entry(
    target: ClientTarget, existing: Mapping[str, Any], wanted: Mapping[str, Any]
) -> bool:
    """Whether the managed fields agree (a missing `args` or `env` counts as empty)."""
    defaults: dict[str, Any] = {"args": [], target.env_key: {}}
    return all(
        existing.get(key, defaults.get(key)) == wanted.get(key, defaults.get(key))
        for key in target.managed_keys
    )


def merge_entry(
    target: ClientTarget, existing: Mapping[str, Any], wanted: Mapping[str, Any]
) -> dict[str, Any]:
    """`existing` with the managed fields replaced by `wanted`, other fields kept in place."""
    merged: dict[str, Any] = {}
    for key, value in existing.items():
        if key not in target.managed_keys:
            merged[key] = value
        elif key in wanted:
            merged[key] = wanted[key]
    for key, value in wanted.items():
        merged.setdefault(key, value)
    return merged


def plan_install(
    target: ClientTarget,
    path: Path,
    name: str,
    wanted: Mapping[str, Any],
    *,
    force: bool,
    private: bool = False,
) -> Change:
    """The change that makes `name` hold `wanted` (a client-shaped entry); `private`:
    `wanted` carries a secret, so the file is to be written 0600."""
    change = _plan_install(target, path, name, wanted, force=force)
    return replace(change, private=private)


def _plan_install(
    target: ClientTarget, path: Path, name: str, wanted: Mapping[str, Any], *, force: bool
) -> Change:
    source, document = load_document(target, path)
    existing = _entry(document, path, name)
    if existing is None:
        return Change(
            target, path, name, "add", source, _edit(document.with_entry, path, name, wanted)
        )
    if same_entry(target, existing, wanted):
        return Change(target, path, name, "unchanged", source, document.source.text)
    merged = merge_entry(target, existing, wanted)
    after = _edit(document.with_entry, path, name, merged)
    return Change(target, path, name, "update" if force else "conflict", source, after)


def plan_uninstall(target: ClientTarget, path: Path, name: str) -> Change:
    """The change that removes `name` and nothing else."""
    source, document = load_document(target, path)
    if name not in _servers(document, path):
        return Change(target, path, name, "absent", source, document.source.text)
    return Change(target, path, name, "remove", source, _edit(document.without_entry, path, name))


def apply(change: Change) -> Path | None:
    """Write a planned change; return the backup's path (`None` for a new file)."""
    if not change.writes:
        return None
    current = read_config(change.path)
    if (current.text if current else None) != (change.source.text if change.source else None):
        raise FileChanged(
            f"{change.path} changed while we were editing it (is the client writing it?); "
            "run the command again"
        )
    saved = backup(change.path, private=change.private) if change.source is not None else None
    encoder = change.source or ConfigText("")
    write_atomic(change.path, encoder.encode(change.after), private=change.private)
    return saved


def _servers(document: ConfigDocument, path: Path) -> dict[str, Any]:
    try:
        return document.servers()
    except UnsafeEdit as exc:
        raise UnsafeEdit(f"{path}: {exc}") from None


def _entry(document: ConfigDocument, path: Path, name: str) -> dict[str, Any] | None:
    try:
        return document.entry(name)
    except UnsafeEdit as exc:
        raise UnsafeEdit(f"{path}: {exc}") from None


def _edit(operation: Callable[..., str], path: Path, *args: Any) -> str:
    try:
        return operation(*args)
    except ClientConfigError as exc:
        raise UnsafeEdit(f"{path}: {exc}") from None
