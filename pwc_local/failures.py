"""`CodedError`: the root of every failure that knows how a client should see it.

Each subclass names a stable `code` (`not_found`, `upstream_timeout`, ...) that a
program can branch on, and `public_message()` returns the sentence a person or a
model reads after it. The catalog's failures (`pwc_local.upstream.errors`) and the
configuration's (`pwc_local.config.ConfigError`), the library's
(`pwc_local.store.library.LibraryError` ...) and the server's own refusals
(`pwc_local.server.errors`) derive from it, so the one place that writes tool errors
(`pwc_local.server.errors.error_message`) reads `coded_text(exc)` off any of them
without knowing the classes. No other module writes a `code: ` text itself
(tests/test_error_codes.py checks the source), and every code is listed in the
README's error-code table. `coded_text` is also the one place every sentence passes
through the sanitiser (`safe_text.one_line`), so a reference, a catalog name or a
watch target quoted in any message can never carry a terminal escape or a line break,
whichever module wrote the sentence.

Two kinds of message exist:

* written for the caller (`shown = True`): the exception's own text is the public
  sentence, e.g. `Task not found: imagenet; closest results: ...`;
* diagnostics (`shown = False`, the default): the text is for logs and tests and may
  carry upstream details, so the class's fixed `sentence` is shown instead.

This module imports only `safe_text` (which imports nothing), so any layer can use it.
"""

from __future__ import annotations

from pwc_local.safe_text import one_line

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up: test_early)
if TYPE_CHECKING:
    from typing import ClassVar


class CodedError(Exception):
    """A failure with a stable code and a public sentence (see the module docstring).

    The base itself is a bug report: an error nobody gave a code is an
    `internal_error`, and the server logs its traceback.
    """

    code: ClassVar[str] = "internal_error"
    sentence: ClassVar[str] = "the server failed to handle this request; this is a bug."
    shown: ClassVar[bool] = False

    def public_message(self) -> str:
        """The sentence after `code: ` in the client's error text."""
        return str(self) if self.shown else self.sentence

    def diagnostic(self) -> str | None:
        """What to log at warning level when this failure is reported, or `None`."""
        return None


def coded_text(exc: CodedError) -> str:
    """`<code>: <sentence>`, the text a client reads for `exc` (no logging: see
    `pwc_local.server.errors.error_message`, which also turns any other exception into
    `internal_error`). The sentence is sanitised here, once for every code path;
    `fold=False` keeps a sentence that is already clean exactly as written."""
    return f"{exc.code}: {one_line(exc.public_message(), fold=False)}"
