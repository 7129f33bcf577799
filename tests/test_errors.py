"""Failures become `code: sentence` tool errors in one place (tools.md §4, issue brief).

Unit tests pin the mapping of every error class; in-process server tests pin the
two SDK seams (schema violations and unknown tools) and prove that a tool call
that fails leaves the server serving, all without the network: the catalog is a
stub that raises the typed errors `HttpCatalog` would raise.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field, ValidationError

from pwc_local.common.references import shown
from pwc_local.config import ConfigError, Settings
from pwc_local.present.hosted import QueryResult
from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.safe_text import one_line
from pwc_local.server.app import PwcServer, build_server
from pwc_local.server.errors import (
    error_message,
    unknown_tool_message,
    validation_message,
)
from pwc_local.store.cache import DiskCache
from pwc_local.store.cached_catalog import CachingCatalog
from pwc_local.upstream.errors import (
    Ambiguous,
    CatalogError,
    CursorMismatch,
    ExpiredCursor,
    HTTPStatusError,
    InvalidCursor,
    InvalidResponse,
    NoMarkdown,
    NotFound,
    NotJSON,
    PaperChanged,
    PaperMissing,
    ResponseTooLarge,
    UnknownMetric,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnreachable,
    UsageError,
    catalog_detail,
    is_missing,
    translate_404,
)
from pwc_local.upstream.source import CatalogSource
from tests.scripted_catalog import BASE, ScriptedCatalog, error


def _code(message: str) -> str:
    return message.split(":", 1)[0]


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (HTTPStatusError(404, '{"detail":"No paper found"}'), "not_found"),
        (HTTPStatusError(400, '{"detail":"bad"}'), "invalid_argument"),
        (HTTPStatusError(422, "x"), "invalid_argument"),
        (HTTPStatusError(429, ""), "rate_limited"),
        (HTTPStatusError(504, "<h1>504 Gateway Timeout</h1>"), "upstream_timeout"),
        (HTTPStatusError(502, "upstream timed out"), "upstream_timeout"),
        (HTTPStatusError(404, "gateway timeout"), "not_found"),  # 404 is decided first
        (HTTPStatusError(500, "Internal Server Error"), "upstream_error"),
        (HTTPStatusError(409, "conflict"), "upstream_error"),
        (UpstreamTimeout("catalog request timed out"), "upstream_timeout"),
        (UpstreamUnreachable("catalog unreachable (ConnectError)"), "upstream_error"),
        (InvalidResponse("catalog returned invalid JSON"), "upstream_error"),
        (ResponseTooLarge(2 * 1024 * 1024), "upstream_error"),
        (UpstreamError("something"), "upstream_error"),
        (NotFound("Task not found: x"), "not_found"),
        (PaperMissing("Paper not found: 2308.10195"), "not_found"),
        (Ambiguous("Paper title is ambiguous: A (1), A (2)"), "ambiguous"),
        (UsageError("max_parameters must be a positive size"), "invalid_argument"),
        (UnknownMetric("unknown metric(s): x"), "invalid_argument"),
        (NoMarkdown("whatever"), "no_markdown"),
        (PaperChanged("whatever"), "paper_changed"),
        (InvalidCursor("whatever"), "invalid_cursor"),
        (ExpiredCursor("whatever"), "expired_cursor"),
        (CursorMismatch("whatever"), "cursor_mismatch"),
        (ConfigError("key file is group-readable; chmod 600 it"), "config_error"),
        (CatalogError("a class nobody mapped"), "internal_error"),
        (RuntimeError("boom"), "internal_error"),
        (KeyError("k"), "internal_error"),
    ],
)
def test_every_error_class_has_its_code(exc: BaseException, expected: str) -> None:
    message = error_message(exc)
    assert _code(message) == expected
    assert message.split(": ", 1)[1].strip()  # a sentence follows the code


@pytest.mark.parametrize(
    ("exc", "text"),
    [
        (HTTPStatusError(404, ""), "not_found: the requested catalog record does not exist."),
        (HTTPStatusError(422, "\x00"), "invalid_argument: the catalog rejected the request."),
        (
            HTTPStatusError(429, "", retry_after="1"),
            "rate_limited: the Papers With Code catalog is rate limiting requests; "
            "retry after 1 second.",
        ),
        (
            UpstreamTimeout("x"),
            "upstream_timeout: the Papers With Code catalog did not answer in time; retry later "
            "or narrow the request.",
        ),
        (
            UpstreamUnreachable("x"),
            "upstream_error: the Papers With Code catalog could not be reached; check the "
            "network connection and the PWC_API_URL setting.",
        ),
        (
            HTTPStatusError(500, "Internal Server Error"),
            "upstream_error: the Papers With Code catalog answered HTTP 500, a failure on its "
            "side; retry in a minute, or later if it persists.",
        ),
        (
            NotJSON("x"),
            "upstream_error: the Papers With Code catalog's answer was not JSON (a proxy or "
            "maintenance page, often); retry in a minute, and if it persists check the "
            "PWC_API_URL setting.",
        ),
        (
            ResponseTooLarge(2 * 1024 * 1024),
            "upstream_error: the Papers With Code catalog's answer was over 2 MiB, the most "
            "this client reads; ask for less (a smaller limit, fewer options) or a narrower "
            "request.",
        ),
        (UpstreamError("x"), "upstream_error: the Papers With Code catalog request failed."),
        (
            NoMarkdown("x"),
            "no_markdown: no stored Markdown is available for this paper; use get_paper_info "
            "for its metadata and links.",
        ),
        (
            PaperChanged("x"),
            "paper_changed: paper changed since the cursor was issued; restart by calling "
            "read_paper without a cursor.",
        ),
        (
            InvalidCursor("x"),
            "invalid_cursor: invalid continuation cursor; pass the exact next_cursor of the "
            "previous read_paper result, or omit cursor to start from the beginning.",
        ),
        (
            ExpiredCursor("x"),
            "expired_cursor: expired continuation cursor; omit cursor to read the paper again "
            "from the beginning.",
        ),
        (
            CursorMismatch("x"),
            "cursor_mismatch: the cursor belongs to a different paper; omit cursor to read this "
            "paper from the beginning.",
        ),
        (
            CatalogError("x"),
            "internal_error: the server failed to handle this request; this is a bug.",
        ),
    ],
)
def test_the_fixed_sentences_read_as_before(exc: BaseException, text: str) -> None:
    assert error_message(exc) == text


def test_each_class_carries_its_code_and_the_mapping_only_composes() -> None:
    for exc in (
        NotFound("Task not found: x"),
        NoMarkdown("diagnostic"),
        ExpiredCursor("diagnostic"),
        HTTPStatusError(429, "", retry_after="3"),
        UpstreamUnreachable("diagnostic"),
        ConfigError("key file is group-readable; chmod 600 it"),
    ):
        assert error_message(exc) == f"{exc.code}: {exc.public_message()}"
    assert HTTPStatusError(422, "x").code == "invalid_argument"
    assert HTTPStatusError(504, "").code == "upstream_error"  # only a body saying so is a timeout


def test_a_404_becomes_the_given_not_found_and_nothing_else_does() -> None:
    with (
        pytest.raises(NotFound, match=r"^Method not found: x$") as caught,
        translate_404(NotFound("Method not found: x")),
    ):
        raise HTTPStatusError(404, "gone")
    assert is_missing(caught.value.__cause__)
    with pytest.raises(HTTPStatusError), translate_404(NotFound("Method not found: x")):
        raise HTTPStatusError(500, "boom")
    # A 404 no lookup translated still reads as a miss.
    assert error_message(HTTPStatusError(404, "")) == (
        "not_found: the requested catalog record does not exist."
    )


@pytest.mark.parametrize(
    ("text", "limit", "cut", "expected"),
    [
        ("line one\nline\ttwo\x00\x07  ", None, "", "line one line two"),
        ("zero\u200bwidth\u2028separator\xa0space", None, "", "zero width separator space"),
        ("Attention  Is   All", None, "", "Attention Is All"),
        ("é" * 300, 200, "", "é" * 200),
        ("x" * 300, 200, "…", "x" * 199 + "…"),
        ("short", 200, "…", "short"),
    ],
)
def test_one_sanitiser_for_text_in_messages(
    text: str, limit: int | None, cut: str, expected: str
) -> None:
    assert one_line(text, limit, cut=cut) == expected


def test_the_catalogs_own_wording_keeps_its_spacing() -> None:
    kept = one_line(" page_size\x00 must be\nat  most ", fold=False)
    assert kept == "page_size  must be at  most"


def test_every_quoting_site_uses_the_one_sanitiser() -> None:
    hostile = "a\x00b\u2028c\u200b  d" + "e" * 300
    assert shown(hostile) == one_line(hostile, 200, cut="…")
    assert catalog_detail(hostile) == one_line(hostile, 200, fold=False)
    assert unknown_tool_message(hostile).startswith(
        f"Error executing tool {one_line(hostile, 64, fold=False)}: "
    )


def test_caller_facing_messages_pass_through_verbatim() -> None:
    message = "Task not found: imagenet; closest results: Image Classification"
    assert error_message(NotFound(message)) == f"not_found: {message}"
    assert error_message(Ambiguous("Paper title is ambiguous")) == (
        "ambiguous: Paper title is ambiguous"
    )
    assert error_message(UsageError("pareto needs two metrics")) == (
        "invalid_argument: pareto needs two metrics"
    )


@pytest.mark.parametrize(
    "exc",
    [
        HTTPStatusError(500, "Traceback: secret-body at https://internal.example/x"),
        UpstreamUnreachable("catalog unreachable at https://internal.example/secret-body"),
        InvalidResponse("secret-body"),
        RuntimeError("secret-body"),
        NoMarkdown("secret-body"),
        InvalidCursor("secret-body"),
    ],
)
def test_upstream_text_never_reaches_the_caller(exc: BaseException) -> None:
    message = error_message(exc)
    assert "secret-body" not in message
    assert "internal.example" not in message


def test_bad_request_detail_is_extracted_and_sanitised() -> None:
    assert error_message(HTTPStatusError(400, '{"detail": "page_size must be <= 100"}')) == (
        "invalid_argument: page_size must be <= 100"
    )
    fastapi = '{"detail": [{"loc": ["query", "page"], "msg": "must be positive"}, {"msg": "x"}]}'
    assert catalog_detail(fastapi) == "must be positive; x"
    assert catalog_detail("line one\nline\ttwo\x00\x07  ") == "line one line two"
    long = catalog_detail("é" * 500)
    assert long == "é" * 200
    # Nothing left after sanitising: a fixed sentence instead.
    assert error_message(HTTPStatusError(422, "\n\x00  ")) == (
        "invalid_argument: the catalog rejected the request."
    )
    assert error_message(HTTPStatusError(400, '{"detail": ""}')) == (
        "invalid_argument: the catalog rejected the request."
    )


@pytest.mark.parametrize(
    ("retry_after", "tail"),
    [
        ("30", "; retry after 30 seconds."),
        ("1", "; retry after 1 second."),
        ("0", "; retry after 0 seconds."),
        ("Wed, 21 Oct 2026 07:28:00 GMT", "; retry after Wed, 21 Oct 2026 07:28:00 GMT."),
        (None, "; retry later."),
        ("\x00\n", "; retry later."),
        ("\u00b2", "; retry after \u00b2."),  # a digit to str.isdigit(), not to int()
    ],
)
def test_rate_limit_mentions_retry_after(retry_after: str | None, tail: str) -> None:
    message = error_message(HTTPStatusError(429, "slow down", retry_after=retry_after))
    assert message.startswith("rate_limited: ")
    assert message.endswith(tail)


def test_unreachable_catalog_says_what_to_check() -> None:
    message = error_message(UpstreamUnreachable("catalog unreachable (ConnectError)"))
    assert "could not be reached" in message
    assert "PWC_API_URL" in message


def test_generic_upstream_failure_logs_only_the_class(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pwc_local.server.errors"):
        error_message(InvalidResponse("body said secret-body"))
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "InvalidResponse" in caplog.text
    assert "secret-body" not in caplog.text


def test_bug_logs_class_and_frames_but_not_the_message(caplog: pytest.LogCaptureFixture) -> None:
    def failing(value: str = "secret" + "-body") -> None:
        raise ValueError(f"argument value {value}")

    try:
        failing()
    except ValueError as exc:
        with caplog.at_level(logging.ERROR, logger="pwc_local.server.errors"):
            message = error_message(exc)
    assert message.startswith("internal_error: ")
    assert "ValueError" in caplog.text
    assert "in failing" in caplog.text  # the traceback frames are there
    assert "secret-body" not in caplog.text


# -- argument validation -----------------------------------------------------------------


class _Args(BaseModel):
    limit: int = Field(10, ge=1, le=25)
    page: int = Field(1, ge=1)
    query: str = Field(min_length=1, max_length=5)
    authors: list[str] | None = Field(None, max_length=2)
    pareto: list[str] | None = Field(None, min_length=2)
    metrics: list[str] | None = Field(None, min_length=1)
    bounds: dict[str, float] | None = None
    flag: bool = False


def _validation(arguments: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        _Args.model_validate(arguments)
    return validation_message(info.value)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "a", "limit": 26}, "limit must be at most 25"),
        ({"query": "a", "page": 0}, "page must be at least 1"),
        ({}, "query is required"),
        ({"query": ""}, "query must not be empty"),
        ({"query": "SECRET"}, "query must have at most 5 characters"),
        ({"query": "a", "limit": "SECRET"}, "limit must be an integer"),
        ({"query": "a", "limit": 2.5}, "limit must be an integer"),
        ({"query": "a", "authors": ["a", "b", "c"]}, "authors must have at most 2 items"),
        ({"query": "a", "authors": [1]}, "authors[0] must be a string"),
        ({"query": "a", "authors": "SECRET"}, "authors must be an array"),
        ({"query": "a", "pareto": ["x"]}, "pareto must have at least 2 items"),
        ({"query": "a", "metrics": []}, "metrics must have at least 1 item"),
        ({"query": "a", "bounds": {"SECRET": "high"}}, "bounds values must be a number"),
        ({"query": "a", "bounds": "SECRET"}, "bounds must be an object"),
        ({"query": "a", "flag": "SECRET"}, "flag must be true or false"),
    ],
)
def test_validation_messages_name_the_parameter_not_the_value(
    arguments: dict[str, Any], expected: str
) -> None:
    message = _validation(arguments)
    assert message == f"invalid_argument: {expected}."
    assert "SECRET" not in message


def test_several_validation_problems_are_listed_once_each() -> None:
    message = _validation({"query": "", "limit": 0, "page": 0})
    assert message == (
        "invalid_argument: limit must be at least 1; page must be at least 1; "
        "query must not be empty."
    )


def test_unknown_tool_message_is_bounded() -> None:
    message = unknown_tool_message("x" * 1000 + "\n")
    assert "not_found: unknown tool" in message
    assert len(message) < 200


# -- through the server: SDK seams and the one mapping point -----------------------------

FRAMEWORKS = {
    "domains": [
        {
            "slug": "llm",
            "name": "LLM",
            "categories": [
                {
                    "slug": "inference",
                    "name": "Inference",
                    "frameworks": [{"id": "11", "slug": "vllm", "name": "vLLM"}],
                }
            ],
        }
    ]
}


def _scripted() -> ScriptedCatalog:
    return ScriptedCatalog().on("frameworks/", FRAMEWORKS)


def _run(
    scenario: Callable[[Client, ScriptedCatalog], Any],
    catalog: Callable[[ScriptedCatalog], CatalogSource] = ScriptedCatalog.client,
) -> ScriptedCatalog:
    """Run `scenario` with a client of an in-process server whose catalog is scripted.

    `catalog` builds the runtime's source from the script: the plain `HttpCatalog` by
    default, or (say) a caching source in front of it.
    """
    scripted = _scripted()
    settings = Settings(api_url="http://127.0.0.1:9", structured="hosted")
    runtime = LazyRuntime(settings, builder=lambda s: Runtime(s, catalog(scripted), codec=None))

    async def main() -> None:
        async with Client(build_server(settings, runtime=runtime), mode="legacy") as client:
            await scenario(client, scripted)

    anyio.run(main)
    return scripted


def _text(result: Any) -> str:
    assert len(result.content) == 1
    return result.content[0].text


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (error(429, "slow down", retry_after="7"), "rate_limited: "),
        (httpx.ReadTimeout("timed out"), "upstream_timeout: "),
        (httpx.ConnectError("refused"), "upstream_error: "),
        (httpx.Response(200, content=b"{bad json"), "upstream_error: "),
        (error(404, "gone"), "not_found: "),
        (RuntimeError("bug"), "internal_error: "),
    ],
)
def test_tool_failures_are_mapped_and_the_server_keeps_serving(raised: Any, expected: str) -> None:
    async def scenario(client: Client, catalog: ScriptedCatalog) -> None:
        catalog.once("frameworks/", raised)
        failed = await client.call_tool("get_framework", {"framework": "vllm"})
        assert failed.is_error
        assert _text(failed).startswith(f"Error executing tool get_framework: {expected}")
        assert failed.structured_content is None
        ok = await client.call_tool("get_framework", {"framework": "vllm"})
        assert not ok.is_error
        assert ok.structured_content["data"]["domain_slug"] == "llm"

    _run(scenario)


def test_schema_violation_is_invalid_argument_without_the_value() -> None:
    async def scenario(client: Client, catalog: ScriptedCatalog) -> None:
        result = await client.call_tool(
            "get_benchmark", {"benchmark": "x" * 501, "limit": 26, "pareto": ["SECRET"]}
        )
        assert result.is_error
        assert _text(result) == (
            "Error executing tool get_benchmark: invalid_argument: benchmark must have at "
            "most 500 characters; limit must be at most 25; pareto must have at least 2 items."
        )
        assert "SECRET" not in _text(result)
        missing = await client.call_tool("get_task", {})
        assert _text(missing).endswith("get_task: invalid_argument: task is required.")

    catalog = _run(scenario)
    assert catalog.requests == []  # nothing reached the catalog


def test_unknown_tool_names_the_tool() -> None:
    async def scenario(client: Client, catalog: ScriptedCatalog) -> None:
        result = await client.call_tool("delete_everything", {})
        assert result.is_error
        assert _text(result) == (
            "Error executing tool delete_everything: not_found: unknown tool; "
            "tools/list names the tools."
        )
        assert not (await client.call_tool("list_frameworks", {})).is_error

    _run(scenario)


def test_crash_outside_a_tool_body_is_internal_error(caplog: pytest.LogCaptureFixture) -> None:
    server = PwcServer(name="probe")

    async def broken() -> Annotated[CallToolResult, QueryResult]:
        # Structured content that fails the declared output model, after the body ran.
        return CallToolResult(
            content=[TextContent(type="text", text="x")],
            structured_content={"unexpected": "secret-body"},
        )

    server.add_tool(broken, name="broken")

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            result = await client.call_tool("broken", {})
            assert result.is_error
            assert _text(result).startswith("Error executing tool broken: internal_error: ")
            assert "secret-body" not in _text(result)

    with caplog.at_level(logging.ERROR, logger="pwc_local.server.errors"):
        anyio.run(main)
    assert "ValidationError" in caplog.text


def test_stale_answers_are_labelled(tmp_path: Path) -> None:
    saved = datetime(2026, 5, 1, 12, 30, tzinfo=timezone.utc)
    now = [saved.timestamp()]

    def caching(scripted: ScriptedCatalog) -> CatalogSource:
        cache = DiskCache(tmp_path / "cache", clock=lambda: now[0])
        return CachingCatalog(scripted.client(), cache, namespace=BASE, clock=lambda: now[0])

    async def scenario(client: Client, catalog: ScriptedCatalog) -> None:
        assert (await client.call_tool("list_frameworks", {})).structured_content["cache"] is None
        now[0] += 24 * 3600  # long expired; and the catalog is gone
        catalog.fail_with(httpx.ConnectError("refused"))
        stale = await client.call_tool("list_frameworks", {})
        assert stale.structured_content["cache"] == {
            "stale": True,
            "cached_at": "2026-05-01T12:30:00+00:00",
        }
        first_line = _text(stale).split("\n", 1)[0]
        assert first_line.startswith("From the local cache, ")
        assert first_line.endswith(
            " old (saved 2026-05-01 12:30 UTC): the catalog could not be reached."
        )
        catalog.fail_with(None)
        fresh = await client.call_tool("list_frameworks", {})
        assert fresh.structured_content["cache"] is None
        assert "local cache" not in _text(fresh)

    _run(scenario, caching)


class _HeldWarmUp(LazyRuntime):
    """A `LazyRuntime` whose warm-up (`build_now`) waits, before it begins, for `release`.

    While the warm-up is held only a request can build the runtime, so a build seen
    then was caused by one; once released, the warm-up goes on as it always does.
    """

    def __init__(self, settings: Settings, builder: Callable[[Settings], Runtime]) -> None:
        super().__init__(settings, builder=builder)
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()

    def build_now(self) -> None:
        self.arrived.set()
        self.release.wait(timeout=60)  # a bound, so a failed test leaves no thread stuck
        try:
            super().build_now()
        finally:
            self.finished.set()


def test_runtime_is_built_once_and_closed_at_shutdown() -> None:
    builds: list[str] = []  # the name of the thread each build ran in
    catalog = _scripted().client()
    settings = Settings(api_url="http://127.0.0.1:9", structured="hosted")

    def builder(s: Settings) -> Runtime:
        builds.append(threading.current_thread().name)
        return Runtime(s, catalog, codec=None)

    runtime = _HeldWarmUp(settings, builder)

    async def main() -> None:
        async with Client(build_server(settings, runtime=runtime), mode="legacy") as client:
            try:
                assert await anyio.to_thread.run_sync(runtime.arrived.wait, 30)
                assert builds == []  # the session's start needs no runtime
                await client.list_tools()
                assert builds == []  # listing tools needs no runtime
                results: list[CallToolResult] = []

                async def call() -> None:
                    results.append(await client.call_tool("list_frameworks", {}))

                async with anyio.create_task_group() as group:
                    for _ in range(5):
                        group.start_soon(call)
                assert [result.is_error for result in results] == [False] * 5
                assert len(builds) == 1  # five first calls, one build
                runtime.release.set()
                assert await anyio.to_thread.run_sync(runtime.finished.wait, 30)
                assert len(builds) == 1  # the warm-up found the runtime built
                assert not catalog._client.is_closed
            finally:
                runtime.release.set()

    anyio.run(main)
    assert catalog._client.is_closed


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("SECRET_prompt", {}, "not_found: unknown prompt SECRET_prompt; prompts/list names"),
        (
            "find_papers",
            {},
            "invalid_argument: prompt find_papers takes exactly the argument topic",
        ),
        (
            "survey_task",
            {"task": "SECRET-value", "SECRET-name": "SECRET-value"},
            "invalid_argument: prompt survey_task takes exactly the argument task.",
        ),
    ],
)
def test_bad_prompt_requests_are_invalid_params_and_not_logged(
    caplog: pytest.LogCaptureFixture, name: str, arguments: dict[str, str], expected: str
) -> None:
    # The SDK alone answers these with JSON-RPC code 0 and logs a traceback quoting the
    # caller's arguments (the unexpected one's value included).
    async def scenario(client: Client, catalog: ScriptedCatalog) -> None:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt(name, arguments)
        assert caught.value.code == -32602
        assert caught.value.message.startswith(expected)
        good = await client.get_prompt("survey_task", {"task": "ocr"})
        assert '"ocr"' in good.messages[0].content.text

    with caplog.at_level(logging.DEBUG):
        _run(scenario)
    assert "SECRET" not in caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
