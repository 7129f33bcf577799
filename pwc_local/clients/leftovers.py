"""What pwc-mcp-local keeps on disk besides its client entries, and removing it.

`uninstall --all` lists each item with the command that removes it; `--purge`
removes them. Only what the server itself makes is touched:

| item       | where                                   | what is removed                     |
| ---------- | --------------------------------------- | ----------------------------------- |
| cache      | the cache directory (`cache_dir`)       | the whole directory, but only when  |
|            |                                         | it holds nothing the cache did not  |
|            |                                         | make (`cache.db*`, its value        |
|            |                                         | folders `00`..`ff`, the server's    |
|            |                                         | `tools-list-*.json` snapshots)      |
| library    | the user data directory                 | `library.sqlite3` and its `-wal`,   |
|            |                                         | `-shm`, `-journal` files            |
| cursor key | the user configuration directory        | `cursor-key`, `cursor-key.previous` |
|            |                                         | and the rotation lock               |

A directory these leave empty is removed too. A cache directory pointed at a folder
that holds other files (`PWC_MCP_LOCAL_CACHE_DIR=~/Downloads`) is listed with the
reason and left alone. The settings file (`mcp-local.toml`) is a person's own: it is
named, never removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pwc_local.config import CONFIG_FILE_NAME, Settings, format_size, pwc_config_dir

# The cache's database, its value folders, `doctor`'s write probes and the server's
# `tools/list` snapshots (`server.listing.snapshot_path`, with their temporaries).
_CACHE_MADE = re.compile(
    r"cache\.db(-wal|-shm|-journal)?|[0-9a-f]{2}|\.doctor-.*"
    r"|tools-list-[0-9a-f]+(-[0-9a-f]+)?\.json(\.\d+\.tmp)?"
)
_LIBRARY_FILES = re.compile(r"library\.sqlite3(-wal|-shm|-journal)?")
_KEY_FILES = re.compile(r"cursor-key(\.previous)?|\.cursor-key\.lock")


# What an item holds that its name does not say: the library file is the watch list's too.
HOLDS = {"library": ("saved papers", "the watch list")}


@dataclass(frozen=True)
class Leftover:
    """One item left on disk: what it is, the paths `purge` deletes, their size, and
    why it cannot be removed automatically (`problem`), if so."""

    what: str
    where: Path
    paths: tuple[Path, ...]
    size: int
    problem: str | None = None

    def remove_command(self, windows: bool | None = None) -> str:
        """The shell command that removes this item by hand."""
        windows = os.name == "nt" if windows is None else windows
        paths = [str(path) for path in self.paths]
        if windows:
            return subprocess.list2cmdline(["Remove-Item", "-Recurse", "-Force", *paths])
        recursive = ["-r"] if any(path.is_dir() for path in self.paths) else []
        return shlex.join(["rm", *recursive, *paths])

    def describe(self) -> str:
        holds = f", {' and '.join(HOLDS[self.what])}" if self.what in HOLDS else ""
        return f"{self.where} ({format_size(self.size)}{holds})"


def find_leftovers(settings: Settings) -> list[Leftover]:
    """The cache, library and cursor key this account has, as far as they exist."""
    from pwc_local.store.keys import default_key_dir
    from pwc_local.store.library_db import default_library_dir

    found: list[Leftover] = []
    cache = settings.resolved_cache_dir()
    if cache.is_dir():
        others = sorted(p.name for p in cache.iterdir() if not _CACHE_MADE.fullmatch(p.name))
        problem = None
        if others:
            problem = (
                f"it also holds files the cache did not make ({', '.join(others[:3])}); "
                "remove the cache's own files by hand"
            )
        found.append(Leftover("cache", cache, (cache,), disk_size(cache), problem))
    library = _files(default_library_dir(), _LIBRARY_FILES)
    if library:
        found.append(Leftover("library", library[0], library, disk_size(*library)))
    key = _files(default_key_dir(), _KEY_FILES)
    if key:
        found.append(Leftover("cursor key", key[0], key, disk_size(*key)))
    return found


def settings_file(settings: Settings) -> Path | None:
    """The settings file in use or at its default place, if there is one."""
    path = settings.config_file or pwc_config_dir() / CONFIG_FILE_NAME
    return path if path.is_file() else None


def purge(leftovers: Iterable[Leftover]) -> list[str]:
    """Delete every item that has no `problem`; return a line per failure. Directories
    that are empty afterwards are removed as well, deepest first."""
    failures: list[str] = []
    emptied: set[Path] = set()
    for item in leftovers:
        if item.problem is not None:
            continue
        for path in item.paths:
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink(missing_ok=True)
            except OSError as exc:
                failures.append(f"could not remove {path}: {exc.strerror or exc}")
            emptied.add(path.parent)
    for directory in sorted(emptied, key=lambda d: len(d.parts), reverse=True):
        with contextlib.suppress(OSError):  # removed only when empty: the rest stays
            directory.rmdir()
    return failures


def _files(directory: Path, pattern: re.Pattern[str]) -> tuple[Path, ...]:
    try:
        names = sorted(p.name for p in directory.iterdir() if pattern.fullmatch(p.name))
    except OSError:  # no such directory
        return ()
    return tuple(directory / name for name in names)


def disk_size(*paths: Path) -> int:
    """Bytes in `paths`, directories counted with everything below them."""
    total = 0
    for path in paths:
        if path.is_dir():
            for root, _dirs, files in os.walk(path):
                total += sum(_file_size(Path(root) / name) for name in files)
        else:
            total += _file_size(path)
    return total


def _file_size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0
