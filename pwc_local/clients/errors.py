"""Why a client configuration file could not be read or changed.

Every failure of the install machinery is a `ClientConfigError` whose message is one
line a person can act on. The command line prints it and exits non-zero; the file
in question is always left exactly as it was.
"""

from __future__ import annotations

from pathlib import Path


class ClientConfigError(Exception):
    """A client configuration file cannot be read, understood or safely changed."""


class ConfigSyntaxError(ClientConfigError):
    """The file does not parse; `line` and `column` are 1-based.

    Parsers raise it without a path; the installer re-raises it with `with_path` so
    the message names the file the way compilers do (`path:line:column: reason`).
    """

    def __init__(self, reason: str, line: int, column: int, path: Path | None = None) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.path = path
        where = f"{path}:{line}:{column}" if path else f"line {line}, column {column}"
        super().__init__(f"{where}: {reason}")

    def with_path(self, path: Path) -> ConfigSyntaxError:
        return ConfigSyntaxError(self.reason, self.line, self.column, path)


class UnsafeEdit(ClientConfigError):
    """The file parses, but changing it would need more than replacing our own entry.

    Examples: the servers key holds a list instead of an object, or the entry is
    written in a form (an inline TOML table, dotted keys) that cannot be rewritten
    without touching text that is not ours. The message tells the person to edit by
    hand.
    """


class FileChanged(ClientConfigError):
    """Another program rewrote the file between our read and our write."""
