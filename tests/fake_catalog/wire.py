"""Request and response plumbing shared by the fake's route modules.

Models the conventions of catalog-api.md §1.7-§1.8: FastAPI-like error bodies
(`{"detail": ...}` with `Content-Type: application/json`), 422 for parameters
that fail validation, and the list envelope `count` / `next_page` (an int page
number, not a URL, or null) / `previous_page` / `results`.

Query parameters arrive form-decoded as a multi-dict (§1.3); `Query` reads them
with the same leniency a FastAPI server has (`true`/`false`/`1`/`0` booleans,
ISO dates) and raises `HttpError(422)` with a readable detail otherwise.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import date
from typing import Any

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})


class HttpError(Exception):
    """An error answer: `status` with body `{"detail": detail}`."""

    def __init__(self, status: int, detail: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail
        self.headers = headers or {}


def invalid(detail: str) -> HttpError:
    return HttpError(422, detail)


@dataclass
class Reply:
    """What a route answers. JSON routes set `payload`; raw routes set `body`."""

    status: int = 200
    payload: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        if self.body is not None:
            return self.body
        return json.dumps(self.payload, ensure_ascii=False).encode("utf-8")

    def content_type(self) -> str:
        return self.headers.get("Content-Type", "application/json")


def error_reply(error: HttpError) -> Reply:
    return Reply(error.status, {"detail": error.detail}, headers=dict(error.headers))


class Query:
    """Typed access to the decoded query multi-dict."""

    def __init__(self, params: dict[str, list[str]]) -> None:
        self.params = params

    def get(self, name: str) -> str | None:
        values = self.params.get(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return list(self.params.get(name, []))

    def text(self, name: str) -> str | None:
        """The stripped value, or None when absent or blank."""
        value = self.get(name)
        if value is None or not value.strip():
            return None
        return value.strip()

    def integer(
        self,
        name: str,
        default: int | None = None,
        *,
        low: int | None = None,
        high: int | None = None,
    ) -> int | None:
        raw = self.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw.strip())
        except ValueError:
            raise invalid(f"{name} must be an integer") from None
        if low is not None and value < low:
            raise invalid(f"{name} must be >= {low}")
        if high is not None and value > high:
            raise invalid(f"{name} must be <= {high}")
        return value

    def number(self, name: str) -> float | None:
        raw = self.get(name)
        if raw is None or raw == "":
            return None
        try:
            value = float(raw.strip())
        except ValueError:
            raise invalid(f"{name} must be a number") from None
        if not math.isfinite(value):
            raise invalid(f"{name} must be a finite number")
        return value

    def boolean(self, name: str, default: bool | None = None) -> bool | None:
        raw = self.get(name)
        if raw is None or raw == "":
            return default
        word = raw.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise invalid(f"{name} must be a boolean")

    def day(self, name: str) -> date | None:
        raw = self.get(name)
        if raw is None or raw == "":
            return None
        try:
            return date.fromisoformat(raw.strip())
        except ValueError:
            raise invalid(f"{name} must be a date in YYYY-MM-DD form") from None

    def choice(self, name: str, choices: tuple[str, ...], default: str | None = None) -> str | None:
        raw = self.get(name)
        if raw is None or raw == "":
            return default
        if raw not in choices:
            raise invalid(f"{name} must be one of: {', '.join(choices)}")
        return raw

    def page(self, *, max_page: int | None = None) -> int:
        value = self.integer("page", 1, low=1, high=max_page)
        assert value is not None
        return value

    def page_size(self, default: int, maximum: int, name: str = "page_size") -> int:
        value = self.integer(name, default, low=1, high=maximum)
        assert value is not None
        return value


def paginate(rows: list[Any], page: int, page_size: int) -> dict[str, Any]:
    """The standard envelope for one page of `rows` (pages start at 1)."""
    start = (page - 1) * page_size
    chunk = rows[start : start + page_size]
    return {
        "count": len(rows),
        "next_page": page + 1 if start + page_size < len(rows) else None,
        "previous_page": page - 1 if page > 1 else None,
        "results": chunk,
    }


def ordering_key(value: Any) -> tuple[int, Any]:
    """Sort helper: None last in ascending order, strings case-insensitively."""
    if value is None:
        return (1, "")
    if isinstance(value, str):
        return (0, value.casefold())
    return (0, value)


def apply_ordering(
    rows: list[dict[str, Any]], ordering: str | None, allowed: tuple[str, ...], default: str
) -> list[dict[str, Any]]:
    """Order rows by a Django-style `ordering` (`name` or `-name`); 422 on unknown fields.

    Ties keep their previous order (sorting is stable); descending order still puts
    missing values last.
    """
    ordering = ordering or default
    descending = ordering.startswith("-")
    field_name = ordering.lstrip("-")
    if field_name not in allowed:
        raise invalid(f"ordering must be one of: {', '.join(allowed)} (prefix - for descending)")
    present = [row for row in rows if row.get(field_name) is not None]
    missing = [row for row in rows if row.get(field_name) is None]
    present.sort(key=lambda row: ordering_key(row.get(field_name)), reverse=descending)
    return present + missing


def folded(text: str | None) -> str:
    """Whitespace-collapsed, case-folded text for case-insensitive comparisons."""
    return " ".join((text or "").split()).casefold()
