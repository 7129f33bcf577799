"""Input hygiene at the stdio boundary, in-process: surrogates, verbatim text, params types.

The end-to-end versions (through the installed server) are in test_hostile_e2e.py;
these pin the rules themselves, fast.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import INVALID_PARAMS
from pydantic import Field

from pwc_local.server import sdk
from pwc_local.server.framing import (
    MAX_ANSWER_BYTES,
    OVERSIZED_ANSWER,
    Accepted,
    Rejected,
    ToolRefusal,
    inspect_line,
    oversized_answer,
)
from pwc_local.server.hygiene import keep_text_verbatim, may_hold_surrogates, unencodable_path


def line(method: str, params: dict[str, Any], request_id: int = 7) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message).encode() + b"\n"  # ensure_ascii: "\ud800" goes out escaped


def test_only_surrogate_escapes_trigger_the_walk() -> None:
    assert may_hold_surrogates(b'{"a": "\\ud800"}')
    assert may_hold_surrogates(b'{"a": "\\uDFFF"}')
    assert not may_hold_surrogates(b'{"a": "\\u00e9 \\ud7ff \\ue000"}')
    assert not may_hold_surrogates('{"a": "é😀"}'.encode())


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"search": "fine", "area": "\ud800"}, "area"),
        ({"authors": ["a", "b\udc00"]}, "authors[1]"),
        ({"minimum_metrics": {"\ud800": 1.0}}, "minimum_metrics"),
        ({"\ud800": 1}, "an argument name"),
        ({"nested": {"deeper": [{"x": "\udbff"}]}}, "nested.deeper[0].x"),
        ({"ok": "\N{GRINNING FACE}", "n": 5, "none": None}, None),
    ],
)
def test_the_walk_names_the_first_bad_string(value: Any, path: str | None) -> None:
    assert unencodable_path(value) == path


def test_a_tool_call_with_a_lone_surrogate_is_refused_as_a_tool_error() -> None:
    verdict = inspect_line(
        line("tools/call", {"name": "list_tasks", "arguments": {"area": "\ud800"}})
    )
    assert isinstance(verdict, ToolRefusal)
    answer = json.loads(verdict.frame())
    assert answer["id"] == 7 and answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"].startswith(
        "Error executing tool list_tasks: invalid_argument: area is not valid Unicode"
    )


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        ("resources/read", {"uri": "pwc://tasks/\ud800"}, "uri"),
        ("prompts/get", {"name": "survey_task", "arguments": {"task": "\ud800"}}, "arguments.task"),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "x"},
                "argument": {"name": "a", "value": "\ud800"},
            },
            "argument.value",
        ),
    ],
)
def test_other_requests_with_a_lone_surrogate_are_invalid_params(
    method: str, params: dict[str, Any], named: str
) -> None:
    verdict = inspect_line(line(method, params))
    assert isinstance(verdict, Rejected) and verdict.code == INVALID_PARAMS
    assert verdict.message.startswith(f"invalid_argument: {named} is not valid Unicode")


def test_a_surrogate_in_a_tool_name_is_left_to_the_unknown_tool_answer() -> None:
    verdict = inspect_line(line("tools/call", {"name": "x\ud800", "arguments": {}}))
    assert isinstance(verdict, Accepted)


def test_a_notification_with_a_surrogate_passes_no_answer_is_due() -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"reason": "\ud800"},
    }
    verdict = inspect_line(json.dumps(message).encode())
    assert isinstance(verdict, Accepted)


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("resources/read", {"uri": 5}),
        ("resources/read", {}),
        ("prompts/get", {"name": ["x"]}),
        ("prompts/get", {"name": "find_papers", "arguments": {"topic": 5}}),
        ("prompts/get", {"name": "find_papers", "arguments": ["topic"]}),
    ],
)
def test_params_of_the_wrong_type_get_a_coded_sentence(method: str, params: dict[str, Any]) -> None:
    verdict = inspect_line(line(method, params))
    assert isinstance(verdict, Rejected) and verdict.code == INVALID_PARAMS
    assert verdict.message.startswith("invalid_argument: ")


def test_an_oversized_answer_is_replaced_by_a_short_one() -> None:
    tool_answer = json.loads(oversized_answer(3, "search_papers"))
    assert tool_answer["result"]["content"][0]["text"] == (
        f"Error executing tool search_papers: {OVERSIZED_ANSWER}"
    )
    other = json.loads(oversized_answer("r", None))
    assert other["error"] == {"code": -32603, "message": OVERSIZED_ANSWER}
    assert len(oversized_answer(3, "x" * 10_000)) < 1024 < MAX_ANSWER_BYTES


# -- text parameters stay verbatim --------------------------------------------------------


def sample_tool(
    search: str | None = None,
    title: Annotated[str | None, Field(max_length=50)] = None,
    mode: Literal["a", "b"] = "a",
    authors: list[str] | None = None,
    bounds: dict[str, float] | None = None,
    level: int | None = None,
) -> str:
    return json.dumps(
        {
            "search": search,
            "title": title,
            "mode": mode,
            "authors": authors,
            "bounds": bounds,
            "level": level,
        }
    )


def pre_parsed(arguments: dict[str, Any], *, keep: bool) -> dict[str, Any]:
    server = MCPServer("t")
    server.add_tool(sample_tool)
    tool = sdk.registered_tool(server, "sample_tool")
    if keep:
        keep_text_verbatim(tool)
        keep_text_verbatim(tool)  # idempotent
    return sdk.pre_parsed(tool, arguments)


@pytest.mark.parametrize("typed", ["null", "true", "[1,2]", '{"a": 1}', "5", '"q"'])
def test_text_parameters_receive_exactly_what_was_typed(typed: str) -> None:
    arguments = {"search": typed, "title": typed}
    assert pre_parsed(arguments, keep=True) == arguments


def test_the_sdk_alone_would_have_decoded_them() -> None:
    # The finding itself: without the fix, "null" drops the filter and "[1,2]" is a list.
    assert pre_parsed({"search": "null"}, keep=False) == {"search": None}
    assert pre_parsed({"search": "[1,2]"}, keep=False) == {"search": [1, 2]}


def test_parameters_that_cannot_take_text_are_still_pre_parsed() -> None:
    arguments = {"authors": '["Ada", "Alan"]', "bounds": '{"mAP": 0.5}', "search": "[x"}
    assert pre_parsed(arguments, keep=True) == {
        "authors": ["Ada", "Alan"],
        "bounds": {"mAP": 0.5},
        "search": "[x",
    }
