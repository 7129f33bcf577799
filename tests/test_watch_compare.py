"""The watch list's comparisons (pwc_local/queries/watch.py): pure, snapshot vs baseline."""

from __future__ import annotations

from typing import Any

from pwc_local.present.watch import WhatsNewResult, whats_new_record, whats_new_text
from pwc_local.queries.watch import WINDOW, baseline_of, compare


def _result(model: str, value: float, rank: int | None, published: str = "2024-01-01") -> dict:
    return {
        "model": model,
        "paper": {"id": "1", "arxiv_id": None, "title": f"{model} paper", "published": published},
        "metric": "Top-1 Accuracy",
        "value": value,
        "rank": rank,
    }


def _board(*rows: tuple[str, float, int | None], leader: str | None = None) -> dict[str, Any]:
    results = {model: _result(model, value, rank) for model, value, rank in rows}
    top = leader or rows[0][0]
    return {
        "metric": "Top-1 Accuracy",
        "results": results,
        "leader": {"key": top, "model": top, "value": results[top]["value"]},
    }


def _papers(*items: tuple[str, str], full: bool = False) -> dict[str, Any]:
    papers = {
        key: {"id": key, "arxiv_id": None, "title": f"Paper {key}", "published": published}
        for key, published in items
    }
    return {"papers": papers, "full": full}


def test_the_baseline_keeps_only_what_the_comparison_reads() -> None:
    board = _board(("A", 88.5, 1), ("B", 80.0, 2))
    assert baseline_of("benchmark", board) == {
        "results": {"A": 88.5, "B": 80.0},
        "metric": "Top-1 Accuracy",
        "leader": {"key": "A", "model": "A", "value": 88.5},
    }
    paper = {"title": "T", "version": "v1", "successors": {"9": {}}, "results": {}}
    assert baseline_of("paper", paper) == {"results": {}, "successors": ["9"], "version": "v1"}


def test_same_board_no_changes() -> None:
    board = _board(("A", 88.5, 1), ("B", 80.0, 2))
    assert compare("benchmark", baseline_of("benchmark", board), board) == []


def test_a_new_top_row_is_a_new_result_and_a_new_leader() -> None:
    before = _board(("A", 88.5, 1), ("B", 80.0, 2))
    after = _board(("C", 90.1, 1), ("A", 88.5, 2), ("B", 80.0, 3))
    changes = compare("benchmark", baseline_of("benchmark", before), after)
    assert [change["type"] for change in changes] == ["new_leader", "new_result"]
    assert changes[0] == {
        "type": "new_leader",
        "model": "C",
        "metric": "Top-1 Accuracy",
        "value": 90.1,
        "previous_model": "A",
        "previous_value": 88.5,
    }
    assert changes[1]["model"] == "C" and changes[1]["rank"] == 1


def test_a_new_row_below_the_top_is_no_new_leader() -> None:
    before = _board(("A", 88.5, 1))
    after = _board(("A", 88.5, 1), ("D", 70.0, 2))
    changes = compare("benchmark", baseline_of("benchmark", before), after)
    assert [(change["type"], change["model"]) for change in changes] == [("new_result", "D")]


def test_new_results_come_newest_first() -> None:
    before = _board(("A", 88.5, 1))
    after = _board(("A", 88.5, 1))
    after["results"]["old"] = _result("old", 60.0, 3, published="2019-05-01")
    after["results"]["new"] = _result("new", 61.0, 2, published="2026-10-01")
    changes = compare("benchmark", baseline_of("benchmark", before), after)
    assert [change["model"] for change in changes] == ["new", "old"]


def test_papers_new_to_the_listing_newest_first() -> None:
    before = _papers(("1", "2026-01-01"), ("2", "2025-06-01"))
    after = _papers(("3", "2026-02-01"), ("1", "2026-01-01"), ("4", "2026-03-01"))
    changes = compare("task", baseline_of("task", before), after)
    assert [change["paper"]["id"] for change in changes] == ["4", "3"]
    assert all(change["type"] == "new_paper" for change in changes)


def test_an_old_paper_moving_back_into_a_full_window_is_not_new() -> None:
    window = [(str(index), f"2026-01-{index % 28 + 1:02d}") for index in range(WINDOW)]
    before = _papers(*window, full=True)
    oldest = min(published for _, published in window)
    after = _papers(*window[1:], ("back", "2019-01-01"), ("fresh", oldest), full=True)
    changes = compare("author", baseline_of("author", before), after)
    assert [change["paper"]["id"] for change in changes] == ["fresh"]


def test_a_window_that_was_not_full_reports_old_papers_too() -> None:
    before = _papers(("1", "2026-01-01"))
    after = _papers(("1", "2026-01-01"), ("2", "2001-01-01"))
    changes = compare("query", baseline_of("query", before), after)
    assert [change["paper"]["id"] for change in changes] == ["2"]


def test_a_task_gains_a_benchmark() -> None:
    before = {**_papers(), "benchmarks": {"72": {"id": "72", "name": "ImageNet-1k"}}}
    after = {**_papers(), "benchmarks": {**before["benchmarks"], "9": {"id": "9", "name": "New"}}}
    changes = compare("task", baseline_of("task", before), after)
    assert changes == [{"type": "new_benchmark", "benchmark": {"id": "9", "name": "New"}}]


def _paper_look(version: str | None, successors: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "title": "T",
        "version": version,
        "successors": {
            key: {"id": key, "arxiv_id": None, "title": key, "published": None}
            for key in successors
        },
        "results": {},
    }


def test_a_paper_gets_a_new_version_and_a_successor() -> None:
    before = baseline_of("paper", _paper_look("aaa", ("1",)))
    changes = compare("paper", before, _paper_look("bbb", ("1", "2")))
    assert changes == [
        {"type": "new_version", "version": "bbb", "previous_version": "aaa"},
        {
            "type": "new_successor",
            "paper": {"id": "2", "arxiv_id": None, "title": "2", "published": None},
        },
    ]


def test_markdown_appearing_is_a_new_version_but_disappearing_is_not() -> None:
    assert [
        c["type"]
        for c in compare("paper", baseline_of("paper", _paper_look(None)), _paper_look("v"))
    ] == ["new_version"]
    assert compare("paper", baseline_of("paper", _paper_look("v")), _paper_look(None)) == []


def test_the_text_carries_every_change_and_no_terminal_escapes() -> None:
    result = WhatsNewResult.model_validate(
        {
            "checked_at": "2026-12-02T14:00:00+00:00",
            "watches": [
                {
                    "kind": "benchmark",
                    "target": "imagenet",
                    "name": "ImageNet\x1b]0;pwned\x07-1k",
                    "previous_look": "2026-12-01T09:30:00+00:00",
                    "status": "changed",
                    "changes": [
                        {
                            "type": "new_leader",
                            "model": "G\x1b[2J",
                            "metric": "Top-1",
                            "value": 90.1,
                            "previous_model": "H",
                            "previous_value": 88.55,
                        },
                    ],
                    "more": 3,
                },
                {
                    "kind": "task",
                    "target": "ocr",
                    "name": "OCR",
                    "previous_look": "2026-12-01T09:30:00+00:00",
                    "status": "not_checked",
                    "reason": "upstream_error: the catalog could not be reached.",
                    "changes": [],
                    "more": 0,
                },
            ],
        }
    )
    text = whats_new_text(result)
    assert "\x1b" not in text and "\x07" not in text
    # The record's look time says its zone, as the text does (on main a bare minute).
    looks = whats_new_record(result, None, None).watches
    assert looks is not None and looks.rows[0][3] == "2026-12-01 09:30 UTC"
    assert text.splitlines() == [
        "ImageNet-1k (benchmark, last look 2026-12-01 09:30 UTC):",
        "  new leader    G  Top-1 90.1  (was H, 88.55)",
        "  ... and 3 more on the next page",
        "OCR (task, last look 2026-12-01 09:30 UTC): not checked (upstream_error)",
        "1 changed, 0 unchanged, 1 not checked (their baselines stay):",
        "  upstream_error: the catalog could not be reached.",
    ]


def test_a_cut_leaderboard_reports_only_rows_ranked_within_its_window() -> None:
    before = {**_board(("A", 88.5, 1), ("B", 80.0, 5)), "full": True, "worst_rank": 5}
    after = _board(("A", 88.5, 1), ("up", 85.0, 3), ("B", 80.0, 6), ("low", 10.0, 7))
    after["results"]["unranked"] = _result("unranked", 1.0, None)
    stored = baseline_of("benchmark", before)
    assert (stored["full"], stored["worst_rank"]) == (True, 5)
    changes = compare("benchmark", stored, after)
    assert [(change["type"], change["model"]) for change in changes] == [("new_result", "up")]
