"""The argument checks a tool's input schema cannot express, written once.

Every tool call is validated by the SDK against the input schema derived from the
contract table (`pwc_local.contract`): JSON types, enums, numeric ranges,
string lengths and item counts are never wrong by the time a query function runs,
so nothing in the query layer checks them again. What a JSON schema cannot say is
checked here, before any request, as a `UsageError` (shown as
`invalid_argument: ...`):

* text that is only blanks (`minLength` counts blanks as characters);
* calendar dates, and the order of a date range;
* numbers that must be finite (JSON parsers accept `NaN` and `Infinity`).

Rules that belong to one command stay with it and raise `UsageError` the same way:
metric syntax in `leaderboard`, the grouped-listing rules in `taxonomy.list_tasks`,
the author-list entries in `papers`.
"""

from __future__ import annotations

import math
import re
from datetime import date

from pwc_local.contract import MAX_REFERENCE_CHARS
from pwc_local.upstream.errors import UsageError

# The schema's own wording for an empty string (`server.errors`), reused for blanks.
EMPTY = "must not be empty"

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def required_text(value: str, parameter: str) -> str:
    """`value` without surrounding blanks; only blanks is a `UsageError`."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise UsageError(f"{parameter} {EMPTY}")
    return text


def reference_text(value: str, parameter: str) -> str:
    """`required_text`, at most `MAX_REFERENCE_CHARS` long (a schema without `maxLength`)."""
    text = required_text(value, parameter)
    if len(text) > MAX_REFERENCE_CHARS:
        raise UsageError(f"{parameter} must be at most {MAX_REFERENCE_CHARS} characters")
    return text


def optional_text(value: str | None) -> str | None:
    """`value` trimmed, or `None` when it is missing or blank (an unset filter)."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip()


def check_dates(
    published_after: str | None, published_before: str | None
) -> tuple[str | None, str | None]:
    """The ISO dates of an inclusive range to send (`None` = not given), once valid."""
    start = parse_date("published_after", published_after)
    end = parse_date("published_before", published_before)
    if start and end and start > end:
        raise UsageError(
            "published_after must be on or before published_before; swap or correct the dates"
        )
    return (start.isoformat() if start else None, end.isoformat() if end else None)


def parse_date(name: str, value: str | None) -> date | None:
    """The calendar date `value` (`YYYY-MM-DD`) of parameter `name`; `None` when not given."""
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else "?"
    if not text:
        return None  # an empty string means "not given", like null
    # fromisoformat alone also takes `20240131` and week dates on Python 3.11.
    if _ISO_DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    raise UsageError(f"{name} must be a calendar date written YYYY-MM-DD, e.g. 2024-01-31")


def check_finite(value: float | None, parameter: str) -> None:
    """Reject `NaN` and the infinities, which a JSON `number` schema lets through."""
    if value is not None and not math.isfinite(value):
        raise UsageError(f"{parameter} must be a finite number")
