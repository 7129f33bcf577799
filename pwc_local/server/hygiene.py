"""Input hygiene at the protocol boundary: text must be text, and stay as typed.

Two rules every request obeys before any handler sees it.

**Text is valid Unicode.** JSON can carry a lone UTF-16 surrogate as an escape
(`"\\ud800"`); Python decodes it into a `str` that cannot be encoded as UTF-8, so it
would fail deep inside a handler (a URL being encoded, a log line, the cache key)
and surface as `internal_error`. The stdio framing asks `unencodable_path` for the
first such string in a request's params and refuses the request there, naming the
parameter: tool calls get a tool error, every other method (`resources/read`,
`prompts/get`, `completion/complete`, ...) a -32602 answer, both with
`invalid_message(path)`. Only JSON escapes can produce such strings (raw bytes that
are not UTF-8 are a parse error), so `may_hold_surrogates` lets the framing skip
the walk for every line without a `\\uD8xx`-`\\uDFxx` escape.

**Strings stay strings.** The SDK "pre-parses" a string argument as JSON whenever
the parameter's annotation is not exactly `str`, to help clients that send lists
as JSON text. For `search: str | None` that turns `"null"` into `None` (the filter
silently disappears) and `"[1,2]"` into a list (refused). `keep_text_verbatim`
limits the pre-parsing of one registered tool to the parameters that cannot take
a string at all, so text parameters receive exactly what was typed.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pwc_local.failures import coded_text
from pwc_local.server import sdk
from pwc_local.upstream.documents import is_encodable, may_hold_surrogates
from pwc_local.upstream.errors import UsageError

__all__ = [
    "invalid_message",
    "is_encodable",
    "keep_text_verbatim",
    "may_hold_surrogates",
    "unencodable_path",
]


def unencodable_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first string in `value` that is not valid Unicode, or None.

    Keys count as strings too; a bad key is reported as its parent's path.

    >>> unencodable_path({"search": "ok", "authors": ["a", "\\ud800"]})
    'authors[1]'
    """
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            if not is_encodable(item):
                return where or "arguments"
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and not is_encodable(key):
                    return where or "an argument name"
                child_path = f"{where}.{key}" if where else str(key)
                pending.append((child, child_path))
        elif isinstance(item, list):
            pending.extend((child, f"{where}[{index}]") for index, child in enumerate(item))
    return None


def invalid_message(path: str) -> str:
    """The `invalid_argument:` sentence for text that is not valid Unicode at `path`."""
    return coded_text(
        UsageError(
            f"{path} is not valid Unicode text (it holds a lone surrogate, such as the JSON "
            "escape \\ud800, without its pair); send the text as plain UTF-8."
        )
    )


# -- keeping text parameters verbatim -----------------------------------------------------


def keep_text_verbatim(tool: Any) -> None:
    """Make a registered SDK tool pass text arguments on exactly as typed.

    `tool` is `sdk.registered_tool(server, name)`; JSON text stays pre-parsed only
    for the parameters that cannot take a string at all.
    """
    fields = sdk.argument_fields(tool)
    sdk.keep_text_as_typed(tool, [name for name, field in fields.items() if _accepts_text(field)])


def _accepts_text(field: Any) -> bool:
    """Whether a pydantic field's annotation admits a plain `str` (possibly in a union)."""
    if field is None:
        return False
    pending = [field.annotation]
    while pending:
        annotation = pending.pop()
        if annotation is str:
            return True
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            pending.append(typing.get_args(annotation)[0])
        elif origin is typing.Union or origin is types.UnionType:
            pending.extend(typing.get_args(annotation))
        elif origin is typing.Literal and any(
            isinstance(choice, str) for choice in typing.get_args(annotation)
        ):
            return True
    return False
