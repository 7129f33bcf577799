"""The compact `tools/list`: output schemas that validate, and nothing a model must skip.

`tools/list` is read into the model's context in every session, so its size is a
cost every conversation pays (47.8 KB for the 21 tools with pydantic's schemas,
about 20 KB now; the budget of the default listing, every tool, is 28,000 bytes).
Two thirds of the generated listing were output schemas: every tool repeated its
nested definitions (`$defs`), the models' docstrings and field descriptions,
`"default": null` on every optional field and the two-branch `anyOf` spelling of
"X or null". `compact_output_schema` keeps what a model needs to know the shape of
the answer and a client to check its types, and drops the rest:

| generated                                     | compact                           |
| --------------------------------------------- | --------------------------------- |
| top-level properties with their types         | kept, `additionalProperties: false`|
| `{"anyOf": [{"type": "string"}, {"type": "null"}]}` | `{"type": ["string", "null"]}` |
| a nested model (`paper`, `task`)              | `{"type": "object"}` (or with null)|
| an array of nested models (`items`)           | `{"type": "array"}`               |
| arrays of strings, integers ...               | kept with their item type         |
| `description`, `title`, `default`, `required` | dropped                           |
| `"const": "v1", "type": "string"`             | `"const": "v1"`                   |

A nested model is left open (`{"type": "object"}`, and an array of them plain
`{"type": "array"}`) rather than spelled out: its fields are the same in every tool
that returns it, they are documented in `pwc_local/present/hosted.py`, and they
would cost the listing about 12 KB more. Every field of a result is in every
`structuredContent` (null or empty when there is nothing), so neither `default`
nor `required` tells a client anything (together 2.3 KB over 29 tools). The input
schemas are not touched here (only their generated titles go, in `app.py`): they are
the contract arguments are validated with, bounds, enums and defaults included.

The schema of each output model is generated once per process (`output_schema`),
not once per tool that returns it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

_DROPPED = frozenset({"description", "title", "default"})
_OPEN_OBJECT = {"type": "object"}


def output_model_of(fn: Callable[..., Any]) -> type[BaseModel] | None:
    """The model in a tool's `Annotated[CallToolResult, Model]` return annotation, if any."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # an annotation that does not resolve: let the SDK decide
        return None
    returned = hints.get("return")
    for candidate in getattr(returned, "__metadata__", ()):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


@functools.cache
def output_schema(model: type[BaseModel], versioned: bool = True) -> dict[str, Any]:
    """The compact output schema of `model` (cached; treat the result as read-only).

    `versioned=False` (the compact profile): without `schema_version`, which it does not
    send, nor `additionalProperties`, as its records (`pwc_local.present.record`), nor
    `cache` and `stale`, sent only with a stale answer (`present.hosted.LocalOutput`),
    whose text says so first, as every record's `stale` (35 bytes a tool).
    """
    schema = compact_output_schema(model.model_json_schema())
    if not versioned:
        unsent = ("schema_version", "cache", "stale")
        properties = {k: v for k, v in schema["properties"].items() if k not in unsent}
        schema = {k: v for k, v in schema.items() if k != "additionalProperties"}
        schema["properties"] = properties
    return schema


def compact_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An equivalent-for-validation, shorter form of a generated schema (module docstring)."""
    definitions: dict[str, Any] = schema.get("$defs", {})

    def resolve(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [resolve(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.removeprefix("#/$defs/") in definitions:
            return resolve(definitions[ref.removeprefix("#/$defs/")], depth)
        if depth > 0 and ("properties" in node or node.get("type") == "object"):
            return dict(_OPEN_OBJECT)  # a nested model: open, see the module docstring
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key == "$defs" or (key == "required" and depth == 0):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: resolve(spec, depth + 1) for name, spec in value.items()}
            else:
                out[key] = resolve(value, depth)
        if out.get("items") == _OPEN_OBJECT:  # an array of nested models: open too
            del out["items"]
        return _simplified(out)

    return resolve(schema, 0)


def _simplified(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` as a type list where X is a plain typed schema; `const` alone."""
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = branches[0] if branches[1] == {"type": "null"} else branches[1]
        kind = other.get("type") if isinstance(other, dict) else None
        if isinstance(kind, str) and "$ref" not in other:
            merged = {key: value for key, value in node.items() if key != "anyOf"}
            merged.update(other)
            merged["type"] = [kind, "null"]
            return merged
    if "const" in node and node.get("type") == "string" and isinstance(node["const"], str):
        return {key: value for key, value in node.items() if key != "type"}
    return node


# -- the listing snapshot ----------------------------------------------------------------
#
# Registering the tools (pydantic builds an argument model and schemas per tool) costs
# about 100 ms of CPU, and a client asks for `tools/list` a few milliseconds after
# `initialize`. So the finished listing is also saved as JSON next to the cache, under
# a fingerprint of everything it is made of: the size and modification time of every
# source file of this package, and the installed SDK and pydantic. A later server
# started from the same installation answers `tools/list` from that file at once,
# while the tools register in the background for the calls that follow. Any edit or
# upgrade changes the fingerprint, so a stale listing is never served; a missing or
# unreadable snapshot only means the listing is built as before. Its text reaches the
# model, so it is read and written only in a private directory, as a private file
# (`private_files`, the cache's rules): a shared directory means no snapshot.


def snapshot_path(directory: Path, tools: str = "all") -> Path:
    """Where the listing of this installation is saved under `directory`.

    `tools` is the `tools` setting: each selection lists other tools, so each has
    a snapshot of its own.
    """
    variant = (
        "" if tools == "all" else "-" + hashlib.blake2b(tools.encode(), digest_size=4).hexdigest()
    )
    return directory / f"tools-list-{_fingerprint()}{variant}.json"


def load_snapshot(path: Path) -> list[dict[str, Any]] | None:
    """The saved tool dicts, or `None` when there is no usable (or no private) snapshot."""
    from pwc_local import private_files

    try:
        if private_files.exposure(os.lstat(path.parent), directory=True) is not None:
            return None
        fd = private_files.open_private(path, os.O_RDONLY)
        with open(fd, encoding="utf-8") as handle:
            document = json.loads(handle.read())
    except (OSError, ValueError, private_files.NotPrivate):
        return None
    tools = document.get("tools") if isinstance(document, dict) else None
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        return None
    return tools


def save_snapshot(path: Path, tools: list[dict[str, Any]]) -> None:
    """Save the listing atomically; failures (read-only disk ...) are ignored."""
    from pwc_local import private_files

    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        private_files.make_private_dir(path.parent)  # owner-only, like the cache
        if private_files.exposure(os.lstat(path.parent), directory=True) is not None:
            return
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        with open(private_files.open_private(temporary, flags), "w", encoding="utf-8") as out:
            out.write(json.dumps({"tools": tools}))
        os.replace(temporary, path)
        current = f"tools-list-{_fingerprint()}"
        for old in path.parent.glob("tools-list-*.json"):  # earlier installations'
            if not old.name.startswith(current):
                old.unlink(missing_ok=True)
    except (OSError, private_files.NotPrivate):
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


@functools.cache
def _fingerprint() -> str:
    import mcp
    import mcp_types
    import pydantic

    import pwc_local

    digest = hashlib.blake2b(digest_size=10)
    roots = [Path(pwc_local.__file__).parent]
    for module in (mcp, mcp_types, pydantic):
        digest.update(_stat_text(Path(str(module.__file__))).encode())
    for root in roots:
        for source in sorted(root.rglob("*.py")):
            digest.update(f"{source.relative_to(root)}:{_stat_text(source)};".encode())
    digest.update(getattr(pydantic, "VERSION", "").encode())
    return digest.hexdigest()


def _stat_text(path: Path) -> str:
    try:
        status = path.stat()
    except OSError:
        return f"{path}:missing"
    return f"{path}:{status.st_size}:{status.st_mtime_ns}"
