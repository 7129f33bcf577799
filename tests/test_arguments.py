"""The query layer's own argument checks: only what an input schema cannot express."""

from __future__ import annotations

import math

import pytest

from pwc_local.queries.arguments import check_dates, check_finite, optional_text, required_text
from pwc_local.upstream.errors import UsageError


def test_blank_text_is_refused_with_the_schemas_wording() -> None:
    assert required_text("  OCR ", "task") == "OCR"
    for blank in ("", "  ", "\t\n"):
        with pytest.raises(UsageError, match=r"^task must not be empty$"):
            required_text(blank, "task")


def test_blank_filters_count_as_not_given() -> None:
    assert optional_text(None) is None
    assert optional_text("  ") is None
    assert optional_text(" x ") == "x"


@pytest.mark.parametrize(
    ("after", "before", "expected"),
    [
        ("2024/01/31", None, "published_after must be a calendar date written YYYY-MM-DD"),
        ("20240131", None, "published_after must be a calendar date"),
        (None, "2024-02-30", "published_before must be a calendar date"),
        ("2024-03-01", "2024-02-01", "published_after must be on or before published_before"),
    ],
)
def test_bad_dates(after: str | None, before: str | None, expected: str) -> None:
    with pytest.raises(UsageError, match=f"^{expected}"):
        check_dates(after, before)


def test_good_dates_are_sent_as_iso() -> None:
    assert check_dates(" 2024-01-01 ", "2024-01-01") == ("2024-01-01", "2024-01-01")
    assert check_dates("", None) == (None, None)


def test_only_finite_numbers_pass() -> None:
    check_finite(None, "min_velocity")
    check_finite(0.5, "min_velocity")
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(UsageError, match=r"^min_velocity must be a finite number$"):
            check_finite(value, "min_velocity")
