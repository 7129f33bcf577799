"""Opening the library database: where it lives, its files' privacy, connections, locks.

One SQLite file (`library.sqlite3` in the user data directory) holds the library
(`library`), the watch list (`watchlist`) and the vocabulary (`vocabulary`); each
opens connections of its own through this module, so all three agree on:

* where it is (`default_library_dir`, `DB_FILE_NAME`);
* that its directory is 0700 and its file 0600 before SQLite ever creates it
  (`ensure_private_dir`, `ensure_private_file`, `check_private_file`), the checks
  of `private_files` worded for the library;
* how a connection is made (`connect`, the pragmas) and a write transaction taken
  (`transaction`), and what another process's lock looks like (`is_locked`);
* why it cannot be written, in words (`unwritable_reason`; `unwritable_os_reason` for
  a file operation; `is_full`), and the error that says so (`unwritable_error`:
  `LibraryFull` or `LibraryReadOnly`). The cache's maintenance commands use the same
  words (`store.cache`).

The library's own tables are in `library_schema`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

from pwc_local import private_files as private
from pwc_local.common.shelf import LibraryError, LibraryFull, LibraryReadOnly
from pwc_local.config import APP_NAME

DB_FILE_NAME = "library.sqlite3"
# `journal_size_limit`: after a checkpoint the WAL is cut back to 1 MiB, so saving a
# long paper does not leave a WAL of its size on disk for the life of the process.
WAL_LIMIT_BYTES = 1 << 20
WRITER_PRAGMAS = (
    "journal_mode = WAL",
    "foreign_keys = ON",
    "synchronous = NORMAL",
    f"journal_size_limit = {WAL_LIMIT_BYTES}",
)
READER_PRAGMAS = ("temp_store = MEMORY",)  # a read-only library's stand-in tables


def default_library_dir() -> Path:
    """The app's user data directory (honours `XDG_DATA_HOME` on Linux)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def connect(
    path: Path, wait_ms: int, *, mode: str | None = None, pragmas: Sequence[str] = ()
) -> sqlite3.Connection:
    """A connection to the library database: the library's, the watch list's, the vocabulary's.

    Autocommit (transactions are explicit, `transaction`), usable from any thread
    (callers hold their own lock), waiting up to `wait_ms` for another process's
    write lock. `mode` opens through a URI: `mode=rw` (the file must exist),
    `mode=ro`, `immutable=1`. `pragmas` run after the busy timeout; the connection is
    closed when one fails. `sqlite3.Error` goes to the caller.
    """
    target = str(path) if mode is None else f"{path.as_uri()}?{mode}"
    db = sqlite3.connect(
        target,
        uri=mode is not None,
        timeout=wait_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        db.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        for pragma in pragmas:
            db.execute(f"PRAGMA {pragma}")
    except BaseException:
        db.close()
        raise
    return db


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """`BEGIN IMMEDIATE` ... `COMMIT`: writers queue up front instead of deadlocking later."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def is_locked(exc: sqlite3.OperationalError) -> bool:
    """Whether `exc` is another connection's lock (SQLITE_BUSY / SQLITE_LOCKED)."""
    return "locked" in str(exc) or "busy" in str(exc)


# -- cannot be written -----------------------------------------------------------------


class Unwritable(LibraryError):
    """The database cannot be written here; `reason` says why, for the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Why a file cannot be written, by errno / by SQLite's primary result code.
_UNWRITABLE_ERRNOS = {
    errno.EROFS: "it is on a read-only file system",
    errno.EACCES: "this user may not write it",
    errno.EPERM: "this user may not write it",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
}
_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 8, 10, 13, 14


def unwritable_reason(exc: sqlite3.Error, path: Path) -> str | None:
    """Why SQLite could not write `path`, in words, or `None` for any other failure.

    SQLite says only "disk I/O error" when it cannot create its `-wal`/`-shm` files;
    the file system (`statvfs`) tells a full disk and a read-only mount apart.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary not in (_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN):
        return None
    try:
        disk = os.statvfs(path.parent)
    except (OSError, AttributeError):  # no statvfs on Windows
        disk = None
    if disk is not None and disk.f_flag & getattr(os, "ST_RDONLY", 1):
        return _UNWRITABLE_ERRNOS[errno.EROFS]
    if primary == _SQLITE_FULL or (disk is not None and disk.f_bavail * disk.f_frsize < 2**20):
        return _UNWRITABLE_ERRNOS[errno.ENOSPC]
    if primary == _SQLITE_READONLY:
        return "it is read-only"
    return f"SQLite cannot write beside it: {exc}"


def unwritable_os_reason(exc: OSError) -> str | None:
    """`unwritable_reason` for a failed file operation, by its errno."""
    return _UNWRITABLE_ERRNOS.get(exc.errno or 0)


def is_full(reason: str) -> bool:
    """Whether an `unwritable_reason` phrase says the disk (or quota) is full."""
    return reason in (_UNWRITABLE_ERRNOS[errno.ENOSPC], _UNWRITABLE_ERRNOS[errno.EDQUOT])


def unwritable_error(reason: str, message: str) -> LibraryReadOnly:
    """`LibraryFull` when `reason` (an `unwritable_reason` phrase) says full, else read-only."""
    return LibraryFull(message) if is_full(reason) else LibraryReadOnly(message)


def unwritable_or_broken(path: Path, exc: sqlite3.Error) -> LibraryError:
    """`Unwritable` when `exc` says the database cannot be written, else "move it aside"."""
    reason = unwritable_reason(exc, path)
    if reason is not None:
        return Unwritable(reason)
    return LibraryError(
        f"cannot open the library database {path}: {exc}; move it aside to start an empty library"
    )


# -- private files ---------------------------------------------------------------------


def ensure_private_dir(directory: Path) -> None:
    """Create `directory` 0700 when missing; refuse one that is a link or open to others."""
    try:
        private.make_private_dir(directory)
        st = os.lstat(directory)
    except OSError as exc:
        raise LibraryError(
            f"cannot create the library directory {directory}: {exc.strerror or exc}"
        ) from None
    found = private.exposure(st, directory=True)
    if found is None:
        return
    if found.kind in (private.LINK, private.WRONG_TYPE):
        raise LibraryError(f"library directory {directory} is not a plain directory")
    if found.kind == private.FOREIGN:
        raise LibraryError(f"library directory {directory} belongs to another user")
    raise LibraryError(
        f"library directory {directory} is accessible to other users; run: chmod 700 {directory}"
    )


def ensure_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does, so it is never born readable.

    Raises `Unwritable` when the file cannot be opened for writing (a read-only
    mount or file, a full disk), so the caller can fall back to reading it.

    A file that exists already is checked without a descriptor of ours: closing
    any descriptor of the file drops every POSIX lock this process holds on it
    (SQLite's connections' included), and another process closing its last
    connection would then delete the write-ahead log under them: a corrupt library.
    """
    if os.path.lexists(path):
        check_private_file(path)
        if not os.access(path, os.W_OK):
            try:
                read_only_mount = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
            except (OSError, AttributeError):  # no statvfs on Windows
                read_only_mount = False
            raise Unwritable(_UNWRITABLE_ERRNOS[errno.EROFS if read_only_mount else errno.EACCES])
        return
    try:
        fd = private.open_private(path, os.O_RDWR | os.O_CREAT)
    except private.NotPrivate as exc:
        raise _refusal(path, exc.exposure) from None
    except OSError as exc:
        if exc.errno in _UNWRITABLE_ERRNOS:
            raise Unwritable(_UNWRITABLE_ERRNOS[exc.errno]) from None
        raise LibraryError(
            f"cannot open the library database {path}: {exc.strerror or exc}"
        ) from None
    os.close(fd)  # no connection of this process to it yet: no lock to drop


def check_private_file(path: Path) -> None:
    """`ensure_private_file`'s check, for a database opened read-only."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError as exc:
        raise LibraryError(
            f"cannot open the library database {path}: {exc.strerror or exc}"
        ) from None
    found = private.exposure(st, directory=False)
    if found is not None:
        raise _refusal(path, found)


def _refusal(path: Path, found: private.Exposure) -> LibraryError:
    """The `LibraryError` for a database file that is not private."""
    if found.kind == private.LINK:
        return LibraryError(f"library database {path} is a symbolic link")
    if found.kind == private.WRONG_TYPE:
        return LibraryError(f"library database {path} is not a regular file")
    if found.kind == private.FOREIGN:
        return LibraryError(f"library database {path} belongs to another user")
    return LibraryError(
        f"library database {path} is accessible to other users; run: chmod 600 {path}"
    )
