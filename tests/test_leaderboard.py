"""Leaderboard logic: row merging, metric values and names, option parsing, selection."""

from __future__ import annotations

import pytest

from pwc_local.queries.leaderboard import (
    MAX_PARAMETER_SIZE,
    MetricRequest,
    Objective,
    SortOrder,
    merge_rows,
    metric_request,
    metric_value,
    parse_metric_bounds,
    parse_parameter_size,
    parse_pareto,
    parse_sort,
    resolve_metrics,
    select_rows,
    shot_count,
)
from pwc_local.upstream.errors import UnknownMetric, UsageError


def evaluation(**fields):
    """An evaluation row on benchmark 42 with sensible defaults."""
    row = {
        "id": "1",
        "paper_id": "755",
        "dataset_id": "42",
        "model_name": "Agent | One",
        "harness": None,
        "metrics": {},
        "task_id": "3",
        "task_name": "Software Engineering",
        "task_slug": "software-engineering",
        "best_rank": 1,
        "best_metric": "",
        "num_parameters": None,
    }
    row.update(fields)
    return row


# -- merge_rows ------------------------------------------------------------------------


def test_spec_fixture_agent_one_merges_into_one_row() -> None:
    rows = [
        evaluation(id="1", metrics={"Resolved": 55.5}, task_id="3", best_rank=1),
        evaluation(id="2", metrics={"Pass@1": 50}, task_id="3", best_rank=2),
        evaluation(
            id="3", metrics={"Resolved": 55.5}, task_id="8", task_name="Agents", best_rank=4
        ),
    ]
    merged = merge_rows(rows)
    assert len(merged) == 1
    row = merged[0]
    assert row["metrics"] == {"Resolved": 55.5, "Pass@1": 50}
    assert row["best_rank"] == 1
    assert [(scope["task_id"], scope["rank"]) for scope in row["rank_scopes"]] == [
        ("3", 1),
        ("8", 4),
    ]
    assert row["rank_scopes"][1]["task_name"] == "Agents"
    # The inputs are left alone.
    assert rows[0]["metrics"] == {"Resolved": 55.5}
    assert "rank_scopes" not in rows[0]


def test_conflicting_metrics_start_a_new_row() -> None:
    merged = merge_rows(
        [
            evaluation(id="1", metrics={"Resolved": 55.5}, best_rank=1),
            evaluation(id="2", metrics={"Resolved": 40.0}, best_rank=2),
        ]
    )
    assert [row["metrics"]["Resolved"] for row in merged] == [55.5, 40.0]


def test_a_row_joins_the_first_compatible_merged_row() -> None:
    merged = merge_rows(
        [
            evaluation(id="1", metrics={"A": 1}, best_rank=1),
            evaluation(id="2", metrics={"A": 2}, best_rank=2),
            evaluation(id="3", metrics={"A": 2, "B": 7}, task_id="9", best_rank=3),
        ]
    )
    assert [row["metrics"] for row in merged] == [{"A": 1}, {"A": 2, "B": 7}]


@pytest.mark.parametrize(
    ("field", "first", "second"),
    [
        ("paper_id", "1", "2"),
        ("dataset_id", "42", "43"),
        ("model_name", "A", "B"),
        ("harness", "verified", "lite"),
        ("split", "test", "val"),
        ("methodology", "5-shot", "0 shot"),
    ],
)
def test_rows_differing_in_a_key_field_stay_apart(field: str, first: str, second: str) -> None:
    merged = merge_rows(
        [evaluation(id="1", **{field: first}), evaluation(id="2", **{field: second})]
    )
    assert len(merged) == 2


def test_split_is_the_first_non_empty_of_its_fields() -> None:
    merged = merge_rows(
        [
            evaluation(id="1", split="", split_name="test", metrics={"A": 1}),
            evaluation(id="2", evaluated_on="test", task_id="9", metrics={"B": 2}),
        ]
    )
    assert len(merged) == 1


def test_shot_counts_are_read_from_methodology() -> None:
    assert shot_count("Test split, 5-shot; Table 3") == "5"
    assert shot_count("0 shot") == "0"
    assert shot_count("evaluated 5shot") == "5"
    assert shot_count("25 -SHOT prompts") == "25"
    assert shot_count("zero-shot") == ""
    assert shot_count("5-shots") == ""  # the word must be exactly "shot"
    assert shot_count(None) == ""
    merged = merge_rows(
        [
            evaluation(id="1", methodology="5-shot, greedy", metrics={"A": 1}),
            evaluation(id="2", methodology="5 shot", task_id="9", metrics={"B": 2}),
        ]
    )
    assert len(merged) == 1


def test_ranks_keep_the_smaller_integer_per_task_and_overall() -> None:
    merged = merge_rows(
        [
            evaluation(id="1", task_id="3", best_rank=None, metrics={"A": 1}),
            evaluation(id="2", task_id="3", best_rank=5, metrics={"B": 1}),
            evaluation(id="3", task_id="3", best_rank=2, metrics={"C": 1}),
            evaluation(id="4", task_id=8, best_rank="1", metrics={"D": 1}),
        ]
    )
    (row,) = merged
    assert row["best_rank"] == 2  # "1" is text, not a rank
    assert row["rank_scopes"] == [
        {
            "task_id": "3",
            "task_name": "Software Engineering",
            "task_slug": "software-engineering",
            "rank": 2,
        },
        {
            "task_id": "8",
            "task_name": "Software Engineering",
            "task_slug": "software-engineering",
            "rank": None,
        },
    ]


def test_best_metric_is_filled_from_a_joining_row() -> None:
    (row,) = merge_rows(
        [
            evaluation(id="1", best_metric="", metrics={"A": 1}),
            evaluation(id="2", best_metric="Resolved", task_id="9", metrics={"B": 1}),
            evaluation(id="3", best_metric="Other", task_id="10", metrics={"C": 1}),
        ]
    )
    assert row["best_metric"] == "Resolved"


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([7_000_000_000, 7_000_000_000], 7_000_000_000),
        ([None, None], None),
        ([7_000_000_000, 8_000_000_000], None),
        ([7_000_000_000, None], None),
        ([True, True], None),  # booleans are not counts
        (["7000", "7000"], None),
        ([0, 0], None),
    ],
)
def test_parameter_counts_survive_only_when_consistent(counts, expected) -> None:
    rows = [
        evaluation(id=str(index), task_id=str(index), metrics={f"M{index}": 1}, num_parameters=n)
        for index, n in enumerate(counts)
    ]
    (row,) = merge_rows(rows)
    assert row["num_parameters"] == expected


def test_merged_order_is_rank_then_model_then_paper() -> None:
    rows = [
        evaluation(id="1", paper_id="9", model_name="beta", best_rank=None),
        evaluation(id="2", paper_id="8", model_name="Beta", best_rank=None),
        evaluation(id="3", paper_id="7", model_name="alpha", best_rank=None),
        evaluation(id="4", paper_id="6", model_name="Zed", best_rank=2),
        evaluation(id="5", paper_id="5", model_name="Yak", best_rank=10),
    ]
    ordered = [(row["model_name"], row["paper_id"]) for row in merge_rows(rows)]
    assert ordered == [("Zed", "6"), ("Yak", "5"), ("alpha", "7"), ("Beta", "8"), ("beta", "9")]


def test_rows_without_metrics_or_with_odd_metrics_still_merge() -> None:
    merged = merge_rows([evaluation(id="1", metrics=None), evaluation(id="2", metrics="n/a")])
    assert len(merged) == 1
    assert merged[0]["metrics"] == {}


# -- metric values ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (58, 58.0),
        (91.5, 91.5),
        ("58", 58.0),
        (" 1,234 ", 1234.0),
        ("91.2%", 91.2),
        ("-3.5", -3.5),
        (True, None),
        ("n/a", None),
        ("", None),
        (None, None),
        ("nan", None),
        (float("inf"), None),
        pytest.param(10**400, None, id="int-beyond-float"),
        ([1], None),
    ],
)
def test_metric_values(raw, value) -> None:
    assert metric_value({"metrics": {"mAP": raw}}, "mAP") == value


def test_metric_value_matches_the_name_case_insensitively() -> None:
    row = {"metrics": {"Top-1 Accuracy": "88.5"}}
    assert metric_value(row, "top-1 ACCURACY") == 88.5
    assert metric_value(row, "Top-5 Accuracy") is None
    assert metric_value({"metrics": None}, "x") is None


# -- metric names ----------------------------------------------------------------------


def rows_with(*names: str) -> list[dict]:
    return [{"metrics": {name: 1 for name in names}}]


@pytest.mark.parametrize(
    ("requested", "available", "expected"),
    [
        ("map", ["mAP", "FPS"], "map"),  # exact, case-insensitive
        ("AP", ["mAP", "FPS"], "map"),
        ("mAP", ["AP", "FPS"], "ap"),
        ("top1", ["Accuracy"], "accuracy"),
        ("Accuracy", ["Top-1 Accuracy", "Top-5 Accuracy"], "top-1 accuracy"),
        ("top1", ["Top-1 Accuracy", "Top-5 Accuracy"], "top-1 accuracy"),
        ("AUROC", ["AUC"], "auc"),
        ("auc", ["AUROC"], "auroc"),
        ("Pass@1", ["Pass Rate"], "pass rate"),
        ("Pass Rate", ["pass@1"], "pass@1"),
        ("D4RL Normalized Score", ["Normalized Score", "Return"], "normalized score"),
        ("Normalized", ["Normalized Score", "Return"], "normalized score"),
        ("Overall", ["GenEval Score", "Speed"], "geneval score"),
        # The request's own containment comes before its aliases' (`ap` is in all three).
        ("mAP", ["box mAP", "AP50", "AP75"], "box map"),
        # Only spacing and punctuation differ: the one metric so spelled.
        ("Top-5 Accuracy", ["Top 1 Accuracy", "Top 5 Accuracy"], "top 5 accuracy"),
        ("top_1 accuracy", ["Top-1 Accuracy", "Top-5 Accuracy"], "top-1 accuracy"),
    ],
)
def test_requested_metrics_resolve_through_aliases_and_containment(
    requested, available, expected
) -> None:
    assert resolve_metrics([requested], rows_with(*available)) == {requested.casefold(): expected}


def test_exact_match_beats_alias_and_containment() -> None:
    resolved = resolve_metrics(["AP"], rows_with("mAP", "AP", "AP50"))
    assert resolved == {"ap": "ap"}


def test_ambiguous_containment_is_unknown() -> None:
    with pytest.raises(UnknownMetric) as caught:
        resolve_metrics(["Accuracy@k"], rows_with("Top-1 Accuracy", "Top-5 Accuracy"))
    assert str(caught.value).startswith("unknown metric(s): Accuracy@k; available metrics: ")
    with pytest.raises(UnknownMetric):
        resolve_metrics(["Score"], rows_with("F Score", "G Score"))


def test_unknown_metric_message_lists_real_metrics_sorted() -> None:
    with pytest.raises(UnknownMetric) as caught:
        resolve_metrics(["BLEU", "bleu", "mAP", "Latency"], rows_with("mAP", "fps", "Box AP"))
    assert str(caught.value) == (
        "unknown metric(s): BLEU, Latency; available metrics: Box AP, fps, mAP"
    )
    assert isinstance(caught.value, UsageError)


def test_an_unknown_metric_close_to_a_real_one_names_it() -> None:
    with pytest.raises(UnknownMetric) as caught:
        resolve_metrics(["Top-5 Acuracy x"], rows_with("Top 1 Accuracy", "Top 5 Accuracy"))
    assert str(caught.value).startswith(
        "unknown metric(s): Top-5 Acuracy x (did you mean Top 5 Accuracy?); available metrics: "
    )


def test_unknown_metric_on_an_empty_leaderboard_says_none() -> None:
    with pytest.raises(UnknownMetric, match=r"available metrics: none$"):
        resolve_metrics(["mAP"], [])


# -- option parsing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("500M", 500_000_000),
        ("500m", 500_000_000),
        ("1.5B", 1_500_000_000),
        ("3b", 3_000_000_000),
        ("3_000_000_000", 3_000_000_000),
        ("3000000000", 3_000_000_000),
        ("0.5M", 500_000),
        ("1", 1),
        (" 7B ", 7_000_000_000),
        (str(MAX_PARAMETER_SIZE), MAX_PARAMETER_SIZE),
    ],
)
def test_parameter_sizes_accepted(text: str, size: int) -> None:
    assert parse_parameter_size(text) == size


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "-1",
        "1.5",
        "3K",
        "3B parameters",
        "_3B",
        "3_B",
        "1__000",
        "",
        "B",
        ".5B",
        "1.B",
        "1.0000000005B",  # not a whole number of parameters
        "0.0M",
        str(MAX_PARAMETER_SIZE + 1),
        "９B",  # full-width digit
        "1e9",
    ],
)
def test_parameter_sizes_rejected(text: str) -> None:
    with pytest.raises(UsageError, match="max_parameters"):
        parse_parameter_size(text)


def test_sort_defaults_to_descending() -> None:
    assert parse_sort("mAP") == SortOrder("mAP", descending=True)
    assert parse_sort("FPS:asc") == SortOrder("FPS", descending=False)
    assert parse_sort(" FPS : DESC ") == SortOrder("FPS", descending=True)
    assert parse_sort("F1:val:asc") == SortOrder("F1:val", descending=False)


@pytest.mark.parametrize("text", ["", ":asc", "F1:val", "mAP:up", "mAP:"])
def test_bad_sort_is_a_usage_error_naming_the_parameter(text: str) -> None:
    with pytest.raises(UsageError, match=r"^sort_metric must be"):
        parse_sort(text)


def test_pareto_objectives() -> None:
    assert parse_pareto(["mAP:higher", "FPS:Lower"]) == (
        Objective("mAP", higher=True),
        Objective("FPS", higher=False),
    )
    # One objective per item: commas belong to the metric name.
    assert parse_pareto(["F1, macro:higher", "x:lower"])[0].metric == "F1, macro"


@pytest.mark.parametrize(
    "items",
    [["mAP", "FPS:higher"], ["mAP:up", "FPS:higher"], [":higher", "x:lower"]],
)
def test_bad_pareto_is_a_usage_error(items) -> None:
    with pytest.raises(UsageError, match="pareto"):
        parse_pareto(items)


def test_metric_bounds_must_be_numbers() -> None:
    assert parse_metric_bounds({" mAP ": 50}, "minimum_metrics") == {"mAP": 50.0}
    # Types are the schema's; blank names and numbers that are no threshold are ours.
    for bad in ({"mAP": True}, {"mAP": float("nan")}, {"mAP": float("inf")}, {"": 1}):
        with pytest.raises(UsageError, match=r"^minimum_metrics"):
            parse_metric_bounds(bad, "minimum_metrics")


def test_metric_request_is_falsy_without_options() -> None:
    assert not metric_request()
    assert metric_request(sort_metric="mAP")
    with pytest.raises(UsageError, match="require_metrics"):
        metric_request(require_metrics=[" "])


def test_metric_request_names_are_deduplicated_case_insensitively() -> None:
    request = metric_request(
        require_metrics=["mAP"],
        minimum_metrics={"MAP": 1},
        sort_metric="FPS:asc",
        pareto=["map:higher", "fps:higher"],
    )
    assert request.names() == ["mAP", "FPS"]


# -- selection -------------------------------------------------------------------------


def coco_rows() -> list[dict]:
    return merge_rows(
        [
            evaluation(
                id="1",
                paper_id="1",
                model_name="Accurate",
                best_rank=1,
                metrics={"mAP": 60, "FPS": 30},
            ),
            evaluation(
                id="2",
                paper_id="2",
                model_name="Fast",
                best_rank=2,
                metrics={"mAP": "58", "FPS": "100"},
            ),
            evaluation(
                id="3",
                paper_id="3",
                model_name="Dominated",
                best_rank=3,
                metrics={"mAP": 57, "FPS": 50},
            ),
        ]
    )


def names(rows: list[dict]) -> list[str]:
    return [row["model_name"] for row in rows]


def test_spec_fixture_coco_pareto_sorted_by_fps() -> None:
    request = metric_request(pareto=["mAP:higher", "FPS:higher"], sort_metric="FPS:desc")
    assert names(select_rows(coco_rows(), request)) == ["Fast", "Accurate"]


def test_pareto_without_sort_orders_by_the_first_objective() -> None:
    higher = metric_request(pareto=["mAP:higher", "FPS:higher"])
    assert names(select_rows(coco_rows(), higher)) == ["Accurate", "Fast"]
    # Lowest first for a "lower" objective; Fast is beaten by Dominated on both.
    lower = metric_request(pareto=["FPS:lower", "mAP:lower"])
    assert names(select_rows(coco_rows(), lower)) == ["Accurate", "Dominated"]


def test_pareto_keeps_exact_duplicates() -> None:
    twin = evaluation(id="4", paper_id="4", model_name="Twin", metrics={"mAP": 60, "FPS": 30})
    rows = [*coco_rows(), twin]
    request = metric_request(pareto=["mAP:higher", "FPS:higher"])
    assert sorted(names(select_rows(rows, request))) == ["Accurate", "Fast", "Twin"]


def test_thresholds_are_inclusive() -> None:
    request = metric_request(minimum_metrics={"mAP": 58}, maximum_metrics={"FPS": 100})
    assert names(select_rows(coco_rows(), request)) == ["Accurate", "Fast"]
    request = metric_request(minimum_metrics={"mAP": 58.01})
    assert names(select_rows(coco_rows(), request)) == ["Accurate"]


def test_rows_must_report_every_named_metric() -> None:
    rows = [
        *coco_rows(),
        evaluation(id="4", paper_id="4", model_name="NoFps", best_rank=4, metrics={"mAP": 70}),
        evaluation(id="5", paper_id="5", model_name="BadFps", best_rank=5, metrics={"FPS": "x"}),
    ]
    assert names(select_rows(rows, metric_request(require_metrics=["mAP"]))) == [
        "Accurate",
        "Fast",
        "Dominated",
        "NoFps",
    ]
    assert names(select_rows(rows, metric_request(require_metrics=["FPS"]))) == [
        "Accurate",
        "Fast",
        "Dominated",
    ]


def test_sort_is_stable_and_ascending_on_request() -> None:
    rows = merge_rows(
        [
            evaluation(
                id=str(i), paper_id=str(i), model_name=name, best_rank=i, metrics={"Score": score}
            )
            for i, (name, score) in enumerate(
                [("A", 1), ("B", 2), ("C", 1), ("D", 2), ("E", 1)], start=1
            )
        ]
    )
    assert names(select_rows(rows, metric_request(sort_metric="Score"))) == [
        "B",
        "D",
        "A",
        "C",
        "E",
    ]
    assert names(select_rows(rows, metric_request(sort_metric="score:asc"))) == [
        "A",
        "C",
        "E",
        "B",
        "D",
    ]


def test_selection_uses_aliases() -> None:
    selected = select_rows(coco_rows(), metric_request(sort_metric="AP:asc"))
    assert names(selected) == ["Dominated", "Fast", "Accurate"]


def test_unknown_metric_in_selection_raises() -> None:
    with pytest.raises(UnknownMetric, match="available metrics: FPS, mAP"):
        select_rows(coco_rows(), metric_request(require_metrics=["BLEU"]))


def test_empty_request_keeps_rows() -> None:
    rows = coco_rows()
    assert select_rows(rows, MetricRequest()) == rows
