"""The one place where failures become tool error text (codes: README, "Tools").

Every tool error reads `<code>: <sentence>`; the SDK puts `Error executing tool
<name>: ` in front. The code is a stable token a program can branch on; the
sentence tells the model what happened and, where it can, what to do instead.

What the caller may see is deliberately narrow: the catalog layer's
client-facing messages (`NotFound`, `Ambiguous`, `UsageError`), a sanitised and
shortened 400/422 detail, a Retry-After value, and fixed sentences. Upstream
bodies, URLs, exception text and tracebacks never reach a tool result. Logs get
the exception class (and, for bugs, the traceback frames) but never arguments.

Argument-validation failures get the same treatment: pydantic's own text echoes
the rejected values, so `validation_message` rewrites each error as
`<parameter> <what is wrong>` without them.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from pwc_local.catalog.errors import (
    Ambiguous,
    CatalogError,
    CursorError,
    CursorMismatch,
    ExpiredCursor,
    HTTPStatusError,
    NoMarkdown,
    NotFound,
    PaperChanged,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnreachable,
    UsageError,
)
from pwc_local.config import ConfigError

logger = logging.getLogger(__name__)

DETAIL_LIMIT = 200
RETRY_AFTER_LIMIT = 64
NAME_LIMIT = 64

NOT_FOUND_RECORD = "not_found: the requested catalog record does not exist."
REJECTED = "the catalog rejected the request."
RATE_LIMITED = "rate_limited: the Papers With Code catalog is rate limiting requests; retry"
TIMED_OUT = (
    "upstream_timeout: the Papers With Code catalog did not answer in time; retry later or "
    "narrow the request."
)
UNREACHABLE = (
    "upstream_error: the Papers With Code catalog could not be reached; check the network "
    "connection and the PWC_API_URL setting."
)
UPSTREAM_FAILED = "upstream_error: the Papers With Code catalog request failed."
NO_MARKDOWN = (
    "no_markdown: no stored Markdown is available for this paper; use get_paper_info for its "
    "metadata and links."
)
PAPER_CHANGED = (
    "paper_changed: paper changed since the cursor was issued; restart by calling read_paper "
    "without a cursor."
)
INVALID_CURSOR = (
    "invalid_cursor: invalid continuation cursor; pass the exact next_cursor of the previous "
    "read_paper result, or omit cursor to start from the beginning."
)
EXPIRED_CURSOR = (
    "expired_cursor: expired continuation cursor; omit cursor to read the paper again from "
    "the beginning."
)
CURSOR_MISMATCH = (
    "cursor_mismatch: the cursor belongs to a different paper; omit cursor to read this paper "
    "from the beginning."
)
INTERNAL = "internal_error: the server failed to handle this request; this is a bug."

_TIMEOUT_WORDS = ("timeout", "timed out")


def error_message(exc: BaseException) -> str:
    """The `code: sentence` text for a failure raised while answering a request."""
    if isinstance(exc, HTTPStatusError):
        return _status_message(exc)
    if isinstance(exc, NotFound):
        return f"not_found: {exc}"
    if isinstance(exc, Ambiguous):
        return f"ambiguous: {exc}"
    if isinstance(exc, UsageError):
        return f"invalid_argument: {exc}"
    if isinstance(exc, NoMarkdown):
        return NO_MARKDOWN
    if isinstance(exc, PaperChanged):
        return PAPER_CHANGED
    if isinstance(exc, ExpiredCursor):
        return EXPIRED_CURSOR
    if isinstance(exc, CursorMismatch):
        return CURSOR_MISMATCH
    if isinstance(exc, CursorError):
        return INVALID_CURSOR
    if isinstance(exc, UpstreamTimeout) or (
        isinstance(exc, UpstreamError) and _says_timeout(str(exc))
    ):
        return TIMED_OUT
    if isinstance(exc, UpstreamUnreachable):
        # An outage remembered by store.outage: its text holds only our own timestamps.
        remembered = getattr(exc, "public_message", None)
        if isinstance(remembered, str):
            return f"upstream_error: {remembered}"
        return unreachable_message(exc)
    if isinstance(exc, UpstreamError):
        logger.warning("catalog request failed: %s", type(exc).__name__)
        return UPSTREAM_FAILED
    if isinstance(exc, ConfigError):
        # A local setup problem (say, a key file with loose permissions): the message
        # names the file and the fix, and is meant for the person running the server.
        return f"config_error: {exc}"
    _log_bug(exc)
    return INTERNAL


def unreachable_message(exc: BaseException) -> str:
    """UNREACHABLE, with the precise cause (DNS, refused, TLS ...) when one is known.

    The cause is a fixed phrase from `pwc_local.catalog.causes`, never exception text.
    Imported here: the classifier needs httpx, which server start-up must not load.
    """
    from pwc_local.catalog.causes import find_cause

    cause = find_cause(exc)
    if cause is None:
        return UNREACHABLE
    return (
        f"upstream_error: the Papers With Code catalog could not be reached ({cause.text}); "
        "check the network connection, the proxy settings and the PWC_API_URL setting."
    )


def _status_message(exc: HTTPStatusError) -> str:
    """HTTP statuses, most specific first: 404, 400/422, 429, timeouts, the rest."""
    if exc.status == 404:
        return NOT_FOUND_RECORD
    if exc.status in (400, 422):
        return f"invalid_argument: {catalog_detail(exc.detail) or REJECTED}"
    if exc.status == 429:
        return f"{RATE_LIMITED} {_retry_after(exc.retry_after)}."
    if _says_timeout(exc.detail) or _says_timeout(str(exc)):
        return TIMED_OUT
    logger.warning("catalog request failed: %s %d", type(exc).__name__, exc.status)
    return UPSTREAM_FAILED


def _says_timeout(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _TIMEOUT_WORDS)


def sanitise(text: str, limit: int) -> str:
    """Non-printable characters become spaces; trimmed; at most `limit` characters."""
    cleaned = "".join(char if char.isprintable() else " " for char in text)
    return cleaned.strip()[:limit].strip()


def catalog_detail(body: str) -> str:
    """The catalog's own explanation of a 400/422, safe to show.

    The catalog answers `{"detail": "..."}` (or, for FastAPI validation, a list of
    `{"msg": ...}` objects); the explanation is taken from there when it parses,
    else from the raw body text.
    """
    text = body
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict):
        detail = document.get("detail")
        if isinstance(detail, str):
            text = detail
        elif isinstance(detail, list):
            messages = [item.get("msg") for item in detail if isinstance(item, dict)]
            text = "; ".join(msg for msg in messages if isinstance(msg, str)) or body
    return sanitise(text, DETAIL_LIMIT)


def _retry_after(value: str | None) -> str:
    """When to retry: the catalog's Retry-After (seconds or an HTTP date), else "later"."""
    value = sanitise(value or "", RETRY_AFTER_LIMIT)
    if value.isascii() and value.isdigit():  # str.isdigit() also accepts "²", which int() refuses
        seconds = int(value)
        return f"after {seconds} second" if seconds == 1 else f"after {seconds} seconds"
    return f"after {value}" if value else "later"


def _log_bug(exc: BaseException) -> None:
    # Frames only: the exception's own text may quote arguments, which are never logged.
    frames = "".join(traceback.format_tb(exc.__traceback__))
    kind = "catalog error" if isinstance(exc, CatalogError) else "exception"
    logger.error("unexpected %s %s while answering a request\n%s", kind, type(exc).__name__, frames)


def unknown_tool_message(name: str) -> str:
    """The whole error text for a call naming no tool, framed like every tool error."""
    shown = sanitise(name, NAME_LIMIT)
    return f"Error executing tool {shown}: not_found: unknown tool; tools/list names the tools."


def unknown_prompt_message(name: str) -> str:
    """The error text for `prompts/get` naming no prompt."""
    return (
        f"not_found: unknown prompt {sanitise(name, NAME_LIMIT)}; prompts/list names the prompts."
    )


def prompt_arguments_message(name: str, expected: Iterable[str]) -> str:
    """The error text for `prompts/get` whose arguments are missing or unknown (names only)."""
    names = sorted(expected)
    noun = "argument" if len(names) == 1 else "arguments"
    return f"invalid_argument: prompt {name} takes exactly the {noun} {', '.join(names)}."


# -- argument validation -----------------------------------------------------------------

_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "string": "a string",
    "list": "an array",
    "dict": "an object",
}


def validation_message(exc: ValidationError) -> str:
    """`invalid_argument: <param> <problem>; ...` for a rejected tool call, values omitted."""
    problems: list[str] = []
    for error in exc.errors(include_url=False, include_input=False):
        problem = _describe(error)
        if problem not in problems:
            problems.append(problem)
    return "invalid_argument: " + "; ".join(problems or ["the arguments are not valid"]) + "."


def _describe(error: Mapping[str, Any]) -> str:
    where = _location(error.get("loc", ()))
    kind: str = error.get("type", "")
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    return f"{where} {_problem(kind, ctx)}"


def _location(loc: Iterable[Any]) -> str:
    """`limit`, `authors[2]`; dict keys are caller data, so they become `values`."""
    parts = list(loc)
    if not parts:
        return "arguments"
    name = str(parts[0]).removeprefix("field_")
    for part in parts[1:]:
        if isinstance(part, int):
            name += f"[{part}]"
        elif part in _TYPE_WORDS or part in ("none", "literal", "function-after"):
            continue  # pydantic's union-branch tags, not locations
        else:
            name += " values"
            break
    return name


def _problem(kind: str, ctx: Mapping[str, Any]) -> str:
    if kind == "missing":
        return "is required"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "less_than":
        return f"must be less than {ctx.get('lt')}"
    if kind == "greater_than":
        return f"must be greater than {ctx.get('gt')}"
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return "must not be empty" if least == 1 else f"must have at least {least} characters"
    if kind == "string_too_long":
        return f"must have at most {ctx.get('max_length')} characters"
    if kind == "too_short":
        return f"must have at least {_items(ctx.get('min_length'))}"
    if kind == "too_long":
        return f"must have at most {_items(ctx.get('max_length'))}"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind.startswith(("int_", "float_", "bool_", "string_", "list_", "dict_")):
        return f"must be {_TYPE_WORDS.get(kind.split('_', 1)[0], 'of another type')}"
    return "is not valid"


def _items(count: Any) -> str:
    return "1 item" if count == 1 else f"{count} items"
