"""Read and write client configuration files without ever leaving half a file.

Reading keeps what the installer must give back unchanged: a UTF-8 byte order mark
and the line-break style. Writing goes to a temporary file in the same directory that
is flushed to disk and then moved over the target with `os.replace`, so a reader (or
a crash) sees the old file or the new one, never a mixture. The new file gets the old
one's permission bits and, where we are allowed to, its owner; a symlinked config
(dotfile managers do this) is written through to its target rather than replaced by a
plain file.
Before a change, the old file is copied to a dated `.bak` beside it; the three newest
copies are kept.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pwc_local.clients.errors import ClientConfigError


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
    """The file's text, or `None` when it does not exist."""
    try:
        data = path.read_bytes()
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
    """Where writes to `path` must go: the target of a symlink, else `path` itself."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


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
    """Replace `path` with `data` in one step.

    Permissions (and owner, when permitted) are taken from `like`, or from `path`
    itself when it exists; a new file gets the usual mode for the process umask.
    `private` (the text carries a secret) makes it 0600 whatever it was. Missing
    parent directories are created.
    """
    target = real_path(path)
    reference = like if like is not None else target
    try:
        info: os.stat_result | None = reference.stat()
    except FileNotFoundError:
        info = None
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; give the file its final mode before it becomes visible.
        mode = stat.S_IMODE(info.st_mode) if info else 0o666 & ~_umask()
        os.chmod(temp, 0o600 if private else mode)
        if info is not None and hasattr(os, "chown"):
            with contextlib.suppress(OSError):  # only root may give a file away
                if (info.st_uid, info.st_gid) != (os.stat(temp).st_uid, os.stat(temp).st_gid):
                    os.chown(temp, info.st_uid, info.st_gid)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _sync_directory(target.parent)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_directory(directory: Path) -> None:
    """Persist the rename itself (POSIX); harmless to skip where unsupported."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
