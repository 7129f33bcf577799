"""A hostile catalog against the HTTP client: codings, bombs, lying lengths, huge pages.

Each test installs one misbehaviour on the loopback fake (`tests.fake_catalog`) and
talks to it through `HttpCatalog` over real HTTP, so the body is read the way it is
in production: raw bytes off the socket, decoded by `pwc_local.upstream.bodies`.
Memory is checked with `tracemalloc` (Python allocations, deterministic), not RSS.
"""

from __future__ import annotations

import gzip
import json
import threading
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from pwc_local.upstream import documents
from pwc_local.upstream.errors import HTTPStatusError, InvalidResponse, ResponseTooLarge
from pwc_local.upstream.http import MAX_BODY_BYTES, HttpCatalog
from tests.fake_catalog import FakeCatalog
from tests.fake_catalog.faults import compressed_zeros

GIB = 1024 * 1024 * 1024
BOUND = 5 * MAX_BODY_BYTES  # "a small multiple of the cap"
ROWS = 180_000


def call(fake: FakeCatalog, action: Callable[[HttpCatalog], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with HttpCatalog(fake.api_url, timeout=20) as catalog:
            return await action(catalog)

    return anyio.run(main)


def peak_bytes(thunk: Callable[[], Any]) -> tuple[Any, int]:
    """`thunk()`'s outcome (result or exception) and the peak of Python allocations."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = thunk()
        except Exception as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    return compressed_zeros(GIB, "gzip")  # about 1 MB


def test_we_ask_for_gzip_and_undo_one_layer(fake_catalog: FakeCatalog) -> None:
    document = {"count": 1, "results": [{"id": "1", "title": "Ünïcode"}]}
    fake_catalog.faults.encoded(json.dumps(document), "gzip", prefix="tasks/", times=1)
    fake_catalog.faults.encoded(json.dumps(document), "deflate", prefix="tasks/", times=1)
    assert call(fake_catalog, lambda c: c.get_json("tasks/")) == document
    assert call(fake_catalog, lambda c: c.get_json("tasks/")) == document
    assert fake_catalog.requests[-1].headers["accept-encoding"] == "gzip"


@pytest.mark.parametrize("status", [200, 500])
def test_stacked_gzip_bomb_is_refused_without_inflating(
    fake_catalog: FakeCatalog, gzip_bomb: bytes, status: int
) -> None:
    # The reported attack: 1,827 bytes, `gzip, gzip`, 1 GiB of zeros inside.
    fake_catalog.faults.encoded(gzip_bomb, "gzip, gzip", precompressed=True, status=status)
    outcome, peak = peak_bytes(lambda: call(fake_catalog, lambda c: c.get_json("tasks/")))
    if status == 200:
        assert isinstance(outcome, InvalidResponse)
        assert "stacked" in str(outcome)
    else:  # the status still counts; the undecodable body is no detail
        assert isinstance(outcome, HTTPStatusError) and outcome.status == 500
        assert outcome.detail == ""
    assert peak < BOUND


@pytest.mark.parametrize("status", [200, 500])
def test_a_single_layer_bomb_stops_at_the_cap(
    fake_catalog: FakeCatalog, gzip_bomb: bytes, status: int
) -> None:
    fake_catalog.faults.encoded(gzip_bomb, "gzip", precompressed=True, status=status)
    outcome, peak = peak_bytes(lambda: call(fake_catalog, lambda c: c.get_json("tasks/")))
    if status == 200:
        assert isinstance(outcome, ResponseTooLarge)
    else:
        assert isinstance(outcome, HTTPStatusError) and outcome.status == 500
        assert outcome.detail == "\0" * 4096  # the detail is cut at its own small cap
    assert peak < BOUND


def test_a_deflate_bomb_stops_at_the_cap(fake_catalog: FakeCatalog) -> None:
    bomb = compressed_zeros(256 * 1024 * 1024, "deflate")
    fake_catalog.faults.encoded(bomb, "deflate", precompressed=True)
    outcome, peak = peak_bytes(lambda: call(fake_catalog, lambda c: c.get_json("tasks/")))
    assert isinstance(outcome, ResponseTooLarge)
    assert peak < BOUND


@pytest.mark.parametrize("coding", ["br", "zstd", "compress", "gzip, br", "identity, x-custom"])
def test_unknown_codings_are_refused(fake_catalog: FakeCatalog, coding: str) -> None:
    fake_catalog.faults.encoded(b'{"results": []}', coding)
    with pytest.raises(InvalidResponse):
        call(fake_catalog, lambda c: c.get_json("tasks/"))


def test_identity_is_no_layer(fake_catalog: FakeCatalog) -> None:
    fake_catalog.faults.encoded(b'{"results": []}', "identity")
    assert call(fake_catalog, lambda c: c.get_json("tasks/")) == {"results": []}


@pytest.mark.parametrize(
    "body",
    [
        gzip.compress(b'{"results": []}')[:-6],  # ends inside the compressed stream
        b"\x1f\x8b not gzip at all",
        gzip.compress(b'{"results": []}') + b"trailing",
    ],
    ids=["truncated", "garbage", "trailing"],
)
def test_a_broken_compressed_body_is_invalid(fake_catalog: FakeCatalog, body: bytes) -> None:
    fake_catalog.faults.respond(200, body, headers={"Content-Encoding": "gzip"})
    with pytest.raises(InvalidResponse):
        call(fake_catalog, lambda c: c.get_json("tasks/"))


def test_a_length_longer_than_the_body_is_invalid(fake_catalog: FakeCatalog) -> None:
    fake_catalog.faults.lying_length(b'{"results": []}', declared=1000)
    with pytest.raises(InvalidResponse):
        call(fake_catalog, lambda c: c.get_json("tasks/"))


def test_a_length_shorter_than_the_body_reads_only_what_it_says(
    fake_catalog: FakeCatalog,
) -> None:
    body = b'{"results": []}' + b" " * (8 * MAX_BODY_BYTES)
    fake_catalog.faults.lying_length(body, declared=15)
    outcome, peak = peak_bytes(lambda: call(fake_catalog, lambda c: c.get_json("tasks/")))
    assert outcome == {"results": []}
    assert peak < BOUND


def test_a_declared_huge_compressed_body_fails_before_reading(fake_catalog: FakeCatalog) -> None:
    fake_catalog.faults.lying_length(b"", declared=2**40, headers={"Content-Encoding": "gzip"})
    with pytest.raises(ResponseTooLarge):
        call(fake_catalog, lambda c: c.get_json("tasks/"))


def test_a_markdown_chunk_may_be_gzipped(fake_catalog: FakeCatalog) -> None:
    text = "α first chunk"
    version = "a" * 64
    headers = {
        "Content-Encoding": "gzip",
        "Content-Type": "text/markdown",
        "x-pwc-content-version": version,
        "x-pwc-truncated": "0",
    }
    fake_catalog.faults.respond(200, gzip.compress(text.encode()), headers=headers)
    chunk = call(
        fake_catalog,
        lambda c: c.read_markdown("1706.03762", offset=0, limit=65536, content_version=None),
    )
    assert chunk.text == text and chunk.content_version == version


# -- documents ---------------------------------------------------------------------------


def huge_page() -> bytes:
    body = json.dumps({"count": ROWS, "results": [{}] * ROWS}, separators=(",", ":"))
    assert len(body) < MAX_BODY_BYTES  # a maximal page, still under the cap
    return body.encode()


@pytest.mark.parametrize("size_param", ["page_size", "limit"])
def test_a_page_longer_than_asked_is_cut(fake_catalog: FakeCatalog, size_param: str) -> None:
    fake_catalog.faults.respond(200, huge_page())
    document = call(fake_catalog, lambda c: c.get_json("tasks/", {size_param: 5}))
    assert document == {"count": ROWS, "results": [{}] * 5}


def test_a_bare_array_and_items_are_cut_too(fake_catalog: FakeCatalog) -> None:
    fake_catalog.faults.respond(200, json.dumps([{"id": n} for n in range(50)]), times=1)
    fake_catalog.faults.respond(200, json.dumps({"items": [{"id": n} for n in range(50)]}))
    assert len(call(fake_catalog, lambda c: c.get_json("papers/recent", {"limit": 3}))) == 3
    document = call(fake_catalog, lambda c: c.get_json("tasks/", {"page_size": 3}))
    assert len(document["items"]) == 3


def test_deep_nesting_is_an_unusable_answer(fake_catalog: FakeCatalog) -> None:
    title = "[" * 800 + "]" * 800
    fake_catalog.faults.respond(200, f'{{"results": [{{"id": "1", "title": {title}}}]}}')
    with pytest.raises(InvalidResponse, match="nested too deeply"):
        call(fake_catalog, lambda c: c.get_json("papers/search", {"page_size": 5}))


def test_nesting_up_to_the_bound_is_fine() -> None:
    inner = "[" * (documents.MAX_DEPTH - 1) + "]" * (documents.MAX_DEPTH - 1)
    assert documents.parse_document(f"[{inner}]".encode()) is not None
    with pytest.raises(InvalidResponse):
        documents.parse_document(f"[[{inner}]]".encode())


def test_a_scalar_document_parses() -> None:
    assert documents.parse_document(b'"text"') == "text"


def test_large_bodies_are_parsed_off_the_event_loop(
    fake_catalog: FakeCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = documents.parse_document

    def recording(body: bytes, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        return real(body, **kwargs)

    monkeypatch.setattr("pwc_local.upstream.http.parse_document", recording)
    fake_catalog.faults.respond(200, huge_page(), times=1)
    call(fake_catalog, lambda c: c.get_json("tasks/", {"page_size": 5}))
    fake_catalog.faults.respond(200, b'{"results": []}', times=1)
    call(fake_catalog, lambda c: c.get_json("tasks/", {"page_size": 5}))
    large, small = threads
    assert large is not threading.main_thread()  # a worker thread
    assert small is threading.main_thread()  # a small body is not worth the hop


def test_zlib_is_asked_for_at_most_one_byte_over_the_room() -> None:
    # The property the bounded reader rests on, stated against zlib itself.
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = inflater.decompress(compressed_zeros(64 * 1024 * 1024, "gzip"), 101)
    assert len(out) == 101 and inflater.unconsumed_tail


# -- the row-by-row parser -----------------------------------------------------------------

FIXTURE_PATHS = [
    "papers/search?q=attention&page_size=10",
    "papers/?page_size=5",
    "papers/755",
    "papers/1706.03762/related",
    "tasks/?page_size=25",
    "tasks/image-classification/page",
    "methods/?page_size=25",
    "areas/with-tasks/",
    "conferences/",
    "organizations/",
    "frameworks/",
    "datasets/?page_size=25",
]


@pytest.mark.parametrize("path", FIXTURE_PATHS)
def test_the_row_parser_reads_what_json_reads(fake_catalog_session: FakeCatalog, path: str) -> None:
    import httpx

    body = httpx.get(f"{fake_catalog_session.api_url}/{path}").content
    text = body.decode()
    assert documents._Splitter(text, None).document() == json.loads(text)
    padded = f" \n{text}\t "
    assert documents._Splitter(padded, None).document() == json.loads(padded)


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "[]",
        "[ ]",
        " [1, 2 ,3] ",
        '{"results": null, "items": [ ]}',
        '{"a" : [1], "results" : [ {"x": [1, {"y": 2}]} , 3 ], "next_page": 2}',
        '"text"',
        "5",
        "null",
    ],
)
def test_the_row_parser_agrees_on_odd_shapes(text: str) -> None:
    assert documents._Splitter(text, None).document() == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ["", "{", "[1,", "[1,]", "[1 2]", '{"a" 1}', '{"a": 1,}', "[1]x", "{1: 2}", '{"results": [1,}'],
)
def test_the_row_parser_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        documents._Splitter(text, None).document()


def test_large_bodies_go_through_the_row_parser_with_the_same_rules() -> None:
    rows = [{"id": str(n), "title": "x" * 20} for n in range(5000)]
    body = json.dumps({"count": 5000, "results": rows, "next_page": 2}).encode()
    assert len(body) > documents.OFF_LOOP_BYTES
    cut = documents.parse_document(body, max_rows=3)
    assert cut == {"count": 5000, "results": rows[:3], "next_page": 2}
    assert documents.parse_document(body) == json.loads(body)


@pytest.mark.parametrize("size", [100, 200_000])  # the small and the large path
def test_a_listing_without_a_page_size_has_a_ceiling(size: int) -> None:
    rows = documents.UNPAGED_ROWS + 1
    filler = " " * size
    body = ('{"results": [' + ",".join(["{}"] * rows) + "]}" + filler).encode()
    with pytest.raises(InvalidResponse, match="more rows"):
        documents.parse_document(body)
    assert len(documents.parse_document(body, max_rows=rows)["results"]) == rows


@pytest.mark.parametrize("size", [0, 200_000])  # the small and the large path
def test_lone_surrogates_from_upstream_become_replacement_characters(size: int) -> None:
    body = '{"results": [{"title": "a\\ud800b", "\\udfff": ["\\ud83d\\ude00"]}]}' + " " * size
    document = documents.parse_document(body.encode())
    assert document == {"results": [{"title": "a\ufffdb", "\ufffd": ["\N{GRINNING FACE}"]}]}
