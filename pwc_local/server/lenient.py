"""Numbers where a reference belongs: read them as the text the client meant.

Some clients send a paper or entity reference as a JSON number: the MCP Inspector
CLI turns `--tool-arg paper=1706.03762` into the number 1706.03762, and models do
the same with numeric IDs. The advertised schemas keep saying "string"; before
validation, a number given for a reference parameter is turned back into text:

| number sent      | read as        | why                                               |
| ---------------- | -------------- | ------------------------------------------------- |
| `755`            | `"755"`        | an integer is the catalog's numeric ID             |
| `1706.03762`     | `"1706.03762"` | a new-style arXiv ID                               |
| `2301.0001`      | `"2301.00010"` | the number lost trailing zeros: five digits after  |
|                  |                | the dot from 1501 on                               |
| `1412.698`       | `"1412.6980"`  | four digits after the dot before 1501              |
| `704.0001`       | `"0704.0001"`  | JSON numbers cannot start with 0 (arXiv from 0704) |

Anything else (a negative or fractional number that is no arXiv ID, a boolean, NaN)
is left as it is, so the schema refuses it with today's `invalid_argument:` error.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

FIVE_DIGIT_FROM = 1501  # arXiv numbers have five digits from January 2015 on
FIRST_NEW_STYLE = 704  # new-style identifiers start in April 2007


def reference_text(value: Any) -> Any:
    """The reference text a number stands for, or `value` unchanged (see the module table)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if isinstance(value, int):
        return str(value) if value >= 0 else value
    if not math.isfinite(value) or value < 0:
        return value
    if value.is_integer():
        return str(int(value))
    return _arxiv_id(value) or value


def _arxiv_id(number: float) -> str | None:
    whole, _, fraction = repr(number).partition(".")
    if not whole.isdigit() or not fraction.isdigit() or len(whole) > 4:
        return None
    prefix = int(whole)
    month = prefix % 100
    if prefix < FIRST_NEW_STYLE or not 1 <= month <= 12:
        return None
    digits = 5 if prefix >= FIVE_DIGIT_FROM else 4
    if len(fraction) > digits:
        return None
    return f"{prefix:04d}.{fraction.ljust(digits, '0')}"


def lenient_arguments(arguments: Mapping[str, Any], references: Collection[str]) -> dict[str, Any]:
    """`arguments` with numbers given for the `references` parameters read as text."""
    return {
        name: reference_text(value) if name in references else value
        for name, value in arguments.items()
    }
