"""Tests of the loopback fake catalog itself (tests/fake_catalog), over real HTTP.

The rest of the suite trusts the fake, so these check the parts that are easy to
get subtly wrong: routing on encoded segments, byte-exact chunking of multi-byte
Markdown, the 409 after a content swap, every fault switch, and the request log.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.fake_catalog import (
    BIG_MARKDOWN_ARXIV_ID,
    FakeCatalog,
    big_document,
)

MIB2 = 2 * 1024 * 1024


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as http:
        yield http


def read_all(client: httpx.Client, fake: FakeCatalog, key: str, limit: int) -> list[bytes]:
    """Read a document chunk by chunk, checking the header contract on every chunk."""
    chunks: list[bytes] = []
    offset, version = 0, None
    while True:
        params: dict[str, object] = {"offset": offset, "limit": limit}
        if version is not None:
            params["content_version"] = version
        response = client.get(fake.url(f"research/papers/{key}/read"), params=params)
        assert response.status_code == 200
        body = response.content
        body.decode("utf-8")  # every chunk must be valid UTF-8 on its own
        assert len(body) <= max(limit, 4)
        current = response.headers["x-pwc-content-version"]
        assert version in (None, current)
        version = current
        chunks.append(body)
        if response.headers["x-pwc-truncated"] == "0":
            assert "x-pwc-next-offset" not in response.headers
            return chunks
        assert response.headers["x-pwc-truncated"] == "1"
        next_offset = int(response.headers["x-pwc-next-offset"])
        assert next_offset - offset == len(body) > 0
        offset = next_offset


# -- routing ---------------------------------------------------------------------------


def test_paper_references_route_on_encoded_segments(fake_catalog, client):
    legacy = client.get(fake_catalog.url("papers/math.GT%2F0309136"))
    assert legacy.status_code == 200
    assert legacy.json()["id"] == "900"
    # An unencoded slash makes two segments, which is no route at all.
    assert client.get(fake_catalog.url("papers/math.GT/0309136")).status_code == 404
    assert client.get(fake_catalog.url("papers/1706.03762v7")).json()["id"] == "755"
    assert client.get(fake_catalog.url("papers/86122")).json()["arxiv_id"] == "2505.18132v1"
    assert client.get(fake_catalog.url("papers/4242")).json()["source"] == "external"
    missing = client.get(fake_catalog.url("papers/2308.10195"))
    assert (missing.status_code, missing.json()) == (404, {"detail": "No paper found"})


def test_trailing_slashes_are_significant(fake_catalog, client):
    assert client.get(fake_catalog.url("tasks/"), params={"page_size": 1}).status_code == 200
    assert client.get(fake_catalog.url("tasks")).status_code == 404
    assert client.get(fake_catalog.url("papers/1706.03762/")).status_code == 404


def test_task_names_resolve_in_encoded_path_segments(fake_catalog, client):
    response = client.get(fake_catalog.url("tasks/Image%20Classification/trending-benchmarks"))
    assert response.status_code == 200
    assert response.json()["task_slug"] == "image-classification"
    assert [row["id"] for row in response.json()["results"]][:1] == ["72"]


def test_author_filters_echo_and_fail_like_the_api(fake_catalog, client):
    url = fake_catalog.url("papers/")
    both = client.get(url, params=[("author", "000264"), ("author", "@YilunDu")]).json()
    assert [row["id"] for row in both["results"]] == ["91030"]
    assert both["applied_filters"]["authors"] == [
        {"id": "264", "name": "Kaiming He", "hf_username": None},
        {"id": "26405", "name": "Yilun Du", "hf_username": "yilundu"},
    ]
    ambiguous = client.get(url, params={"author": "alex  kim"})
    assert ambiguous.status_code == 409
    assert ambiguous.json()["detail"]["code"] == "ambiguous_author"
    assert [c["id"] for c in ambiguous.json()["detail"]["candidates"]] == ["41", "72"]
    assert client.get(url, params={"author": "Nobody Atall"}).status_code == 404
    assert client.get(url, params={"author": "@"}).status_code == 422


def test_catalog_filters_echo_the_raw_requested_text(fake_catalog, client):
    sent = {"task": "image-CLASSIFICATION", "conference": "neurips", "organization": "Qwen"}
    body = client.get(fake_catalog.url("papers/"), params=sent).json()
    assert body["applied_filters"] == sent
    assert body["count"] == 0  # Qwen has no NeurIPS image-classification paper


# -- Markdown read protocol ------------------------------------------------------------------


def test_big_document_is_deterministic_and_multibyte():
    text = big_document()
    data = text.encode("utf-8")
    assert len(data) > 200 * 1024
    assert len(data) > len(text) * 1.3  # dense in multi-byte characters
    for sample in ("λ", "語", "🧬", "∑"):
        assert sample in text
    assert big_document() is text


def test_64k_chunks_cut_inside_characters_and_reassemble_exactly(fake_catalog, client):
    chunks = read_all(client, fake_catalog, BIG_MARKDOWN_ARXIV_ID, 65536)
    assert b"".join(chunks) == big_document().encode("utf-8")
    assert len(chunks) >= 4
    # Every 64 KiB cut fell inside a multi-byte character, so each full chunk is short.
    assert all(len(chunk) < 65536 for chunk in chunks[:-1])


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 4093])
def test_odd_limits_reassemble_exactly(fake_catalog, client, limit):
    text = "α first ✓ 中文 🚀 end" * (40 if limit > 5 else 1)
    fake_catalog.set_markdown("2006.16236", text)
    chunks = read_all(client, fake_catalog, "2006.16236", limit)
    assert b"".join(chunks).decode("utf-8") == text


def test_chunk_shapes_at_the_edges(fake_catalog, client):
    fake_catalog.set_markdown("2006.16236", "α first🚀")
    url = fake_catalog.url("research/papers/2006.16236/read")
    first = client.get(url, params={"offset": 0, "limit": 8})
    assert (first.text, first.headers["x-pwc-next-offset"]) == ("α first", "8")
    emoji = client.get(url, params={"offset": 8, "limit": 1})
    assert emoji.text == "🚀"  # a limit below one character still returns that character
    assert emoji.headers["x-pwc-truncated"] == "0"
    past_end = client.get(url, params={"offset": 12, "limit": 5})
    assert (past_end.content, past_end.headers["x-pwc-truncated"]) == (b"", "0")
    inside = client.get(url, params={"offset": 1, "limit": 5})
    assert inside.status_code == 422


def test_whole_document_read_and_version_header(fake_catalog, client):
    response = client.get(fake_catalog.url("research/papers/4242/read"))
    expected = fake_catalog.markdown("4242")
    assert response.text == expected
    assert response.headers["x-pwc-truncated"] == "0"
    version = hashlib.sha256(expected.encode()).hexdigest()
    assert response.headers["x-pwc-content-version"] == version
    assert fake_catalog.content_version("4242") == version


def test_swapped_content_answers_409_to_an_old_version(fake_catalog, client):
    url = fake_catalog.url("research/papers/math.GT%2F0309136/read")
    first = client.get(url, params={"offset": 0, "limit": 10})
    old_version = first.headers["x-pwc-content-version"]
    fake_catalog.set_markdown("math.GT/0309136", "# Rewritten\n")
    params = {"offset": 10, "limit": 10, "content_version": old_version}
    assert client.get(url, params=params).status_code == 409
    fresh = client.get(url, params={"offset": 0, "limit": 100})
    assert fresh.text == "# Rewritten\n"
    assert fresh.headers["x-pwc-content-version"] != old_version


def test_read_404_distinguishes_missing_paper_from_missing_markdown(fake_catalog, client):
    def detail(key: str) -> tuple[int, object]:
        response = client.get(fake_catalog.url(f"research/papers/{key}/read"))
        return response.status_code, response.json()["detail"]

    assert detail("1412.6980") == (404, "Paper Markdown was not found")
    assert detail("2308.10195") == (404, "No paper found")
    # The read route knows arXiv papers only by arXiv ID (catalog-api.md §3.1).
    assert detail("755")[0] == 404
    assert client.get(fake_catalog.url("papers/1412.6980")).status_code == 200


# -- fault switches ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("install", "status", "text"),
    [
        (lambda f: f.server_error(), 500, "Internal Server Error"),
        (lambda f: f.bad_gateway(), 502, "Bad Gateway"),
        (lambda f: f.service_unavailable(), 503, "Service Unavailable"),
        (lambda f: f.gateway_timeout(), 504, "Gateway Timeout"),
    ],
)
def test_status_faults(fake_catalog, client, install, status, text):
    install(fake_catalog.faults)
    response = client.get(fake_catalog.url("tasks/"))
    assert response.status_code == status
    assert text in response.json()["detail"]


def test_rate_limit_carries_retry_after(fake_catalog, client):
    fake_catalog.faults.rate_limited("17")
    response = client.get(fake_catalog.url("areas/"))
    assert (response.status_code, response.headers["retry-after"]) == (429, "17")


def test_faults_limited_by_prefix_and_count(fake_catalog, client):
    fake_catalog.faults.server_error(prefix="papers/search", times=2)
    search = fake_catalog.url("papers/search")
    assert client.get(fake_catalog.url("papers/755")).status_code == 200
    assert [client.get(search, params={"q": "x"}).status_code for _ in range(3)] == [
        500,
        500,
        200,
    ]


def test_invalid_json_fault(fake_catalog, client):
    fake_catalog.faults.invalid_json(times=1)
    response = client.get(fake_catalog.url("conferences/"))
    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()


@pytest.mark.parametrize("content_length", [True, False])
def test_oversized_fault(fake_catalog, client, content_length):
    fake_catalog.faults.oversized(content_length=content_length)
    response = client.get(fake_catalog.url("frameworks/"))
    assert len(response.content) > MIB2
    if content_length:
        assert int(response.headers["content-length"]) > MIB2
    else:
        assert "content-length" not in response.headers
        assert response.headers["transfer-encoding"] == "chunked"


def test_old_server_mode_drops_confirmation_fields(fake_catalog, client):
    fake_catalog.faults.old_server()
    papers = client.get(fake_catalog.url("papers/"), params={"task": "ocr"}).json()
    assert "applied_filters" not in papers
    evaluations = client.get(
        fake_catalog.url("evaluations/"),
        params={"dataset_id": "72", "max_parameters_exclusive": 10},
    ).json()
    assert "parameter_coverage_known" not in evaluations
    assert "parameter_coverage_total" not in evaluations
    fake_catalog.faults.reset()
    evaluations = client.get(fake_catalog.url("evaluations/"), params={"dataset_id": "72"}).json()
    assert isinstance(evaluations["parameter_coverage_known"], int)


def test_slow_fault_holds_until_reset(fake_catalog, client):
    fake_catalog.faults.slow(prefix="areas/")
    outcome: dict[str, int] = {}

    def call() -> None:
        outcome["status"] = client.get(fake_catalog.url("areas/")).status_code

    worker = threading.Thread(target=call)
    worker.start()
    assert fake_catalog.faults.wait_until_blocked(1)
    assert "status" not in outcome
    fake_catalog.faults.reset()
    worker.join(10)
    assert outcome == {"status": 200}


def test_slow_fault_outlasts_a_client_timeout(fake_catalog):
    fake_catalog.faults.slow(after_headers=True)
    with httpx.Client(timeout=0.2) as impatient, pytest.raises(httpx.ReadTimeout):
        impatient.get(fake_catalog.url("tasks/")).read()


def test_drop_connection_fault(fake_catalog, client):
    fake_catalog.faults.drop_connection(times=1)
    with pytest.raises(httpx.TransportError):
        client.get(fake_catalog.url("tasks/"))
    assert client.get(fake_catalog.url("tasks/")).status_code == 200


def test_refused_connections_and_restart_on_the_same_port(fake_catalog, client):
    url = fake_catalog.url("areas/")
    assert client.get(url).status_code == 200  # leaves a keep-alive connection open
    port = fake_catalog.port
    fake_catalog.faults.refuse_connections()
    with pytest.raises(httpx.TransportError):
        client.get(url)
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)
    fake_catalog.faults.reset()
    assert fake_catalog.port == port
    assert httpx.get(url).status_code == 200
    fake_catalog.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)
    fake_catalog.start()
    assert httpx.get(url).status_code == 200


# -- request log ------------------------------------------------------------------------------


def test_request_log_records_raw_paths_queries_and_agent(fake_catalog, client):
    client.get(
        fake_catalog.url("papers/"),
        params=[("author", "Kaiming He"), ("author", "@yilundu"), ("page", "1")],
        headers={"User-Agent": "pwc-mcp-local/test"},
    )
    client.get(fake_catalog.url("papers/math.GT%2F0309136"))
    client.get(fake_catalog.url("papers/search"), params={"q": "a b"})
    first, second, third = fake_catalog.requests
    assert (first.method, first.path) == ("GET", "papers/")
    assert first.query["author"] == ["Kaiming He", "@yilundu"]
    assert first.user_agent == "pwc-mcp-local/test"
    assert first.status == 200
    assert second.path == "papers/math.GT%2F0309136"
    assert second.full_path == "/api/v1/papers/math.GT%2F0309136"
    assert third.param("q") == "a b"
    assert fake_catalog.requests.count("papers/") == 3
    assert fake_catalog.requests.count_path("papers/") == 1
    fake_catalog.requests.clear()
    assert len(fake_catalog.requests) == 0
