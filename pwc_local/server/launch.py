"""Serving from the first byte: early answers while the SDK loads, then the full server.

    spawn ─ claim stdin/stdout ─ loader thread: import the SDK, build and prepare ─┐
              │                                                                    │
              └─ this thread: read lines ─▶ early answers (server/early.py) ─▶ stdout
                               │ not answerable: queued ─────────────▶ handover ◀─┘
                                                                           │
                                             full transport (server/stdio.py) from here

A client's first messages (the handshake, the listings) are answered in tens of
milliseconds from `early.json`, while a thread imports the SDK and builds the
server (about a second). Then the full transport takes over the claimed pipes with
what was read and not answered, in order; the SDK first sees the `initialize` the
early path answered, and its answer is dropped. What cannot be answered early
waits for that, no message is lost, and none is answered twice.

Until the full transport takes over, end of input with nothing queued, SIGINT and
SIGTERM end the process at once with status 0 (`leaving.py`). End of input with
requests queued waits for the server to answer them, as the full transport's drain
does. Reading stops while `MAX_QUEUED` lines (or
`MAX_QUEUED_BYTES`) wait, as the full transport's waiting room does.

POSIX only: Windows, and any problem with `early.json` (`early.load`), start the
full server directly, as before.

Logging is set up late: `logging` costs some 15 ms the first answer need not wait
for. The caller opens a log file first (`open_log`: one that cannot be opened is a
`ConfigError`, before any answer); without one, the loader thread sets logging up
before it imports the SDK. Nothing on the early path logs before then.
"""

from __future__ import annotations

import gc
import os
import select
import sys
import threading

from pwc_local.server import early
from pwc_local.server.descriptors import ClaimedDescriptor
from pwc_local.server.leaving import leave_now, quit_on_signals
from pwc_local.server.lines import READ_SIZE, LineSplitter, LineTooLong

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from typing import Any

    from pwc_local.config import Settings
    from pwc_local.server.app import PwcServer

MAX_QUEUED = 256  # lines waiting for the full server before stdin is no longer read
MAX_QUEUED_BYTES = 8 * 1024 * 1024


TERMINAL_NOTICE = (
    "pwc-mcp-local: this is an MCP stdio server, waiting for a client on stdin "
    "(Ctrl-D to quit). To try a tool from this terminal: pwc-mcp-local call TOOL NAME=VALUE; "
    "to check the set-up: pwc-mcp-local doctor."
)


def open_log(settings: Settings) -> None:
    """Set logging up now if a log file is set: `ConfigError` when it cannot be opened."""
    if settings.log_file is not None:
        _set_up_logging(settings)


def serve(settings: Settings) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin; the exit status.

    A log file in `settings` has been opened (`open_log`); without one, logging is set
    up here, after the first answers.
    """
    quit_on_signals()
    if sys.stdin.isatty():
        # A person typed the command: say what it is instead of sitting silent.
        sys.stderr.write(TERMINAL_NOTICE + "\n")
    # The SDK's modules make some 80,000 objects that live as long as the process: the
    # cyclic collector would walk them again and again as they are made. `run_stdio`
    # freezes them and turns it on again.
    gc.disable()
    answers, problem = None, None
    if sys.platform != "win32":
        try:
            answers = early.load(settings)
        except early.Unusable as exc:
            problem = str(exc)
    if answers is None:
        _log_late(settings)
        if problem is not None:
            _warn("starting without early answers: %s; the first answer is slower", problem)
        from pwc_local.server.app import run_stdio

        return run_stdio(settings)
    claimed = [ClaimedDescriptor.take(0), ClaimedDescriptor.take(1)]
    loader = _Loader(settings, answers.tools())
    try:
        handover = _answer_while_loading(answers, claimed, loader)
    except BrokenPipeError:  # the client is gone
        handover = None
    if handover is None:
        leave_now()
    assert loader.server is not None
    from pwc_local.server.app import run_stdio

    return run_stdio(settings, loader.server, claimed=claimed, handover=handover)


class _Loader:
    """Imports the SDK and builds the server in a thread; `wake` becomes readable when done."""

    def __init__(self, settings: Settings, listing: list[dict[str, Any]]) -> None:
        self.server: PwcServer | None = None
        self.failure: BaseException | None = None
        self.done = threading.Event()
        self._wake_read, self._wake_write = os.pipe()
        self.wake = self._wake_read
        threading.Thread(
            target=self._load, args=(settings, listing), name="pwc-load", daemon=True
        ).start()

    def _load(self, settings: Settings, listing: list[dict[str, Any]]) -> None:
        try:
            _log_late(settings)
            from pwc_local.server.app import build_server, preparation

            server = build_server(settings)
            # What the first call needs (the tools, the runtime) is ready before the
            # server takes over: the client is being answered meanwhile.
            server.prepare_now(**preparation(settings), listing=listing)
            self.server = server
        except BaseException as exc:  # reported by the thread that serves
            self.failure = exc
        finally:
            self.done.set()
            os.write(self._wake_write, b"!")

    def close(self) -> None:
        for fd in (self._wake_read, self._wake_write):
            os.close(fd)


def _answer_while_loading(
    answers: early.EarlyAnswers, claimed: list[ClaimedDescriptor], loader: _Loader
) -> early.Handover | None:
    """Answer what can be answered until the server is built; None: leave at once."""
    stdin, stdout = claimed[0].private, claimed[1].private
    splitter = LineSplitter()
    queued: list[bytes | LineTooLong] = []
    queued_bytes = 0
    ended = False
    while not loader.done.is_set():
        room = len(queued) < MAX_QUEUED and queued_bytes < MAX_QUEUED_BYTES
        watched = [loader.wake] + ([stdin] if room and not ended else [])
        readable, _, _ = select.select(watched, [], [])
        if stdin not in readable:
            continue
        piece = os.read(stdin, READ_SIZE)
        ended = not piece
        for line in splitter.end() if ended else splitter.feed(piece):
            answer = None if isinstance(line, LineTooLong) else answers.take(line)
            if answer is not None:
                _write_all(stdout, answer)
                continue
            queued.append(line)
            queued_bytes += 0 if isinstance(line, LineTooLong) else len(line)
        if ended and not queued:
            return None
    loader.close()
    if loader.failure is not None:
        raise loader.failure
    return answers.handover(queued, splitter, ended)


def _set_up_logging(settings: Settings) -> None:
    from pwc_local.logs import configure_logging

    configure_logging(settings.log_level, settings.log_file)


def _log_late(settings: Settings) -> None:
    """Set logging up, unless a log file made `open_log` do it already."""
    if settings.log_file is None:
        _set_up_logging(settings)


def _warn(message: str, *values: object) -> None:
    import logging

    logging.getLogger(__name__).warning(message, *values)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
