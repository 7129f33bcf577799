"""Numbers sent for reference parameters are read as the reference text they stand for."""

from __future__ import annotations

import math

import pytest

from pwc_local.server.lenient import lenient_arguments, reference_text


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (755, "755"),
        (0, "0"),
        (755.0, "755"),
        (1706.03762, "1706.03762"),
        (2301.0001, "2301.00010"),
        (2301.1, "2301.10000"),
        (1501.1, "1501.10000"),
        (1412.698, "1412.6980"),
        (1412.5, "1412.5000"),
        (704.0001, "0704.0001"),
        (910.1234, "0910.1234"),
    ],
)
def test_numbers_become_reference_text(number: float, text: str) -> None:
    assert reference_text(number) == text


@pytest.mark.parametrize(
    "value",
    [
        -3,
        -1706.5,
        True,
        False,
        math.inf,
        math.nan,
        1713.1234,  # month 13
        1700.1234,  # month 0
        703.1234,  # before new-style IDs began
        1706.123456,  # six digits: no arXiv ID
        1412.12345,  # five digits before 1501
        12345.5,
        0.5,
        "1706.03762",
        None,
        ["755"],
    ],
)
def test_anything_else_is_left_for_the_schema_to_refuse(value: object) -> None:
    result = reference_text(value)
    if isinstance(value, float) and math.isnan(value):
        assert isinstance(result, float) and math.isnan(result)
    else:
        assert result is value


def test_only_reference_parameters_are_touched() -> None:
    assert lenient_arguments({"paper": 1706.03762, "limit": 5}, {"paper"}) == {
        "paper": "1706.03762",
        "limit": 5,
    }
