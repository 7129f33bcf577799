"""Exact entity matching, suggestions, not-found messages and area resolution."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pwc_local.queries.lookup import (
    areas_matching,
    closest_known,
    closest_names,
    exact_match,
    is_numeric_id,
    listing_payload,
    not_found,
    resolve_area,
    search_stem,
)
from pwc_local.upstream.errors import HTTPStatusError, InvalidResponse, NotFound
from tests.scripted_catalog import error, run_against

TASKS = [
    {"id": "2", "name": "Optical Character Recognition", "slug": "ocr"},
    {"id": "17", "name": "Scene Text Recognition", "slug": "scene-text-recognition"},
    {"id": "99", "name": "OCR", "slug": "ocr-benchmarks"},
]

AREAS = {"results": [{"id": "1", "name": "Vision"}, {"id": "6", "name": "audio"}, {"id": "3"}]}


def test_name_beats_an_earlier_slug_match() -> None:
    assert exact_match(TASKS, "OCR", ("name", "slug", "id"))["id"] == "99"


def test_fields_are_tried_in_order() -> None:
    assert exact_match(TASKS, "scene-text-recognition", ("name", "slug", "id"))["id"] == "17"
    assert exact_match(TASKS, "17", ("name", "slug", "id"))["name"] == "Scene Text Recognition"
    assert exact_match(TASKS, "17", ("name", "slug")) is None


def test_matching_trims_and_case_folds() -> None:
    assert exact_match(TASKS, "  scene TEXT recognition ", ("name",))["id"] == "17"
    assert exact_match([{"name": "Straße"}], "STRASSE", ("name",)) is not None


def test_numeric_ids_match_their_text() -> None:
    assert exact_match([{"id": 42, "name": "X"}], "42", ("name", "id")) == {"id": 42, "name": "X"}


def test_blank_and_substring_references_match_nothing() -> None:
    assert exact_match(TASKS, "   ", ("name", "slug")) is None
    assert exact_match(TASKS, "Scene Text", ("name", "slug")) is None
    assert exact_match([{"name": None, "slug": ""}], "", ("name", "slug")) is None


def test_match_is_a_copy() -> None:
    rows = [{"name": "A"}]
    exact_match(rows, "a", ("name",))["name"] = "changed"
    assert rows == [{"name": "A"}]


def test_closest_names_put_containing_names_first() -> None:
    rows = [
        {"name": "Text Detection"},
        {"name": "Scene Text Recognition"},
        {"name": "Scene Text Detection"},
        {"name": "Speech Recognition"},
    ]
    assert closest_names(rows, "scene text")[:2] == [
        "Scene Text Detection",
        "Scene Text Recognition",
    ]
    assert closest_names(rows, "scene text", limit=1) == ["Scene Text Detection"]


def test_closest_names_fall_back_to_slug_and_skip_duplicates() -> None:
    rows = [{"name": "", "slug": "vllm"}, {"name": "vLLM"}, {"slug": None}]
    assert closest_names(rows, "vlm", ("name", "slug")) == ["vllm"]


def test_closest_names_cutoff_drops_unrelated_names() -> None:
    rows = [{"name": "NVIDIA"}, {"name": "Google"}, {"name": "Meta"}]
    assert closest_names(rows, "nvidea", cutoff=0.5) == ["NVIDIA"]
    assert closest_names(rows, "zzzz", cutoff=0.5) == []
    assert len(closest_names(rows, "zzzz")) == 3


def test_not_found_messages_keep_the_stable_prefix() -> None:
    assert str(not_found("Task", " ocrx ", ["OCR", "Text"])) == (
        "Task not found: ocrx; closest results: OCR, Text"
    )
    assert str(not_found("Benchmark", "nothing", [])) == "Benchmark not found: nothing"


def test_numeric_ids_are_ascii_digits_only() -> None:
    assert is_numeric_id("17")
    assert not is_numeric_id("17a")
    assert not is_numeric_id("²")


def test_listing_payload_wraps_bare_arrays_and_rejects_other_shapes() -> None:
    document = {"count": 1, "results": [{"id": "1"}]}
    assert listing_payload(document, "x") is document
    assert listing_payload([{"id": "1"}, 3], "x") == {"count": 1, "results": [{"id": "1"}]}
    with pytest.raises(InvalidResponse):
        listing_payload({"results": "no"}, "x")


def test_resolve_area_by_name_or_id() -> None:
    (area_id, rows), seen = run_against({"areas/": AREAS}, lambda c: resolve_area(c, " AUDIO "))
    assert area_id == "6"
    assert len(rows) == 3
    assert [(s.path, s.params) for s in seen] == [
        ("areas/", {"page": "1", "page_size": "500", "ordering": "name"})
    ]
    (area_id, _), _ = run_against({"areas/": AREAS}, lambda c: resolve_area(c, "1"))
    assert area_id == "1"


def test_unknown_area_lists_available_names_sorted() -> None:
    with pytest.raises(NotFound) as caught:
        run_against({"areas/": AREAS}, lambda c: resolve_area(c, "Robotics"))
    assert str(caught.value) == "Area not found: Robotics; available areas: audio, Vision"


def test_areas_matching_keeps_every_match() -> None:
    areas = [{"id": "1", "name": "Vision"}, {"id": "vision", "name": "Other"}, {"id": "6"}]
    assert [a["name"] for a in areas_matching(areas, "VISION")] == ["Vision", "Other"]
    assert areas_matching(areas, None) is areas
    with pytest.raises(NotFound, match=r"available areas: Other, Vision$"):
        areas_matching(areas, "Audio")


def test_area_endpoint_failure_is_not_an_area_error() -> None:
    with pytest.raises(HTTPStatusError):
        run_against(
            {"areas/": httpx.Response(503, json={"detail": "busy"})},
            lambda c: resolve_area(c, "Vision"),
        )


# -- suggestions for a search that found nothing ---------------------------------------


@pytest.mark.parametrize(
    ("typed", "stem"),
    [
        ("imagnet", "imag"),
        ("image classifcation", "clas"),
        ("ImageNet-1k v2", "Imag"),
        ("ab", None),
    ],
)
def test_a_broader_search_sends_the_start_of_the_longest_word(typed: str, stem: str | None) -> None:
    assert search_stem(typed) == stem


class Known:
    """A `KnownNames` holding fixed names, recording what it was asked."""

    def __init__(self, *labels: str) -> None:
        self.names = [type("Name", (), {"label": label})() for label in labels]
        self.asked: list[tuple[str, str]] = []

    def lookup(self, kind: str, prefix: str) -> list[Any]:
        self.asked.append((kind, prefix))
        return self.names


def _known(routes: dict[str, Any], names: Known | None, typed: str) -> tuple[list[str], list[Any]]:
    return run_against(
        routes,
        lambda c: closest_known(
            c, names, kind="benchmark", reference=typed, path="datasets/", params={"page": 1}
        ),
    )


def test_the_broader_search_and_the_known_names_give_the_closest() -> None:
    rows = {"results": [{"name": "ImageNet-1k"}, {"name": "Imagenette"}, {"name": "ImageCLEF"}]}
    names = Known("CIFAR-10", "imagenet-1k")  # the same name as the catalog's: once
    found, requests = _known({"datasets/": rows}, names, "imagnet")
    assert sorted(found) == ["ImageCLEF", "ImageNet-1k", "Imagenette"]  # the catalog's spelling
    assert [r.params["q"] for r in requests] == ["imag"]
    assert names.asked == [("benchmark", "")]


def test_a_failed_broader_search_leaves_the_known_names() -> None:
    found, requests = _known({"datasets/": error(500)}, Known("CIFAR-10"), "cfar10")
    assert found == ["CIFAR-10"] and len(requests) == 1
    assert _known({}, None, "xyzzy")[0] == []
