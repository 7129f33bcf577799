"""Turn `NAME=VALUE` words from a terminal into tool arguments, guided by the input schema.

A shell hands every value over as text; the tool's advertised `inputSchema` says what
each parameter really is, so the text is read as that:

| schema type           | `NAME=VALUE` becomes                                     |
| --------------------- | -------------------------------------------------------- |
| string (or enum)      | the text exactly as typed (`paper=1706.03762` stays text) |
| integer / number      | an int / a float                                          |
| boolean               | `true`/`false` (also `yes`/`no`, `1`/`0`)                 |
| array                 | comma-separated items, each read by the item schema       |
| object                | JSON (`minimum_metrics={"Top-1 Accuracy": 80}`)           |
| nullable, no string   | `null` means null                                         |

Anything the words cannot express goes in `--args '{...}'` as one JSON object. A
value that fits none of its parameter's types, an unknown name and a missing required
parameter are refused here with the parameter's name, before any call; the server's
own validation (bounds and the like) still runs on what is sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


class ArgumentError(ValueError):
    """A `NAME=VALUE` word that cannot become an argument; the message says why."""


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a property schema allows, in the order it names them."""
    found: list[str] = []
    declared = schema.get("type")
    if isinstance(declared, str):
        found.append(declared)
    elif isinstance(declared, list):
        found.extend(t for t in declared if isinstance(t, str))
    if "enum" in schema and not found:
        found.append("string")
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                found.extend(t for t in schema_types(option) if t not in found)
    return found


def _item_schema(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(schema.get("items"), dict):
        return schema["items"]
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict) and isinstance(option.get("items"), dict):
                return option["items"]
    return {}


def read_value(name: str, text: str, schema: Mapping[str, Any]) -> Any:
    """`text` read as the type `schema` gives parameter `name` (see the module table)."""
    types = schema_types(schema)
    if not types:  # an unconstrained parameter: take the text
        return text
    if "null" in types and "string" not in types and text == "null":
        return None
    if "string" in types:
        return text
    for kind in types:
        value = _as(kind, text, schema)
        if value is not _NO:
            return value
    wanted = " or ".join(t for t in types if t != "null")
    raise ArgumentError(f"{name} must be {wanted}; {text!r} is not")


_NO = object()


def _as(kind: str, text: str, schema: Mapping[str, Any]) -> Any:
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            return _NO
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            return _NO
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        return False if lowered in _FALSE else _NO
    if kind == "array":
        if text.startswith("["):
            return _json_or_no(text, list)
        items = _item_schema(schema)
        return [read_value("item", part.strip(), items) for part in text.split(",") if part]
    if kind == "object":
        return _json_or_no(text, dict)
    return _NO


def _json_or_no(text: str, expected: type) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return _NO
    return value if isinstance(value, expected) else _NO


def build_arguments(
    words: Iterable[str], input_schema: Mapping[str, Any], json_args: str | None = None
) -> dict[str, Any]:
    """The arguments object for one call: `--args` JSON first, then each `NAME=VALUE`."""
    properties = input_schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    if json_args:
        try:
            given = json.loads(json_args)
        except json.JSONDecodeError as exc:
            raise ArgumentError(f"--args is not valid JSON ({exc.msg})") from None
        if not isinstance(given, dict):
            raise ArgumentError("--args must be one JSON object, such as '{\"limit\": 5}'")
        arguments.update(given)
    for word in words:
        name, sep, text = word.partition("=")
        if not sep or not name:
            raise ArgumentError(f"{word!r} is not NAME=VALUE")
        if name not in properties:
            known = ", ".join(properties) or "none"
            raise ArgumentError(f"unknown parameter {name!r} (parameters: {known})")
        arguments[name] = read_value(name, text, properties[name])
    # A missing parameter is a usage error like an unknown one (exit status 2).
    missing = [name for name in input_schema.get("required") or [] if name not in arguments]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise ArgumentError(f"{', '.join(missing)} {verb} required, give {missing[0]}=VALUE")
    return arguments


def describe_parameter(name: str, schema: Mapping[str, Any], required: bool) -> str:
    """One line for `tools`: name, type, default or `required`, bounds and choices."""
    types = [t for t in schema_types(schema) if t != "null"]
    kind = "|".join(types) or "any"
    if "array" in types:
        items = [t for t in schema_types(_item_schema(schema)) if t != "null"]
        kind = kind.replace("array", f"list of {'|'.join(items) or 'any'}")
    parts = [f"{name}: {kind}"]
    if required:
        parts.append("(required)")
    elif "default" in schema:
        parts.append(f"= {json.dumps(schema['default'])}")
    bounds = _bounds(schema)
    if bounds:
        parts.append(f"[{bounds}]")
    return " ".join(parts)


def _bounds(schema: Mapping[str, Any]) -> str:
    merged: dict[str, Any] = dict(schema)
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                merged.update({k: v for k, v in option.items() if k not in merged})
    notes = []
    if "enum" in merged:
        notes.append("one of " + ", ".join(str(v) for v in merged["enum"]))
    low, high = merged.get("minimum"), merged.get("maximum")
    if low is not None or high is not None:
        notes.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if "maxLength" in merged:
        notes.append(f"at most {merged['maxLength']} characters")
    if "maxItems" in merged:
        notes.append(f"at most {merged['maxItems']} items")
    return "; ".join(notes)
