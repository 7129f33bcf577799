"""The standard descriptors, claimed for the protocol while serving.

While serving, file descriptor 1 points at stderr and descriptor 0 at the null device;
the real pipes live on as private duplicates (`ClaimedDescriptor`). A stray `print` call,
or a child process, therefore lands on stderr and never corrupts the stream. The
early start-up path (`pwc_local.server.launch`) claims them before anything else is
imported and hands them to the full transport (`pwc_local.server.stdio`).
Standard library only.
"""

from __future__ import annotations

import os
import stat
import sys
from contextlib import suppress

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from typing import BinaryIO


class ClaimedDescriptor:
    """A standard descriptor whose pipe was moved to a private duplicate.

    `fd` itself then points at a harmless stand-in (stderr for stdout, the null device
    for stdin), which is what child processes inherit; `stream` reads or writes the
    real pipe. `release()` puts the pipe back on `fd`.
    """

    def __init__(self, fd: int, private: int, stream: BinaryIO):
        self.fd = fd
        self.private = private
        self.stream = stream
        self._made_nonblocking = False

    def pollable(self) -> int | None:
        """The private descriptor, made non-blocking, if the event loop can wait on it.

        Only pipes and sockets qualify (a terminal or a file keeps its thread), on
        POSIX, and stdout only when it is not also stderr: non-blocking is a property
        of the open pipe, and log lines written to a full one would be lost.
        """
        if sys.platform == "win32":
            return None
        try:
            mode = os.fstat(self.private)
            if not (stat.S_ISFIFO(mode.st_mode) or stat.S_ISSOCK(mode.st_mode)):
                return None
            if self.fd == 1:
                err = os.fstat(2)
                if (err.st_dev, err.st_ino) == (mode.st_dev, mode.st_ino):
                    return None
            if os.get_blocking(self.private):
                os.set_blocking(self.private, False)
                self._made_nonblocking = True
        except OSError:
            return None
        return self.private

    @classmethod
    def take(cls, fd: int) -> ClaimedDescriptor:
        private = _private_duplicate(fd)
        try:
            stand_in = _stand_in(fd)
            try:
                os.dup2(stand_in, fd)
            finally:
                os.close(stand_in)
        except OSError:
            os.close(private)
            raise
        _rebind_windows_handle(fd)
        # closefd=False: the descriptor is closed by release(), never by the file object.
        if fd == 0:
            return cls(fd, private, open(private, "rb", closefd=False))
        return cls(fd, private, open(private, "wb", closefd=False))

    def release(self, *, close: bool) -> None:
        """Point `fd` at the pipe again; close the duplicate unless a thread may use it."""
        if self._made_nonblocking:
            with suppress(OSError):  # the pipe is shared with whoever gave it to us
                os.set_blocking(self.private, True)
        try:
            os.dup2(self.private, self.fd)
            _rebind_windows_handle(self.fd)
        except OSError as exc:
            import logging  # only now: not on the way to the first answer

            logger = logging.getLogger(__name__)
            logger.warning("could not restore fd %d: %s", self.fd, type(exc).__name__)
            return
        if close:
            os.close(self.private)


def _private_duplicate(fd: int) -> int:
    """Duplicate `fd` above the standard range, not inherited by child processes."""
    if sys.platform == "win32":
        return os.dup(fd)  # non-inheritable; Windows has no F_DUPFD
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _stand_in(fd: int) -> int:
    if fd == 0:
        return os.open(os.devnull, os.O_RDONLY)
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


def _rebind_windows_handle(fd: int) -> None:
    """On Windows, children inherit the Win32 standard handles, not CRT descriptors."""
    if sys.platform != "win32":
        return
    import ctypes
    import msvcrt

    which = {0: -10, 1: -11}[fd]  # STD_INPUT_HANDLE, STD_OUTPUT_HANDLE
    ctypes.windll.kernel32.SetStdHandle(which, msvcrt.get_osfhandle(fd))
