"""How the process leaves before the full transport takes over: at once, with status 0.

A client may stop a server that is still loading (Claude Code sends SIGINT to the
servers still connecting when it ends). Until the full transport installs its own
handling (`stdio.run`), SIGINT and SIGTERM, and end of input with nothing to answer
(`launch.py`), end the process here: no traceback, whatever is being imported at
that moment. An interpreter shutdown would abort under a thread that is importing,
so it leaves with `os._exit` after flushing; there is nothing else to save: answers
are written whole, and the cache and the library are safe against a process that
stops at any point. Standard library only, imported first by `entry.py`.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import suppress

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from typing import Any


def quit_on_signals() -> None:
    """From now until the full transport handles them, SIGINT and SIGTERM leave at once."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _quit)


def _quit(_signum: int, _frame: Any) -> None:
    leave_now()


def leave_now() -> None:
    """Flush stderr and stdout, and end the process with status 0."""
    for stream in (sys.stderr, sys.stdout):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)
