"""Private files on disk: 0700 directories, 0600 files, opened without following links.

One set of checks for everything this app keeps for its user alone: the cursor key
(`keys`) and the library database (`library_db`: the library, the watch list and
the vocabulary). A directory or file is private when it is no symbolic link, of the
right type, owned by the current user and closed to group and others; `exposure`
says which of those fails. How a refusal is worded (the error type, what the file
is called, the fix) stays with the caller, whose messages name the file and say how
to repair it.

Windows has no POSIX modes or `O_NOFOLLOW`: owner and mode are not checked there
(the per-user profile folder's ACL keeps others out), and `open_private` refuses a
symbolic link by a check before it opens.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

POSIX = os.name == "posix"
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

# `Exposure.kind`: why a path is not private.
LINK = "link"  # a symbolic link
WRONG_TYPE = "wrong type"  # not a directory (or not a regular file)
FOREIGN = "foreign"  # owned by another user (`Exposure.uid`)
OPEN = "open"  # group or others may use it (`Exposure.mode`)


@dataclass(frozen=True)
class Exposure:
    """Why a directory or file is not private: `kind` (above), with its owner and mode."""

    kind: str
    uid: int
    mode: int


class NotPrivate(Exception):
    """`open_private` refused a file; `exposure` says why, for the caller to word."""

    def __init__(self, exposure: Exposure) -> None:
        super().__init__(exposure.kind)
        self.exposure = exposure


def make_private_dir(directory: Path) -> None:
    """Create `directory` 0700 (its parents as usual) unless it exists; `OSError` goes up."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # another process was first, or it was there
        os.mkdir(directory, 0o700)


def exposure(st: os.stat_result, *, directory: bool) -> Exposure | None:
    """Why the directory (or regular file) `st` describes is not private, or `None`.

    Checked in this order: a symbolic link (`st` from `lstat`), the type, then on
    POSIX the owner and the group/other mode bits.
    """
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return Exposure(LINK, st.st_uid, mode)
    if not (stat.S_ISDIR(st.st_mode) if directory else stat.S_ISREG(st.st_mode)):
        return Exposure(WRONG_TYPE, st.st_uid, mode)
    if not POSIX:
        return None
    if st.st_uid != os.geteuid():
        return Exposure(FOREIGN, st.st_uid, mode)
    return Exposure(OPEN, st.st_uid, mode) if mode & 0o077 else None


def open_private(path: Path, flags: int) -> int:
    """Open the file `path` without following a link, and check it is private; the fd.

    `flags` (`os.O_RDONLY`, `os.O_RDWR | os.O_CREAT`, ...) get `O_NOFOLLOW`,
    `O_CLOEXEC` and `O_NONBLOCK` (a FIFO planted at the path cannot block the open);
    a file it creates is born 0600. Raises `NotPrivate` for a symbolic link or a file
    that is not private (closing it first), `OSError` for any other failure.
    """
    if not POSIX and os.path.islink(path):
        raise NotPrivate(Exposure(LINK, -1, 0))
    try:
        fd = os.open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a symbolic link
            raise NotPrivate(Exposure(LINK, -1, 0)) from None
        raise
    try:
        found = exposure(os.fstat(fd), directory=False)
    except BaseException:
        os.close(fd)
        raise
    if found is not None:
        os.close(fd)
        raise NotPrivate(found)
    return fd
