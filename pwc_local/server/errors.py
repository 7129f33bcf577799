"""The one place where failures become tool error text (codes: README, "Troubleshooting").

Every tool error reads `<code>: <sentence>`; the SDK puts `Error executing tool
<name>: ` in front. The code is a stable token a program can branch on; the
sentence tells the model what happened and, where it can, what to do instead.

Each failure class knows its own code and sentence (`pwc_local.failures.CodedError`;
the catalog's tree is drawn in `pwc_local.upstream.errors`), so `error_message`
only composes `code: sentence` (`failures.coded_text`): no table of classes, no
reading of messages. The server's own refusals use the catalog's request classes
(`UsageError` for a request as sent that cannot be taken, `NotFound` for an unknown
tool, prompt or template); what is its own:

    CodedError (pwc_local.failures)   internal_error
    ├── AnswerTooLarge                upstream_error      a hosted tool's answer over 2 MiB
    └── LocalAnswerTooLarge           response_too_large  a local tool's, over 2 MiB
        └── WatchAnswerTooLarge                           the watch tools' (their own words)
    (elsewhere: catalog.errors.CatalogError ...; config.ConfigError config_error;
    store.library: LibraryError config_error, LibraryReadOnly library_read_only,
    LibraryFull disk_full, LibraryBusy library_busy; store.watchlist.WatchlistBusy)
What the caller may see is deliberately narrow: the catalog layer's client-facing
messages (`NotFound`, `Ambiguous`, `UsageError`), a sanitised and shortened 400/422
detail, a Retry-After value, the catalog's configured API base (without credentials)
and fixed sentences. Upstream bodies, request URLs (a search's words are in them),
exception text and tracebacks never reach a tool result. Logs get the exception class (and,
for bugs, the traceback frames) but never arguments. Every sentence passes through
the one sanitiser, `pwc_local.safe_text.one_line`, in `failures.coded_text`, so no
caller or catalog text quoted in it can carry a terminal escape or a line break.

Argument-validation failures get the same treatment: pydantic's own text echoes
the rejected values, so `validation_message` rewrites each error as
`<parameter> <what is wrong>` without them.
"""

from __future__ import annotations

import logging
import traceback
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from pwc_local.failures import CodedError, coded_text
from pwc_local.safe_text import one_line
from pwc_local.upstream.errors import NotFound, UsageError

logger = logging.getLogger(__name__)

NAME_LIMIT = 64
INTERNAL_CODE = CodedError.code
INTERNAL = coded_text(CodedError())


class AnswerTooLarge(CodedError):
    """A hosted tool's answer would break the 2 MiB response bound (the catalog's records)."""

    code = "upstream_error"
    sentence = (
        "the answer would be larger than the 2 MiB response limit because the catalog "
        "sent unusually large records; ask for fewer rows (a smaller limit) or a "
        "narrower request."
    )


class LocalAnswerTooLarge(CodedError):
    """A local tool's answer would break the 2 MiB bound (what is stored on this machine)."""

    code = "response_too_large"
    sentence = (
        "the answer would be larger than the 2 MiB response limit because of what is "
        "stored on this machine (saved papers, their outlines and sections); ask for less: "
        "a smaller limit or max_bytes, or one section at a time."
    )


class WatchAnswerTooLarge(LocalAnswerTooLarge):
    """A watch tool's answer over 2 MiB: its pages should prevent it, and it takes no limit."""

    sentence = (
        "the answer would be larger than the 2 MiB response limit, which whats_new's pages "
        "should prevent; call whats_new again, and report this as a bug."
    )


def code_of(text: str) -> str:
    """The code a `code: sentence` text starts with (what `error_message` wrote)."""
    return text.split(":", 1)[0]


def error_message(exc: BaseException) -> str:
    """The `code: sentence` text for a failure raised while answering a request.

    A `CodedError` (every catalog and configuration failure) carries both parts
    (`pwc_local.upstream.errors` lists the tree); anything else is a bug.
    """
    if not isinstance(exc, CodedError) or exc.code == INTERNAL_CODE:
        _log_bug(exc)
        return INTERNAL
    diagnostic = exc.diagnostic()
    if diagnostic is not None:
        logger.warning("catalog request failed: %s", diagnostic)
    return coded_text(exc)


def _log_bug(exc: BaseException) -> None:
    # Frames only: the exception's own text may quote arguments, which are never logged.
    frames = "".join(traceback.format_tb(exc.__traceback__))
    kind = "coded error" if isinstance(exc, CodedError) else "exception"
    logger.error("unexpected %s %s while answering a request\n%s", kind, type(exc).__name__, frames)


def unknown_tool_message(name: str) -> str:
    """The whole error text for a call naming no tool, framed like every tool error."""
    shown = one_line(name, NAME_LIMIT, fold=False)
    refusal = NotFound("unknown tool; tools/list names the tools.")
    return f"Error executing tool {shown}: {coded_text(refusal)}"


def unknown_prompt_message(name: str) -> str:
    """The error text for `prompts/get` naming no prompt."""
    shown = one_line(name, NAME_LIMIT, fold=False)
    return coded_text(NotFound(f"unknown prompt {shown}; prompts/list names the prompts."))


def prompt_arguments_message(name: str, expected: Iterable[str]) -> str:
    """The error text for `prompts/get` whose arguments are missing or unknown (names only)."""
    names = sorted(expected)
    noun = "argument" if len(names) == 1 else "arguments"
    return coded_text(UsageError(f"prompt {name} takes exactly the {noun} {', '.join(names)}."))


def unknown_arguments_message(unknown: Iterable[str], known: Iterable[str]) -> str:
    """The error text for tool arguments the tool does not take: their names and the right ones."""
    names = sorted(unknown)
    shown = ", ".join(one_line(name, NAME_LIMIT, fold=False) for name in names[:3])
    if len(names) > 3:
        shown += f" and {len(names) - 3} more"
    noun = "argument" if len(names) == 1 else "arguments"
    valid = ", ".join(known) or "none"
    return coded_text(UsageError(f"unknown {noun} {shown}; the tool takes {valid}."))


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
    return coded_text(UsageError("; ".join(problems or ["the arguments are not valid"]) + "."))


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


# pydantic's error types, as what the value must be; `{name}` is the error's context value.
_PROBLEMS = {
    "missing": "is required",
    "less_than_equal": "must be at most {le}",
    "greater_than_equal": "must be at least {ge}",
    "less_than": "must be less than {lt}",
    "greater_than": "must be greater than {gt}",
    "string_too_long": "must have at most {max_length} characters",
    "literal_error": "must be one of {expected}",
}
_COUNTED = {"too_short": ("at least", "min_length"), "too_long": ("at most", "max_length")}


def _problem(kind: str, ctx: Mapping[str, Any]) -> str:
    template = _PROBLEMS.get(kind)
    if template is not None:
        return template.format_map(defaultdict(lambda: None, ctx))
    if kind in _COUNTED:
        bound, key = _COUNTED[kind]
        return f"must have {bound} {_items(ctx.get(key))}"
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return "must not be empty" if least == 1 else f"must have at least {least} characters"
    if kind.startswith(("int_", "float_", "bool_", "string_", "list_", "dict_")):
        return f"must be {_TYPE_WORDS.get(kind.split('_', 1)[0], 'of another type')}"
    return "is not valid"


def _items(count: Any) -> str:
    return "1 item" if count == 1 else f"{count} items"
