"""Logging setup: stderr (and optionally a file), never stdout.

stdout belongs to the MCP protocol while serving, so no handler here may touch it,
not even through a log file that names it (`/dev/stdout`).
The SDK's own loggers are held at ERROR: their diagnostics can echo peer-supplied
tool names, URIs and argument values, which we promise never to log. The few
records they still write (an unexpected crash) keep their fixed message, the
exception's class and its traceback frames, but lose their arguments and the
exception's text, where such values would be.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path

from pwc_local.config import ConfigError

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LOGGERS = ("mcp", "mcp_types", "httpx", "httpcore", "httpx2")


def configure_logging(
    level: str = "warning", log_file: Path | None = None, *, reported: tuple[str, ...] = ()
) -> None:
    """Route every log record to stderr (and `log_file` when given) at `level`.

    `reported`: loggers (and their children) whose warnings the caller reports itself,
    as a command's one error line does; stderr leaves out their records below ERROR,
    so a terminal does not read each failure twice (the log file keeps them).
    Raises `ConfigError` when the log file cannot be opened, or is the process's
    standard output, before anything changes.
    """
    root = logging.getLogger()
    formatter = logging.Formatter(LOG_FORMAT)
    stderr = logging.StreamHandler(sys.stderr)
    handlers: list[logging.Handler] = [stderr]
    if log_file is not None:
        handlers.append(_file_handler(log_file))
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(_withhold_peer_data)
        root.addHandler(handler)
    if reported:
        stderr.addFilter(lambda record: not _reported(record, reported))
    root.setLevel(level.upper())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.ERROR, root.level))
    logging.captureWarnings(True)


def _file_handler(log_file: Path) -> logging.FileHandler:
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_file, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot open log file {log_file}: {exc.strerror or type(exc).__name__}"
        ) from None
    if handler.stream is not None and _is_stdout(handler.stream.fileno()):
        handler.close()
        raise ConfigError(
            f"log file {log_file} is the server's standard output, which belongs to the MCP "
            "protocol; choose another file (logs also go to stderr)"
        )
    return handler


def _is_stdout(fd: int) -> bool:
    """Whether `fd` writes where stdout does (a terminal is exempt: no protocol peer reads it)."""
    try:
        ours, stdout = os.fstat(fd), os.fstat(1)
    except OSError:
        return False  # no stdout at all
    same = ours.st_ino != 0 and (ours.st_dev, ours.st_ino) == (stdout.st_dev, stdout.st_ino)
    return same and not os.isatty(1)  # st_ino 0: Windows devices and pipes, undecidable


def _reported(record: logging.LogRecord, loggers: tuple[str, ...]) -> bool:
    """Whether `record` is a warning (or less) of a logger the caller reports itself."""
    if record.levelno >= logging.ERROR:
        return False
    return any(record.name == name or record.name.startswith(name + ".") for name in loggers)


def _withhold_peer_data(record: logging.LogRecord) -> bool:
    """Strip an SDK record of its arguments and exception text; keep the rest."""
    if record.name.split(".", 1)[0] not in QUIET_LOGGERS:
        return True
    if record.args:
        record.msg, record.args = f"{record.msg} [arguments withheld]", ()
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        frames = "".join(traceback.format_tb(exc.__traceback__))
        record.exc_info, record.exc_text = None, f"{frames}{type(exc).__name__} [text withheld]"
    return True
