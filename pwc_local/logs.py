"""Logging setup: stderr (and optionally a file), never stdout.

stdout belongs to the MCP protocol while serving, so no handler here may touch it.
The SDK's own loggers are held at ERROR: their diagnostics can echo peer-supplied
tool names, URIs and argument values, which we promise never to log.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from pwc_local.config import ConfigError

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LOGGERS = ("mcp", "mcp_types", "httpx", "httpcore", "httpx2")


def configure_logging(level: str = "warning", log_file: Path | None = None) -> None:
    """Route every log record to stderr (and `log_file` when given) at `level`.

    Raises `ConfigError` when the log file cannot be opened, before anything changes.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    formatter = logging.Formatter(LOG_FORMAT)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file is not None:
        try:
            log_file.parent.mkdir(parents=True, exist_ok=True)
            handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"cannot open log file {log_file}: {exc.strerror or type(exc).__name__}"
            ) from None
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(level.upper())
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.ERROR, root.level))
    logging.captureWarnings(True)
