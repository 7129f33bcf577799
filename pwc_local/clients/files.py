"""Read and write client configuration files without ever leaving half a file.

Reading keeps what the installer must give back unchanged: a UTF-8 byte order mark
and the line-break style. Writing goes to a temporary file in the same directory that
is flushed to disk and then moved over the target with `os.replace`
(`private_files.write_file`: through a descriptor of the directory, never following a
link at the name), so a reader (or a crash) sees the old file or the new one, never a
mixture. The new file gets the old one's permission bits and, where we are allowed
to, its owner. A symlinked config that is yours (a dotfile manager's: a link you own,
in a directory no one else may write) is written through to its target rather than
replaced by a plain file; any other link, which someone else could have planted (in
a shared project directory, say), is refused with its path.
Before a change, the old file is copied to a dated `.bak` beside it; the three newest
copies are kept.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pwc_local.clients.errors import ClientConfigError
from pwc_local.private_files import POSIX, ROOT_UID, TargetRefused, trust_exposure, write_file


@dataclass(frozen=True)
class ConfigText:
    """A config file's text, with its byte order mark and line breaks remembered."""

    text: str
    bom: bool = False
    newline: str = "\n"

    def encode(self, text: str) -> bytes:
        """Encode new text the way the original file was encoded."""
        data = text.encode("utf-8")
        return codecs.BOM_UTF8 + data if self.bom else data


def read_config(path: Path) -> ConfigText | None:
    """The file's text, or `None` when it does not exist (a link: see `real_path`)."""
    try:
        data = real_path(path).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ClientConfigError(f"{path} is a directory, not a file") from None
    except OSError as exc:
        raise ClientConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClientConfigError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}); it was left unchanged"
        ) from None
    return ConfigText(text, bom, "\r\n" if "\r\n" in text else "\n")


def real_path(path: Path) -> Path:
    """Where writes to `path` must go: the target of a symlink of yours, else `path` itself.

    A link is yours when you (or root) own it and no one else may write its directory
    (a sticky one such as /tmp counts as shared here: others may plant links in it).
    Another link raises `ClientConfigError` naming it: it could lead to any file.
    """
    if not path.is_symlink():
        return path
    try:
        link, folder = os.lstat(path), os.stat(path.parent)
    except OSError as exc:
        raise ClientConfigError(f"cannot inspect {path}: {exc.strerror or exc}") from None
    shared = trust_exposure(folder, directory=True) is not None or (
        POSIX and bool(stat.S_IMODE(folder.st_mode) & stat.S_ISVTX)
    )
    if POSIX and (link.st_uid not in (os.geteuid(), ROOT_UID) or shared):
        raise ClientConfigError(
            f"{path} is a symbolic link that someone else could have made (its owner or its "
            "directory is not yours alone); it was not followed. Replace it with the file "
            "itself, or name the file it leads to with --file"
        )
    return Path(os.path.realpath(path))


BACKUPS_KEPT = 3
_STAMP = "%Y%m%d-%H%M%S"


def backup(path: Path, *, now: datetime | None = None, private: bool = False) -> Path:
    """Copy `path` to a dated `NAME.YYYYMMDD-HHMMSS.bak` beside it (atomically, same
    permissions, or 0600 when `private`), remove all but the newest `BACKUPS_KEPT`
    such copies, and return the new copy's path. Each change keeps its own copy
    instead of overwriting one."""
    source = real_path(path)
    stamp = (now or datetime.now()).strftime(_STAMP)
    target = source.with_name(f"{source.name}.{stamp}.bak")
    counter = 1
    while target.exists():  # two changes within one second
        counter += 1
        target = source.with_name(f"{source.name}.{stamp}-{counter}.bak")
    write_atomic(target, source.read_bytes(), like=source, private=private)
    for old in backups(source)[:-BACKUPS_KEPT]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target


def backups(path: Path) -> list[Path]:
    """The dated backups of `path`, oldest first."""
    source = real_path(path)
    pattern = re.compile(re.escape(source.name) + r"\.(\d{8}-\d{6})(?:-(\d+))?\.bak")
    found: list[tuple[str, int, Path]] = []
    try:
        candidates = list(source.parent.iterdir())
    except OSError:
        return []
    for candidate in candidates:
        match = pattern.fullmatch(candidate.name)
        if match:
            found.append((match.group(1), int(match.group(2) or 1), candidate))
    return [item[2] for item in sorted(found)]


def write_atomic(
    path: Path, data: bytes, *, like: Path | None = None, private: bool = False
) -> None:
    """Replace `path` with `data` in one step (`private_files.write_file`).

    Permissions (and owner, when permitted) are taken from `like`, or from `path`
    itself when it exists; a new file gets the usual mode for the process umask.
    `private` (the text carries a secret) makes it 0600 whatever it was. Missing
    parent directories are created. A link at `path` is followed only when it is
    yours (`real_path`); a link at the end of it is refused (`ClientConfigError`).
    """
    target = real_path(path)
    reference = like if like is not None else target
    try:
        info: os.stat_result | None = reference.stat()
    except FileNotFoundError:
        info = None
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(info.st_mode) if info else None
    owner = (info.st_uid, info.st_gid) if info is not None and hasattr(os, "chown") else None
    try:
        write_file(target, data, replace=True, mode=0o600 if private else mode, owner=owner)
    except TargetRefused as exc:
        raise ClientConfigError(str(exc)) from None
