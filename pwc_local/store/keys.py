"""The per-machine secret that signs `read_paper` continuation cursors.

The first process that needs a key makes one: 32 random bytes, written as 64 hex
characters to `cursor-key` in the app's user configuration directory (platformdirs;
on Linux `$XDG_CONFIG_HOME/pwc-mcp-local`, usually `~/.config/pwc-mcp-local`). The
key is what makes a cursor issued by one server process good in the next one, so it
is guarded like a credential:

* the directory is created 0700 and the file 0600, both owned by the current user;
* the file is born complete: it is written and fsynced under a temporary name, then
  hard-linked into place, which fails if another process got there first. So two
  servers starting at the same moment both end up reading the one key that won,
  and no reader ever sees a partial or world-readable file;
* every load opens the file with `O_NOFOLLOW` and checks type, owner and mode of the
  file and of its directory. A symlink, a group/world-accessible or foreign-owned
  key is refused with a `KeyFileError` saying how to fix it. It is never replaced
  silently: that would quietly invalidate every live cursor, or worse, keep using a
  key somebody else can read.

`PWC_MCP_CURSOR_KEY_CURRENT` (and `PWC_MCP_CURSOR_KEY_PREVIOUS` beside it) override
the file entirely, as the hosted server's variables do.

`rotate_key()` writes a new key and keeps the old one as `cursor-key.previous`, so
cursors issued before the rotation stay valid until they expire. A server that is
already running keeps the key ring it loaded; restart it to sign with the new key.

Windows has no POSIX modes or `O_NOFOLLOW`. There the key lives in the per-user
`%LOCALAPPDATA%` folder, whose inherited ACL already limits access to the user (and
SYSTEM and administrators), and each key file is narrowed further before it is
published: `icacls` removes the inherited entries and grants the current user alone
full control (best effort: a failure is logged and the profile ACL remains). The mode
and owner checks are skipped, and symbolic links are still refused by a check before
opening.

Nothing in this module prints or logs a key; `KeyRing` hides its secrets from `repr`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import secrets
import stat
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pwc_local.common.cursors import key_id
from pwc_local.config import APP_NAME, ConfigError
from pwc_local.private_files import (
    FOREIGN,
    LINK,
    O_CLOEXEC,
    O_NOFOLLOW,
    OPEN,
    POSIX,
    WRONG_TYPE,
    Exposure,
    NotPrivate,
    exposure,
    make_private_dir,
    open_private,
)

log = logging.getLogger(__name__)

KEY_FILE_NAME = "cursor-key"
PREVIOUS_KEY_FILE_NAME = "cursor-key.previous"
ENV_CURRENT = "PWC_MCP_CURSOR_KEY_CURRENT"
ENV_PREVIOUS = "PWC_MCP_CURSOR_KEY_PREVIOUS"

KEY_BYTES = 32
_KEY_TEXT = re.compile(r"[0-9a-f]{64}\n?")
_MAX_FILE_BYTES = 256
# Errors that mean "this file system cannot make hard links".
_NO_LINK_ERRNOS = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS} | {
    getattr(errno, name) for name in ("ENOTSUP", "EOPNOTSUPP") if hasattr(errno, name)
}


class KeyFileError(ConfigError):
    """The cursor key cannot be used as it is; the message says what to do about it."""


@dataclass(frozen=True)
class KeyRing:
    """The secrets a `CursorCodec` is built with.

    `current` signs new cursors; `previous`, when set, is still accepted when
    verifying. `source` is `"file"` or `"environment"`; `path` is the key file for the
    former. The secrets are excluded from `repr` so they cannot leak into a log line.
    """

    current: str = field(repr=False)
    previous: str | None = field(default=None, repr=False)
    source: str = "file"
    path: Path | None = None

    @property
    def current_kid(self) -> str:
        return key_id(self.current)

    @property
    def previous_kid(self) -> str | None:
        return None if self.previous is None else key_id(self.previous)


def default_key_dir() -> Path:
    """The app's user configuration directory (honours `XDG_CONFIG_HOME` on Linux)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def load_keyring(
    directory: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    create: bool = True,
) -> KeyRing:
    """The key ring this process should sign and verify cursors with.

    The environment variables win when `PWC_MCP_CURSOR_KEY_CURRENT` is set. Otherwise
    the key file in `directory` (default: `default_key_dir()`) is loaded and checked,
    and, when it does not exist yet and `create` is true, generated first.
    Raises `KeyFileError` for anything that needs a person's attention.
    """
    env = os.environ if environ is None else environ
    from_env = _keyring_from_env(env)
    if from_env is not None:
        return from_env
    directory = default_key_dir() if directory is None else Path(directory)
    key_path = directory / KEY_FILE_NAME
    if create:
        _ensure_private_dir(directory)
    elif not os.path.lexists(directory):
        raise KeyFileError(f"no cursor key yet: {key_path} does not exist")
    else:
        _check_dir(directory)
    current = _read_key(key_path)
    if current is None:
        if not create:
            raise KeyFileError(f"no cursor key yet: {key_path} does not exist")
        with _creating(key_path):
            _publish(directory, KEY_FILE_NAME, secrets.token_hex(KEY_BYTES), replace=False)
        current = _read_key(key_path)
        if current is None:  # deleted between our link and our read
            raise KeyFileError(f"cursor key {key_path} disappeared while it was created; retry")
    previous = _read_key(directory / PREVIOUS_KEY_FILE_NAME)
    return KeyRing(current=current, previous=previous, source="file", path=key_path)


def rotate_key(directory: Path | None = None) -> KeyRing:
    """Replace the key file's secret with a new one, keeping the old as previous.

    Cursors signed with the old key keep verifying (until their own expiry) in every
    process that loads the key ring after this; new cursors use the new key. The
    environment variables are ignored here: rotation is about the file. Concurrent
    rotations are serialised with an advisory lock where the platform has one.
    """
    directory = default_key_dir() if directory is None else Path(directory)
    _ensure_private_dir(directory)
    with _creating(directory / KEY_FILE_NAME), _rotation_lock(directory):
        if not os.path.lexists(directory / KEY_FILE_NAME):
            return load_keyring(directory, environ={}, create=True)  # nothing to rotate yet
        old = load_keyring(directory, environ={}, create=True)
        new_secret = secrets.token_hex(KEY_BYTES)
        # Previous first: a reader between the two renames sees (old, old), never a
        # ring that lacks the key live cursors were signed with.
        _publish(directory, PREVIOUS_KEY_FILE_NAME, old.current, replace=True)
        _publish(directory, KEY_FILE_NAME, new_secret, replace=True)
    return KeyRing(current=new_secret, previous=old.current, source="file", path=old.path)


def replace_insecure_key(directory: Path | None = None) -> KeyRing | None:
    """Replace key files other users could read (or that are not plainly ours).

    `rotate_key` refuses such a key, since keeping it as "previous" would keep
    honouring cursors anyone could have forged with it. Here the exposed current and
    previous files are deleted (a symbolic link itself, not its target) and a fresh
    key is made with no previous one, so every cursor issued before stops verifying;
    a directory of ours that is open to others is narrowed to 0700 first. The
    replacement is logged at warning level. Returns `None` when nothing was insecure.
    """
    directory = default_key_dir() if directory is None else Path(directory)
    replaced: list[str] = []
    with _creating(directory):
        if POSIX and os.path.isdir(directory) and not os.path.islink(directory):
            st = os.lstat(directory)
            if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(directory, 0o700)
                replaced.append(f"narrowed {directory} to mode 0700")
        _ensure_private_dir(directory)  # a directory we cannot fix still raises here
        with _rotation_lock(directory):
            for name in (KEY_FILE_NAME, PREVIOUS_KEY_FILE_NAME):
                path = directory / name
                reason = _exposure(path)
                if reason is not None:
                    os.unlink(path)
                    replaced.append(f"removed {path} ({reason})")
            if not replaced:
                return None
            secret = secrets.token_hex(KEY_BYTES)
            _publish(directory, KEY_FILE_NAME, secret, replace=True)
            with contextlib.suppress(FileNotFoundError):  # no previous key: it was exposed
                os.unlink(directory / PREVIOUS_KEY_FILE_NAME)
    log.warning(
        "replaced the cursor key in %s because other users could read it (%s); "
        "read_paper cursors issued before are no longer valid",
        directory,
        "; ".join(replaced),
    )
    return KeyRing(current=secret, previous=None, source="file", path=directory / KEY_FILE_NAME)


def _exposure(path: Path) -> str | None:
    """Why the key file at `path` cannot be trusted as private, or `None`."""
    try:
        found = exposure(os.lstat(path), directory=False)
    except FileNotFoundError:
        return None
    if found is None:
        return None
    return {
        LINK: "a symbolic link",
        WRONG_TYPE: "not a regular file",
        FOREIGN: f"owned by uid {found.uid}",
        OPEN: f"mode {found.mode:04o}",
    }[found.kind]


@dataclass(frozen=True)
class KeyFileInfo:
    """What `key status` may show about one key file: never the secret itself."""

    path: Path
    exists: bool
    mode: int | None = None
    owner_uid: int | None = None
    kid: str | None = None


@dataclass(frozen=True)
class KeyStatus:
    """The state of the key ring for people and `doctor`: paths, modes, key ids.

    `problem` holds the `KeyFileError` message when the ring cannot be loaded as it is.
    """

    directory: Path
    source: str
    current: KeyFileInfo
    previous: KeyFileInfo
    env_current_kid: str | None
    env_previous_kid: str | None
    problem: str | None


def key_status(
    directory: Path | None = None, *, environ: Mapping[str, str] | None = None
) -> KeyStatus:
    """Describe the key files and which key is in force, without creating anything.

    A key that does not exist yet is no problem: the first server to need one makes it,
    provided the directory it would go in is private (that is checked here too).
    """
    env = os.environ if environ is None else environ
    directory = default_key_dir() if directory is None else Path(directory)
    problem: str | None = None
    kids: dict[str, str | None] = {"current": None, "previous": None}
    try:
        if os.path.lexists(directory / KEY_FILE_NAME):
            ring = load_keyring(directory, environ={}, create=False)
            kids = {"current": ring.current_kid, "previous": ring.previous_kid}
        elif os.path.lexists(directory):
            _check_dir(directory)  # the first load would refuse it
    except KeyFileError as exc:
        problem = str(exc)
    env_current = env.get(ENV_CURRENT) or None
    env_previous = env.get(ENV_PREVIOUS) or None
    try:
        _keyring_from_env(env)
    except KeyFileError as exc:
        problem = str(exc)
    return KeyStatus(
        directory=directory,
        source="environment" if env_current else "file",
        current=_describe(directory / KEY_FILE_NAME, kids["current"]),
        previous=_describe(directory / PREVIOUS_KEY_FILE_NAME, kids["previous"]),
        env_current_kid=key_id(env_current) if env_current else None,
        env_previous_kid=key_id(env_previous) if env_previous else None,
        problem=problem,
    )


# -- internals ----------------------------------------------------------------------


def _keyring_from_env(env: Mapping[str, str]) -> KeyRing | None:
    current = env.get(ENV_CURRENT, "")
    previous = env.get(ENV_PREVIOUS, "")
    if current:
        return KeyRing(current=current, previous=previous or None, source="environment")
    if previous:
        raise KeyFileError(
            f"{ENV_PREVIOUS} is set without {ENV_CURRENT}; set both, or unset "
            f"{ENV_PREVIOUS} to use the key file"
        )
    return None


def _describe(path: Path, kid: str | None) -> KeyFileInfo:
    try:
        st = os.lstat(path)
    except OSError:
        return KeyFileInfo(path=path, exists=False)
    return KeyFileInfo(
        path=path,
        exists=True,
        mode=stat.S_IMODE(st.st_mode),
        owner_uid=st.st_uid if POSIX else None,
        kid=kid,
    )


def _ensure_private_dir(directory: Path) -> None:
    """Create `directory` 0700 if it is missing, then check it like any other load."""
    with _creating(directory):
        make_private_dir(directory)
    _check_dir(directory)


@contextlib.contextmanager
def _creating(path: Path) -> Iterator[None]:
    """Turn a file system failure while writing `path` into an actionable `KeyFileError`."""
    try:
        yield
    except KeyFileError:
        raise
    except OSError as exc:
        raise KeyFileError(
            f"cannot write the cursor key at {path}: {exc.strerror or exc}; check that the "
            f"directory is writable by you, or set {ENV_CURRENT}"
        ) from None


def _check_dir(directory: Path) -> None:
    try:
        st = os.lstat(directory)
    except OSError as exc:
        raise KeyFileError(f"cannot inspect {directory}: {exc.strerror or exc}") from None
    found = exposure(st, directory=True)
    if found is not None:
        raise _refusal(directory, found, directory=True)


def _refusal(path: Path, found: Exposure, *, directory: bool) -> KeyFileError:
    """The `KeyFileError` for a key file (or its directory) that is not private."""
    what, fix_mode = ("cursor key directory", "700") if directory else ("cursor key", "600")
    if found.kind == LINK and directory:
        return KeyFileError(
            f"cursor key directory {path} is a symbolic link; replace it with a "
            f"real directory: rm {path} && mkdir -m 700 {path}"
        )
    if found.kind == LINK:
        return KeyFileError(
            f"cursor key {path} is a symbolic link; delete it (a new key is then "
            f"generated and earlier cursors stop working), or replace it with the "
            f"file it points to"
        )
    if found.kind == WRONG_TYPE and directory:
        return KeyFileError(f"{path} should be the cursor key directory but is not one")
    if found.kind == WRONG_TYPE:
        return KeyFileError(f"cursor key {path} is not a regular file; delete it")
    uid = os.geteuid()
    if found.kind == FOREIGN:
        return KeyFileError(
            f"{what} {path} belongs to uid {found.uid}, not to you (uid {uid}); "
            f"remove it, or run: chown {uid} {path}"
        )
    return KeyFileError(
        f"{what} {path} is accessible to other users (mode {found.mode:04o}); "
        f"run: chmod {fix_mode} {path}"
    )


def _read_key(path: Path) -> str | None:
    """The validated secret stored at `path`, or `None` when there is no such file."""
    try:
        fd = open_private(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except NotPrivate as exc:
        raise _refusal(path, exc.exposure, directory=False) from None
    except OSError as exc:
        raise KeyFileError(f"cannot read cursor key {path}: {exc.strerror or exc}") from None
    try:
        data = os.read(fd, _MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise KeyFileError(f"cannot read cursor key {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        text = ""
    if not _KEY_TEXT.fullmatch(text):
        raise KeyFileError(
            f"cursor key {path} is malformed (expected 64 hex digits); delete it to "
            f"generate a new one (earlier cursors then stop working)"
        )
    return text.strip()


def _publish(directory: Path, name: str, secret: str, *, replace: bool) -> bool:
    """Make `directory/name` hold `secret`, appearing complete and 0600 at once.

    With `replace=False` an existing file wins and `False` is returned.
    """
    final = directory / name
    data = (secret + "\n").encode("ascii")
    temp = directory / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if not POSIX:
            restrict_to_current_user(temp)
        if replace:
            os.replace(temp, final)
            published = True
        else:
            published = _link_if_absent(temp, final, data)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    _fsync_dir(directory)
    return published


def restrict_to_current_user(
    path: Path,
    *,
    environ: Mapping[str, str] | None = None,
    run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
) -> bool:
    """Windows: make the current user the only one with access to `path`, via `icacls`.

    Removes the inherited access entries and grants the user (as `DOMAIN\\user` when
    the domain is known) full control. Returns whether `icacls` succeeded; a failure is
    logged, not raised, because the per-user profile folder already keeps others out.
    """
    env = os.environ if environ is None else environ
    user = env.get("USERNAME", "")
    if not user:
        log.warning("cannot narrow the key file's access: USERNAME is not set")
        return False
    domain = env.get("USERDOMAIN", "")
    principal = f"{domain}\\{user}" if domain else user
    command = ["icacls", str(path), "/inheritance:r", "/grant:r", f"{principal}:F"]
    try:
        done = run(command, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("cannot narrow the key file's access (%s)", type(exc).__name__)
        return False
    if done.returncode != 0:
        log.warning("cannot narrow the key file's access (icacls exit %d)", done.returncode)
        return False
    return True


def _link_if_absent(temp: Path, final: Path, data: bytes) -> bool:
    try:
        os.link(temp, final)
        return True
    except FileExistsError:
        return False  # another process won the race; its key is the key
    except OSError as exc:
        if exc.errno not in _NO_LINK_ERRNOS:
            raise
    # No hard links on this file system: exclusive create is the next best thing
    # (a racing reader may briefly find the file empty and report it malformed).
    try:
        fd = os.open(final, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    except FileExistsError:
        return False
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def _fsync_dir(directory: Path) -> None:
    """Persist a rename or link; directories cannot be opened for this on Windows."""
    if not POSIX:
        return
    try:
        fd = os.open(directory, os.O_RDONLY | O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def _rotation_lock(directory: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: rotations are rare, manual and not serialised
        yield
        return
    fd = os.open(
        directory / ".cursor-key.lock",
        os.O_RDWR | os.O_CREAT | O_NOFOLLOW | O_CLOEXEC,
        0o600,
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
