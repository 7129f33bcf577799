"""List envelopes: rows from arrays or `results`/`items`, totals from `count`/`total`."""

from __future__ import annotations

import json

import pytest

from pwc_local.upstream.envelopes import next_page_after, result_rows, result_total
from pwc_local.upstream.errors import InvalidResponse


def test_rows_come_from_an_array_results_or_items() -> None:
    assert result_rows([{"a": 1}, 2, "x"]) == [{"a": 1}]
    assert result_rows({"results": [{"a": 1}], "items": [{"b": 2}]}) == [{"a": 1}]
    assert result_rows({"results": None, "items": [{"b": 2}]}) == [{"b": 2}]
    for document in ({"results": {}}, {}, "text", None):
        with pytest.raises(InvalidResponse):
            result_rows(document)


@pytest.mark.parametrize(
    "document, total",
    [
        ({"count": 3, "total": 9}, 3),
        ({"count": "4"}, 4),
        ({"count": 0, "total": 7}, 7),  # quirk: a zero count falls through to total
        ({"count": None, "total": 0}, 0),
        ({"count": 0}, None),
        ({"count": True}, None),
        ({"count": "many"}, None),
        ([], None),
    ],
)
def test_total_rules(document: object, total: int | None) -> None:
    assert result_total(document) == total


@pytest.mark.parametrize("body", ['{"count": Infinity}', '{"count": 1e400}', '{"count": NaN}'])
def test_a_count_no_integer_can_hold_is_unknown(body: str) -> None:
    # Python's JSON reader turns these into float infinities and NaN; int() of them raises.
    assert result_total(json.loads(body)) is None


def test_next_page_must_advance() -> None:
    assert next_page_after({"next_page": 3}, 2) == 3
    for value in (2, 1, True, "3", None, 2.5):
        assert next_page_after({"next_page": value}, 2) is None
