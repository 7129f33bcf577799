"""A look's claims and pages, in-process (issue 27 items 1, 2, 5): the store and the layout.

Two `Watchlist`s on one directory stand for two processes (each has its own
connection); `page_layout` is pure. The end-to-end side is tests/test_watch_delivery_e2e.py.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pwc_local.common.watches import Move
from pwc_local.queries.looks import PAGE_BYTES, page_layout
from pwc_local.server.framing import oversized_answer
from pwc_local.store.watchlist import Watchlist

EMPTY = {"papers": {}, "full": False}


def _opened(tmp_path: Path) -> tuple[Watchlist, Watchlist]:
    first = Watchlist.open(tmp_path / "library")
    first.add("query", "a", target="a", name="a", snapshot=EMPTY)
    first.add("query", "b", target="b", name="b", snapshot=EMPTY)
    return first, Watchlist.open(tmp_path / "library")


def _moved(snapshot_of: Watchlist, key: str) -> dict[str, Any] | None:
    return snapshot_of.baselines()[("query", key)].snapshot


def test_a_claimed_watch_is_held_from_another_look_until_delivered(tmp_path: Path) -> None:
    one, other = _opened(tmp_path)
    now = time.time()
    mine = one.claim("look-1", now + 300, now)
    assert [baseline is not None for _, baseline in mine.watches] == [True, True]
    theirs = other.claim("look-2", now + 300, now)
    assert [baseline for _, baseline in theirs.watches] == [None, None]
    assert theirs.looking == 2

    seen = {"papers": {"9": "2026-11-01"}, "full": False}
    (_, base_a), (_, base_b) = mine.watches
    assert base_a is not None and base_b is not None
    moves = [Move("query", "a", base_a.taken_at, seen)]
    keep = [Move("query", "b", base_b.taken_at, seen)]
    assert one.deliver("look-1", moves, keep, now + 300, now) == {("query", "a"), ("query", "b")}
    assert _moved(other, "a") == seen and _moved(other, "b") == EMPTY

    # "a" is free and read as moved; "b" waits for its page (not worth waiting for).
    again = other.claim("look-2", now + 300, now)
    assert again.watches[0][1] is not None and again.watches[0][1].snapshot == seen
    assert again.watches[1][1] is None and again.looking == 0
    one.close()  # a closing process frees what it still holds
    last = other.claim("look-2", now + 300, now)
    assert all(baseline is not None for _, baseline in last.watches)
    other.close()


def test_a_lapsed_claim_is_taken_over_and_its_look_moves_nothing(tmp_path: Path) -> None:
    one, other = _opened(tmp_path)
    now = time.time()
    (_, base), _ = one.claim("dead", now + 1, now).watches
    assert base is not None
    later = now + 2
    taken = other.claim("alive", later + 300, later)
    assert all(baseline is not None for _, baseline in taken.watches)
    late = Move("query", "a", base.taken_at, {"papers": {"1": None}, "full": False})
    assert one.deliver("dead", [late], [], later + 300, later) == set()
    assert _moved(other, "a") == EMPTY
    one.close()
    other.close()


def _report(index: int, changes: int, title_chars: int = 400) -> dict[str, Any]:
    return {
        "kind": "query",
        "target": f"t{index}",
        "name": f"t{index}",
        "previous_look": "2026-12-01T00:00:00+00:00",
        "status": "changed" if changes else "unchanged",
        "reason": None,
        "changes": [
            {"type": "new_paper", "paper": {"id": f"{index}-{n}", "title": "視" * title_chars}}
            for n in range(changes)
        ],
        "more": 0,
    }


@pytest.mark.parametrize("counts", [[20] * 100, [0, 300, 0, 45], [1], [], [0] * 7])
def test_pages_hold_every_change_once_in_order_within_the_budget(counts: list[int]) -> None:
    reports = [_report(index, count) for index, count in enumerate(counts)]
    pages = page_layout(reports)
    shown = []
    for page in pages:
        sliced = [
            {**reports[index], "changes": reports[index]["changes"][first:end]}
            for index, first, end in page
        ]
        size = len(json.dumps(sliced, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= PAGE_BYTES + 200 * len(sliced), size  # the list's own commas aside
        shown.extend(change["paper"]["id"] for report in sliced for change in report["changes"])
    assert shown == [c["paper"]["id"] for r in reports for c in r["changes"]]
    watches = [index for page in pages for index, first, _ in page if first == 0]
    assert watches == list(range(len(reports)))
    assert len(pages) == 1 or all(pages)


def test_one_change_larger_than_a_page_still_goes() -> None:
    reports = [_report(0, 1), _report(1, 2, title_chars=PAGE_BYTES), _report(2, 1)]
    pages = page_layout(reports)
    assert [[index for index, _, _ in page] for page in pages] == [[0], [1], [1], [2]]


def test_too_large_an_answer_of_a_watch_tool_advises_no_parameter_it_lacks() -> None:
    for tool in ("whats_new", "watch"):
        text = json.loads(oversized_answer(1, tool))["result"]["content"][0]["text"]
        assert text.startswith(f"Error executing tool {tool}: response_too_large: ")
        assert "limit or" not in text and "max_bytes" not in text, text
