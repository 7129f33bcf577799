"""Files only their owner may touch: private 0700/0600 ones, and trusted settings.

One set of rules for everything this app keeps for its user alone: the cursor key
(`store.keys`), the library database (`store.library_db`: the library, the watch
list and the vocabulary) and the disk cache (`store.cache`). A directory or file is
private when it is no symbolic link, of the right type, owned by the current user
and closed to group and others; `exposure` says which of those fails. A private
directory we made ourselves (the default cache directory) may instead be narrowed
back to 0700 (`narrow_private_dir`), and a file of ours in a private directory to
0600 (`narrow_private_file`, `open_private(..., narrow=True)`): only its mode drifted.

The settings file (`config`) holds no secret but steers the server (the catalog URL,
the log file), so it is *trusted* rather than private: readable by anyone, writable
only by its owner, who must be the current user or root (and the user's private
group, where the system gives each user one), and in a directory no one else may
write (a sticky one such as /tmp does not count: others cannot replace a file they
do not own there); `read_trusted` reads it and checks exactly that.

`refusal` words any of these findings: the problem naming the path, and the command
that fixes it; the key and the library word their own (older) sentences.

Files written *for* the user at a path they name (`sota --plot`, `library export
--output`, a client's config file) are not private, but follow the same rule about
links: `write_file` creates the file in its directory without following a link at
its name, whole or not at all (a temporary file beside it, renamed over it), and
replaces an existing file only when asked (`replace`); a link or a non-file at the
name is refused (`TargetRefused`), since a link another user planted in a shared
directory could lead to any file of ours. `target_refused` checks the same before a
long piece of work, so a command can refuse at once.

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
WRITABLE = "writable"  # group or others may write it (a trusted file or its directory)
ROOT_UID = 0


@dataclass(frozen=True)
class Exposure:
    """Why a directory or file is not private (or not trusted): `kind` (above), with its
    owner and mode, and for `read_trusted` the `path` it is about (the file or a directory)."""

    kind: str
    uid: int
    mode: int
    path: Path | None = None


class NotPrivate(Exception):
    """`open_private` refused a file; `exposure` says why, for the caller to word."""

    def __init__(self, exposure: Exposure) -> None:
        super().__init__(exposure.kind)
        self.exposure = exposure


class TargetRefused(Exception):
    """`write_file` refused `path`: `kind` is `LINK`, `WRONG_TYPE` or `EXISTS` (without
    `replace`); `reason` says why and what to do, `str()` adds the path in front."""

    def __init__(self, path: Path, kind: str, *, option: str = "--force") -> None:
        self.path, self.kind = path, kind
        if kind == LINK:
            self.reason = (
                "it is a symbolic link, which could lead to any file; nothing was written. "
                "Remove the link or choose another file"
            )
        elif kind == WRONG_TYPE:
            self.reason = "it is not a regular file; nothing was written. Choose another file"
        else:
            self.reason = (
                f"it exists; nothing was written. Pass {option} to replace it, "
                "or choose another file"
            )
        super().__init__(f"{path}: {self.reason}")


EXISTS = "exists"  # `TargetRefused.kind`: a file is there and `replace` was not given


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


def open_private(path: Path, flags: int, *, narrow: bool = False) -> int:
    """Open the file `path` without following a link, and check it is private; the fd.

    `flags` (`os.O_RDONLY`, `os.O_RDWR | os.O_CREAT`, ...) get `O_NOFOLLOW`,
    `O_CLOEXEC` and `O_NONBLOCK` (a FIFO planted at the path cannot block the open);
    a file it creates is born 0600. Raises `NotPrivate` for a symbolic link or a file
    that is not private (closing it first), `OSError` for any other failure. With
    `narrow`, a file of ours that is only open to others is made 0600 instead (for
    files in a private directory of ours, written before this rule by an older version
    or another program's umask).
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
        if found is not None and found.kind == OPEN and narrow:
            os.fchmod(fd, 0o600)
            found = None
    except BaseException:
        os.close(fd)
        raise
    if found is not None:
        os.close(fd)
        raise NotPrivate(found)
    return fd


def narrow_private_dir(directory: Path) -> Exposure | None:
    """Make the existing directory of ours `directory` 0700; why it cannot be, or `None`.

    For a directory this app owns by default (the platform's cache directory): one
    that is only open to others is narrowed, without following a link (the mode is
    changed through a descriptor of the directory that was checked). A link, another
    type or another owner is returned for the caller to refuse. `OSError` goes up.
    """
    st = os.lstat(directory)
    found = exposure(st, directory=True)
    if found is None or found.kind != OPEN:
        return found
    flags = os.O_RDONLY | O_NOFOLLOW | O_CLOEXEC | getattr(os, "O_DIRECTORY", 0)
    fd = os.open(directory, flags)
    try:
        found = exposure(os.fstat(fd), directory=True)
        if found is not None and found.kind == OPEN:
            os.fchmod(fd, 0o700)
            return None
        return found
    finally:
        os.close(fd)


def narrow_private_file(path: Path) -> Exposure | None:
    """Make the existing file of ours `path` 0600; why it cannot be, or `None`.

    By path, never by opening it: closing any descriptor of a file drops every POSIX
    lock this process holds on it, and SQLite's locks on a database (and its `-shm`)
    are such locks. Only for a file in a private directory of ours, where no one
    else can swap the file between the check and the `chmod`. `OSError` goes up.
    """
    found = exposure(os.lstat(path), directory=False)
    if found is None or found.kind != OPEN:
        return found
    os.chmod(path, 0o600)
    return None


# -- trusted files: readable by anyone, written only by their owner ----------------------------


def trust_exposure(st: os.stat_result, *, directory: bool) -> Exposure | None:
    """Why a file (or the directory holding it) others could rewrite is not trusted, or `None`.

    Trusted: owned by the current user or root, and writable by no one else; a
    directory with the sticky bit may be writable by others (they cannot replace a
    file they do not own in it). Not checked on Windows (see the module docstring).
    """
    mode = stat.S_IMODE(st.st_mode)
    if not (stat.S_ISDIR(st.st_mode) if directory else stat.S_ISREG(st.st_mode)):
        return Exposure(WRONG_TYPE, st.st_uid, mode)
    if not POSIX:
        return None
    if st.st_uid not in (os.geteuid(), ROOT_UID):
        return Exposure(FOREIGN, st.st_uid, mode)
    if directory and mode & stat.S_ISVTX:
        return None
    if mode & 0o002 or (mode & 0o020 and not _own_group(st.st_gid)):
        return Exposure(WRITABLE, st.st_uid, mode)
    return None


def _own_group(gid: int) -> bool:
    """Whether `gid` is the current user's private group (its name, no other member).

    Many systems give each user such a group and a umask of 002, so files people
    make are group-writable without anyone else being able to write them.
    """
    import grp
    import pwd

    try:
        group = grp.getgrgid(gid)
        name = pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return False
    return group.gr_name == name and set(group.gr_mem) <= {name}


def read_trusted(path: Path, limit: int) -> bytes:
    """The first `limit` bytes of the trusted file `path` (a link is followed).

    Checks the file itself (through its descriptor, so what is checked is what is
    read), the directory the path names and, when the path is a symbolic link (a
    dotfile manager's), the directory of the file it leads to. Raises `NotPrivate`
    whose `exposure.path` is the file or directory at fault, `FileNotFoundError`
    when there is no file, `OSError` otherwise.
    """
    fd = os.open(path, os.O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    try:
        st = os.fstat(fd)
        found = trust_exposure(st, directory=False)
        if found is not None:
            raise NotPrivate(_about(found, path))
        folders = [path.parent]
        if os.path.islink(path):
            folders.append(Path(os.path.realpath(path)).parent)
        for folder in folders:
            found = trust_exposure(os.stat(folder), directory=True)
            if found is not None:
                raise NotPrivate(_about(found, folder))
        data = b""
        while len(data) < limit:  # in the file's size, not `limit`, per read
            chunk = os.read(fd, min(limit - len(data), st.st_size + 4096))
            if not chunk:
                break
            data += chunk
        return data
    finally:
        os.close(fd)


def _about(found: Exposure, path: Path) -> Exposure:
    return Exposure(found.kind, found.uid, found.mode, path)


@dataclass(frozen=True)
class Refusal:
    """Why a path is refused (`problem`) and the command that fixes it (`fix`).

    As text, one line: `<problem>; <fix>`.
    """

    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.problem}; {self.fix}"


def refusal(what: str, path: Path, found: Exposure, *, directory: bool = False) -> Refusal:
    """Why `what` at `path` is refused, naming the path, and the command that fixes it.

    `what` names the thing (`cache directory`, `settings file`); `found.path`, when
    set, is the directory at fault instead of `path` itself.
    """
    culprit, subject = path, f"{what} {path}"
    if found.path is not None and found.path != path:
        culprit, subject, directory = found.path, f"{what} {path}: its directory {found.path}", True
    kind = "directory" if directory else "file"
    if found.kind == LINK:
        return Refusal(f"{subject} is a symbolic link", f"replace it with a real {kind}")
    if found.kind == WRONG_TYPE:
        return Refusal(f"{subject} is not a {kind}", f"remove it, or choose another {kind}")
    uid = os.geteuid() if POSIX else -1
    if found.kind == FOREIGN:
        return Refusal(
            f"{subject} belongs to uid {found.uid}, not to you (uid {uid})",
            f"remove it, or run: chown {uid} {culprit}",
        )
    if found.kind == WRITABLE:
        return Refusal(
            f"{subject} is writable by other users (mode {found.mode:04o})",
            f"run: chmod go-w {culprit}",
        )
    return Refusal(
        f"{subject} is accessible to other users (mode {found.mode:04o})",
        f"run: chmod {'700' if directory else '600'} {culprit}",
    )


# -- files written for the user -----------------------------------------------------------


def target_refused(path: Path, *, replace: bool) -> TargetRefused | None:
    """Why `write_file(path, ..., replace=replace)` would refuse, checked now, or `None`.

    For a command to refuse before its work; the write checks again, atomically.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None  # the write reports it, with its reason
    return _refused_by(path, st, replace=replace)


def _refused_by(path: Path, st: os.stat_result, *, replace: bool) -> TargetRefused | None:
    if stat.S_ISLNK(st.st_mode):
        return TargetRefused(path, LINK)
    if not stat.S_ISREG(st.st_mode):
        return TargetRefused(path, WRONG_TYPE)
    return None if replace else TargetRefused(path, EXISTS)


def write_file(
    path: Path,
    data: bytes,
    *,
    replace: bool = False,
    mode: int | None = None,
    owner: tuple[int, int] | None = None,
) -> bool:
    """Write `data` as the file `path`, whole or not at all; whether a file was replaced.

    The data goes to a new temporary file beside `path` (created with `O_EXCL` and
    `O_NOFOLLOW`), is flushed to disk, and is then renamed to `path`, all through one
    descriptor of the directory, so neither a link at the name nor a directory
    swapped meanwhile redirects it. Without `replace`, the rename is a hard link that
    fails if anything took the name meanwhile (`TargetRefused` `EXISTS`); with it, the
    rename replaces a regular file. A symbolic link or a non-file at the name is
    refused in both cases (`TargetRefused`), never followed or replaced.

    The new file gets `mode` (default: the replaced file's mode, else 0666 less the
    umask) and, when permitted, `owner` `(uid, gid)`. The directory must exist;
    `OSError` for any other failure, the name left as it was.
    """
    if not POSIX:
        return _write_file_by_path(path, data, replace=replace, mode=mode)
    flags = os.O_RDONLY | O_CLOEXEC | getattr(os, "O_DIRECTORY", 0)
    folder = os.open(path.parent, flags)
    name = path.name
    try:
        try:
            before: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            before = None
        if before is not None and (refused := _refused_by(path, before, replace=replace)):
            raise refused
        if mode is None:
            mode = stat.S_IMODE(before.st_mode) if before is not None else 0o666 & ~_umask()
        # Unique, not secret: `secrets` would load OpenSSL on the way to the first answer.
        temp = f".{name}.{os.urandom(6).hex()}.tmp"
        fd = os.open(
            temp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC,
            0o600,
            dir_fd=folder,
        )
        try:
            try:
                _write_all(fd, data)
                os.fsync(fd)
                os.fchmod(fd, mode)  # its final mode before it becomes visible
                if owner is not None:
                    with contextlib.suppress(OSError):  # only root may give a file away
                        os.fchown(fd, *owner)
            finally:
                os.close(fd)
            if replace:
                # A link planted since the check is replaced itself, never followed.
                os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            else:
                _publish_new(temp, name, folder, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise
        with contextlib.suppress(OSError):  # persist the rename itself
            os.fsync(folder)
    finally:
        os.close(folder)
    return before is not None


def _publish_new(temp: str, name: str, folder: int, path: Path) -> None:
    """Give the finished `temp` the name `name` only if nothing has it (no clobbering)."""
    try:
        os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        raise _refused_by(path, st, replace=False) or TargetRefused(path, EXISTS) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # A file system without hard links: the rename, after a last look at the name.
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            return
        raise _refused_by(path, st, replace=False) or TargetRefused(path, EXISTS) from None
    os.unlink(temp, dir_fd=folder)


def _write_file_by_path(path: Path, data: bytes, *, replace: bool, mode: int | None) -> bool:
    """`write_file` where descriptors of directories are not available (Windows)."""
    import tempfile

    refused = target_refused(path, replace=replace)
    if refused is not None:
        raise refused
    existed = path.exists()
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        if replace:
            os.replace(temp, path)
        else:
            os.rename(temp, path)  # refuses an existing name on Windows
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return existed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
