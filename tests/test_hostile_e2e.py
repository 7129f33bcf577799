"""The installed server against a hostile catalog and a hostile client, over real pipes.

Each finding of issue 11 is reproduced the way it was reported, through the installed
`pwc-mcp-local` spawned with raw JSON-RPC lines (`tests.stdio_peer`), against the
loopback fake (`tests.fake_catalog`) misbehaving on purpose:

* bodies that are decompression bombs (`gzip, gzip`, one layer, deflate), unknown
  codings and lying lengths end as `upstream_error:` and pings stay answered;
* a 180,000-row page answers `limit` rows; records too large for one answer end as
  `upstream_error:` in a line under 2 MiB; deep nesting is `upstream_error:`;
* lone surrogates are `invalid_argument:` naming the parameter, in tools, resources,
  prompts and completions; `"null"` and `"[1,2]"` reach the catalog as typed;
* resource and prompt refusals of bad input answer -32602;
* a changed paper is noticed on its first chunk.

Peak memory is the server's own high-water mark (`VmHWM`), read from /proc with a
generous bound; no test depends on timing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_catalog import ATTENTION_ID, BIG_MARKDOWN_ARXIV_ID, FakeCatalog
from tests.fake_catalog.faults import compressed_zeros
from tests.installed import InstalledServer, rows
from tests.stdio_peer import StdioPeer

pytestmark = pytest.mark.e2e

TIMEOUT_SECONDS = 5
MAX_ANSWER_BYTES = 2 * 1024 * 1024
PEAK_BOUND_KB = 300 * 1024  # "under 300 MB": generous, the reported failure was 2.1 GB
ROWS = 180_000


def hostile_server(
    root: Path, fake: FakeCatalog, timeout: float = TIMEOUT_SECONDS
) -> InstalledServer:
    """The installed server against `fake`, a `timeout` s catalog timeout, logging at info."""
    return InstalledServer(
        root, fake.api_url, PWC_MCP_LOCAL_TIMEOUT=str(timeout), PWC_MCP_LOCAL_LOG_LEVEL="info"
    )


def peak_rss_kb(pid: int) -> int | None:
    """The process's peak resident set size so far (Linux), else None."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


class Session:
    def __init__(self, peer: StdioPeer, fake: FakeCatalog) -> None:
        self.peer = peer
        self.fake = fake

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        """The `tools/call` result object (error or not)."""
        reply = self.peer.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        return reply["result"]

    def error_text(self, name: str, **arguments: Any) -> str:
        result = self.call(name, **arguments)
        assert result.get("isError") is True, result
        text: str = result["content"][0]["text"]
        prefix = f"Error executing tool {name}: "
        assert text.startswith(prefix), text
        return text[len(prefix) :]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """One raw session and fake for the whole module (not `raw_peer`): a spawn per test
    would cost more than the tests, and the session must end cleanly after them all."""
    fake = FakeCatalog().start()
    try:
        with hostile_server(tmp_path_factory.mktemp("home"), fake).peer() as peer:
            peer.initialize()
            yield Session(peer, fake)
            assert peer.finish() == 0
            peer.assert_clean_transcript()
            assert "Traceback" not in peer.stderr
    finally:
        fake.stop()


@pytest.fixture(autouse=True)
def fresh_fake(session: Session) -> Iterator[None]:
    session.fake.reset()
    yield
    session.fake.reset()


def answers_to(session: Session, ids: set[int]) -> dict[int, dict[str, Any]]:
    """The answers to `ids`, in whatever order they come."""
    answers: dict[int, dict[str, Any]] = {}
    while set(answers) != ids:
        message = session.peer.next_message()
        if message.get("id") in ids and "method" not in message:
            answers[message["id"]] = message
    return answers


def assert_alive(session: Session) -> None:
    assert session.peer.request("ping")["result"] == {}


def every_line_is_bounded(session: Session) -> None:
    lines = bytes(session.peer.stdout_bytes).split(b"\n")
    assert max(len(line) for line in lines) < MAX_ANSWER_BYTES


# -- 1. bounded decoding -------------------------------------------------------------------


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    return compressed_zeros(1024**3, "gzip")  # 1 GiB of zeros in about 1 MB


@pytest.mark.parametrize("status", [200, 500])
@pytest.mark.parametrize("codings", ["gzip, gzip", "gzip"])
def test_a_decompression_bomb_is_an_upstream_error(
    session: Session, gzip_bomb: bytes, codings: str, status: int
) -> None:
    session.fake.faults.encoded(
        gzip_bomb, codings, precompressed=True, status=status, prefix="papers/search"
    )
    # The ping goes out right behind the call: the session answers both.
    call_id = session.peer.send_request(
        "tools/call", {"name": "search_papers", "arguments": {"query": f"bomb {codings} {status}"}}
    )
    ping_id = session.peer.send_request("ping")
    answers = answers_to(session, {call_id, ping_id})
    assert answers[ping_id]["result"] == {}
    result = answers[call_id]["result"]
    assert result["isError"] is True
    assert "upstream_error:" in result["content"][0]["text"]
    peak = peak_rss_kb(session.peer.proc.pid)
    assert peak is None or peak < PEAK_BOUND_KB


def test_a_deflate_bomb_an_unknown_coding_and_lying_lengths(session: Session) -> None:
    faults = session.fake.faults
    faults.encoded(
        compressed_zeros(256 * 1024**2, "deflate"),
        "deflate",
        precompressed=True,
        prefix="methods/",
        times=1,
    )
    assert "upstream_error:" in session.error_text("list_methods", search="deflate bomb")
    faults.encoded(b'{"results": []}', "br", prefix="methods/", times=1)
    assert "upstream_error:" in session.error_text("list_methods", search="brotli")
    faults.lying_length(b'{"results": []}', declared=10_000, prefix="methods/", times=1)
    assert "upstream_error:" in session.error_text("list_methods", search="long length")
    faults.lying_length(b'{"results": []}', declared=2**40, prefix="methods/", times=1)
    assert "upstream_error:" in session.error_text("list_methods", search="huge length")
    assert_alive(session)


# -- 2. bounded answers --------------------------------------------------------------------


def huge_page() -> str:
    return json.dumps({"count": ROWS, "results": [{}] * ROWS}, separators=(",", ":"))


def test_a_180000_row_page_gives_limit_items(session: Session) -> None:
    session.fake.faults.respond(200, huge_page(), prefix="papers/search")
    result = session.call("search_papers", query="many rows", limit=5)
    assert "isError" not in result or result["isError"] is False
    assert len(result["structuredContent"]["papers"]["rows"]) == 5
    session.fake.faults.respond(200, huge_page(), prefix="tasks/")
    result = session.call("list_tasks", search="many rows", limit=5)
    assert len(result["structuredContent"]["rows"]["rows"]) == 5
    every_line_is_bounded(session)
    peak = peak_rss_kb(session.peer.proc.pid)
    assert peak is None or peak < PEAK_BOUND_KB


def test_a_record_too_large_for_one_answer_comes_back_cut(session: Session) -> None:
    # Within the body cap: catalog text is bounded in both halves (issue 34, F5), so the
    # answer fits where it used to carry the title whole (twice, in the hosted profile).
    title = "t" * (MAX_ANSWER_BYTES - 100_000)
    body = json.dumps({"results": [{"id": "1", "title": title}]})
    session.fake.faults.respond(200, body, prefix="papers/search")
    result = session.call("search_papers", query="huge title")
    assert result.get("isError") is not True
    [row] = rows(result["structuredContent"]["papers"])
    assert len(row["title"]) == 10_000 and row["title"].endswith("…")
    every_line_is_bounded(session)
    assert_alive(session)


def test_a_resource_too_large_for_one_answer_is_refused(session: Session) -> None:
    title = "t" * (MAX_ANSWER_BYTES - 100_000)
    session.fake.faults.respond(200, json.dumps({"id": "9", "title": title}), prefix="papers/")
    reply = session.peer.request("resources/read", {"uri": "pwc://papers/huge-record-2"})
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"].startswith("upstream_error:")
    every_line_is_bounded(session)


# -- 4. input and upstream hygiene -----------------------------------------------------------


def test_deep_nesting_is_an_upstream_error(session: Session) -> None:
    title = "[" * 800 + "]" * 800
    session.fake.faults.respond(200, f'{{"results": [{{"id": "1", "title": {title}}}]}}')
    assert session.error_text("search_papers", query="deep").startswith("upstream_error:")
    assert "internal_error" not in session.peer.stderr


def test_a_lone_surrogate_from_upstream_is_mended_not_fatal(session: Session) -> None:
    body = '{"results": [{"id": "1", "title": "bad \\ud800 title"}]}'
    session.fake.faults.respond(200, body, prefix="papers/search")
    result = session.call("search_papers", query="surrogate title")
    assert result.get("isError") is not True, result
    assert rows(result["structuredContent"]["papers"])[0]["title"] == "bad \ufffd title"
    assert "cache writes failing" not in session.peer.stderr


LONE = "\ud800"  # StdioPeer's json.dumps writes it as the escape a client sends: \\ud800


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("list_papers", {"search": LONE}, "search"),
        ("list_papers", {"authors": ["Ada", "\udfff x"]}, "authors[1]"),
        ("list_tasks", {"search": f"a{LONE}b"}, "search"),
        ("list_tasks", {"area": "\udbff"}, "area"),
        ("list_methods", {"search": LONE}, "search"),
        ("list_benchmarks", {"search": LONE}, "search"),
        ("list_benchmarks", {"task": LONE}, "task"),
        ("get_benchmark", {"benchmark": "x", "minimum_metrics": {LONE: 1}}, "minimum_metrics"),
        ("search_papers", {"query": LONE}, "query"),
        ("get_paper_info", {"paper": LONE}, "paper"),
    ],
)
def test_a_lone_surrogate_in_a_tool_argument_is_invalid(
    session: Session, tool: str, arguments: dict[str, Any], named: str
) -> None:
    result = session.call(tool, **arguments)
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(
        f"Error executing tool {tool}: invalid_argument: {named} is not valid Unicode"
    )
    assert len(session.fake.requests) == 0  # refused before anything was asked


LONG = "x" * 100_000  # over every string bound; the catalog refused such a URL (F3)


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("list_papers", {"search": LONG}, "search must have at most 500 characters"),
        ("list_papers", {"authors": ["Ada", LONG]}, "authors[1] must have at most 200"),
        ("list_tasks", {"area": LONG}, "area must have at most 500"),
        ("list_methods", {"search": LONG}, "search must have at most 500"),
        ("list_benchmarks", {"task": LONG}, "task must have at most 500"),
        ("list_frameworks", {"platform": LONG}, "platform must have at most 500"),
        ("get_benchmark", {"benchmark": "x", "pareto": [LONG, "a"]}, "pareto[0] must have"),
        ("get_benchmark", {"benchmark": "x", "minimum_metrics": {LONG: 1}}, "minimum_metrics"),
        ("read_paper", {"paper": "1706.03762", "cursor": LONG}, "cursor must have at most"),
        ("sota_history", {"benchmark": "x", "metric": LONG}, "metric must have at most 200"),
    ],
)
def test_a_string_over_its_bound_is_invalid_before_the_catalog(
    session: Session, tool: str, arguments: dict[str, Any], named: str
) -> None:
    result = session.call(tool, **arguments)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith(f"Error executing tool {tool}: invalid_argument: {named}"), text
    assert len(session.fake.requests) == 0  # refused before anything was asked


def test_a_valid_surrogate_pair_is_fine(session: Session) -> None:
    result = session.call("list_tasks", search="\N{GRINNING FACE}")  # sent as \ud83d\ude00
    assert result.get("isError") is not True
    # (The default profile's list also asks for the areas' names, when not cached.)
    searched = [request.query.get("q") for request in session.fake.requests]
    assert ["\N{GRINNING FACE}"] in searched


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        ("resources/read", {"uri": f"pwc://papers/{LONE}"}, "uri"),
        ("prompts/get", {"name": "find_papers", "arguments": {"topic": LONE}}, "arguments.topic"),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "survey_task"},
                "argument": {"name": "task", "value": LONE},
            },
            "argument.value",
        ),
    ],
)
def test_a_lone_surrogate_elsewhere_is_invalid_params(
    session: Session, method: str, params: dict[str, Any], named: str
) -> None:
    reply = session.peer.request(method, params)
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith(f"invalid_argument: {named} is not valid Unicode")


@pytest.mark.parametrize("typed", ["null", "true", "[1,2]", '{"a": 1}', "5", '"quoted"'])
def test_json_looking_text_is_searched_as_typed(session: Session, typed: str) -> None:
    result = session.call("list_tasks", search=typed)
    assert result.get("isError") is not True, result
    assert session.fake.requests.last.query["q"] == [typed]
    result = session.call("list_papers", search=typed)
    assert result.get("isError") is not True, result
    assert session.fake.requests.last.query["search"] == [typed]


def test_a_list_parameter_still_accepts_json_text(session: Session) -> None:
    # Clients that send arrays as JSON text (the reason the SDK pre-parses) still work.
    result = session.call("get_benchmark", benchmark="COCO", require_metrics='["mAP"]')
    assert result.get("isError") is not True, result


# -- 5. right protocol codes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "code_prefix"),
    [
        ("pwc://papers/" + "x" * 501, "invalid_argument:"),
        ("pwc://nothing/here", "not_found:"),
        ("pwc://papers/2308.10195", "not_found:"),
    ],
)
def test_resource_refusals_of_bad_input_are_invalid_params(
    session: Session, uri: str, code_prefix: str
) -> None:
    reply = session.peer.request("resources/read", {"uri": uri})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith(code_prefix)


def test_a_resource_uri_that_is_no_string_is_invalid_params(session: Session) -> None:
    reply = session.peer.request("resources/read", {"uri": 5})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("invalid_argument:")


def test_a_resource_failing_upstream_is_an_internal_error_with_its_code(session: Session) -> None:
    session.fake.faults.server_error(prefix="papers/")
    reply = session.peer.request("resources/read", {"uri": "pwc://papers/1810.04805"})
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"].startswith("upstream_error:")


def test_a_markdown_resource_too_long_is_invalid_params(session: Session) -> None:
    uri = f"pwc://papers/{BIG_MARKDOWN_ARXIV_ID}/markdown"
    reply = session.peer.request("resources/read", {"uri": uri})
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith("invalid_argument:")


@pytest.mark.parametrize(
    "params",
    [
        {"name": "no_such_prompt", "arguments": {}},
        {"name": "find_papers", "arguments": {}},
        {"name": "find_papers", "arguments": {"topic": "x", "extra": "y"}},
        {"name": "find_papers", "arguments": {"topic": 5}},
        {"name": 5},
    ],
)
def test_prompt_refusals_are_invalid_params(session: Session, params: dict[str, Any]) -> None:
    reply = session.peer.request("prompts/get", params)
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"].split(":")[0] in ("invalid_argument", "not_found")


# -- 7. fresh versions -----------------------------------------------------------------------


def test_a_changed_paper_is_noticed_on_its_first_chunk(session: Session) -> None:
    paper = BIG_MARKDOWN_ARXIV_ID
    first = session.call("read_paper", paper=paper)["structuredContent"]
    session.fake.set_markdown(paper, "# Rewritten\n\n" + "new words " * 10_000)
    again = session.call("read_paper", paper=paper)["structuredContent"]
    assert again["markdown"].startswith("# Rewritten")
    following = session.call("read_paper", paper=paper, cursor=again["next_cursor"])
    assert following.get("isError") is not True, following
    assert first["markdown"] != again["markdown"]


def test_an_unchanged_paper_reads_through(session: Session) -> None:
    assert session.call("read_paper", paper=ATTENTION_ID).get("isError") is not True
