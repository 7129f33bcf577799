"""`pwc-mcp-local call` and `tools`: tools from a terminal.

The `e2e` tests run the installed command (exit status, stdout and stderr of a real
process); the rest of the command's behaviour is checked with the same command line
run in this process by click's test runner (the `cli` fixture), with the same private home. The
command serves the tools in-process either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import Result

from pwc_local.commands.tool_words import ArgumentError, build_arguments, describe_parameter
from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer

SCHEMA = {
    "type": "object",
    "properties": {
        "paper": {"type": "string", "maxLength": 500},
        "limit": {"type": "integer", "minimum": 1, "maximum": 25, "default": 10},
        "level": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "min_velocity": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None},
        "search": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "authors": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
            "default": None,
        },
        "visible_only": {"type": "boolean", "default": False},
        "minimum_metrics": {
            "anyOf": [
                {"type": "object", "additionalProperties": {"type": "number"}},
                {"type": "null"},
            ],
            "default": None,
        },
        "mode": {"enum": ["hybrid", "keyword"], "type": "string", "default": "hybrid"},
    },
    "required": ["paper"],
}


def test_values_are_read_by_the_input_schema() -> None:
    arguments = build_arguments(
        [
            "paper=1706.03762",
            "limit=5",
            "level=2",
            "min_velocity=0.5",
            "search=null",
            "authors=Ashish Vaswani,Noam Shazeer",
            "visible_only=true",
            'minimum_metrics={"Top-1 Accuracy": 80}',
            "mode=keyword",
        ],
        SCHEMA,
    )
    assert arguments == {
        "paper": "1706.03762",
        "limit": 5,
        "level": 2,
        "min_velocity": 0.5,
        "search": "null",  # a string parameter takes the text exactly as typed
        "authors": ["Ashish Vaswani", "Noam Shazeer"],
        "visible_only": True,
        "minimum_metrics": {"Top-1 Accuracy": 80},
        "mode": "keyword",
    }
    assert build_arguments(["paper=1", "level=null"], SCHEMA) == {"paper": "1", "level": None}


def test_args_json_comes_first_and_words_override_it() -> None:
    assert build_arguments(["limit=3"], SCHEMA, '{"paper": "755", "limit": 9}') == {
        "paper": "755",
        "limit": 3,
    }


@pytest.mark.parametrize(
    ("words", "json_args", "fragment"),
    [
        (["limit=five"], None, "limit must be integer"),
        (["visible_only=maybe"], None, "visible_only must be boolean"),
        (["nonsense=1"], None, "unknown parameter 'nonsense'"),
        (["paper"], None, "is not NAME=VALUE"),
        ([], "[1]", "--args must be one JSON object"),
        ([], "{oops", "--args is not valid JSON"),
        (["limit=3"], None, "paper is required, give paper=VALUE"),
        ([], '{"limit": 3}', "paper is required"),
    ],
)
def test_unreadable_words_are_refused_with_the_parameter(
    words: list[str], json_args: str | None, fragment: str
) -> None:
    with pytest.raises(ArgumentError, match=fragment.replace("[", r"\[")):
        build_arguments(words, SCHEMA, json_args)


def test_parameter_lines_name_type_default_and_bounds() -> None:
    properties = SCHEMA["properties"]
    assert describe_parameter("limit", properties["limit"], False) == (
        "limit: integer = 10 [1..25]"
    )
    assert describe_parameter("paper", properties["paper"], True) == (
        "paper: string (required) [at most 500 characters]"
    )
    assert describe_parameter("authors", properties["authors"], False) == (
        "authors: list of string = null"
    )


def test_call_prints_the_text_summary(installed_server: InstalledServer) -> None:
    result = installed_server.command("call", "get_paper_info", "paper=1706.03762")
    assert result.returncode == 0, result.stderr
    assert "Attention Is All You Need" in result.stdout
    assert result.stderr == ""


def test_a_tool_error_is_one_coded_line_on_stderr_and_exit_1(
    installed_server: InstalledServer,
) -> None:
    result = installed_server.command("call", "get_benchmark", "benchmark=nothing-here")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("not_found: ")
    assert result.stderr.count("\n") == 1


def test_call_json_prints_the_structured_result(cli: Callable[..., Result]) -> None:
    result = cli("call", "search_papers", "query=attention", "limit=2", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert "schema_version" not in document  # the default profile's record
    assert 0 < len(document["papers"]["rows"]) <= 2


def test_an_argument_the_schema_refuses_is_a_coded_tool_error(cli: Callable[..., Result]) -> None:
    # Bad arguments exit 2 (README), whether click or the tool's schema refuses them.
    result = cli("call", "search_papers", "query=a", "limit=30")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("invalid_argument: limit must be at most 25")
    assert result.stderr.count("\n") == 1


def test_unreadable_arguments_and_unknown_tools_are_usage_errors(
    cli: Callable[..., Result],
) -> None:
    result = cli("call", "search_papers", "query=a", "limit=x")
    assert result.exit_code == 2
    assert "limit must be integer" in result.stderr
    result = cli("call", "no_such_tool")
    assert result.exit_code == 2
    assert "unknown tool 'no_such_tool'; tools: " in result.stderr
    close = cli("call", "sota_histroy")  # a slip names the tool meant, not all 31
    assert close.exit_code == 2
    assert "unknown tool 'sota_histroy'; did you mean sota_history?" in close.stderr
    assert "get_paper_info" not in close.stderr
    # A missing parameter is a usage error too, as an unknown one is.
    result = cli("call", "get_paper_info")
    assert result.exit_code == 2
    assert "paper is required" in result.stderr
    result = cli("call", "get_paper_info", "bogus=1")
    assert result.exit_code == 2


def test_tools_lists_every_tool_with_its_parameters(cli: Callable[..., Result]) -> None:
    result = cli("tools")
    assert result.exit_code == 0, result.stderr
    names = [line.split(":")[0] for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert "search_papers" in names and "get_benchmark" in names
    assert "    limit: integer = 10 [1..25]" in result.stdout.splitlines()
    listing = json.loads(cli("tools", "--json").stdout)
    assert [tool["name"] for tool in listing] == names


def test_a_base_url_without_api_v1_is_named_not_taken_for_a_missing_paper(
    cli: Callable[..., Result], fake_catalog: FakeCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_catalog.api_url.removesuffix("/api/v1")
    monkeypatch.setenv("PWC_API_URL", root + "/")
    for words in (("call", "get_paper_info", "paper=1706.03762"), ("sota", "ImageNet-1k")):
        result = cli(*words)
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1, result.stderr
        assert "config_error: the Papers With Code catalog at " + root in result.stderr
        assert "PWC_API_URL (set in the environment) should be the API base" in result.stderr
        assert "not found" not in result.stderr


def test_an_unreachable_catalog_is_one_line_naming_it(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PWC_API_URL", "http://127.0.0.1:1/api/v1")
    for words in (("call", "get_paper_info", "paper=1706.03762"), ("library", "add", "1706.03762")):
        result = cli(*words)
        assert result.exit_code == 1
        assert "WARNING" not in result.stderr and "catalog request failed" not in result.stderr
        said = result.stderr + result.stdout
        assert said.count("could not be reached") == 1, said
        assert "catalog at http://127.0.0.1:1/api/v1 could not be reached" in said
    # Asked for, the log still has the cause.
    monkeypatch.setenv("PWC_MCP_LOCAL_LOG_LEVEL", "warning")
    logged = cli("call", "get_paper_info", "paper=1706.03762")
    assert "WARNING pwc_local.upstream.http: catalog request failed" in logged.stderr


def test_resource_links_are_one_line_after_the_text(cli: Callable[..., Result]) -> None:
    result = cli("call", "search_papers", "query=attention", "limit=5")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    linked = [line for line in lines if "pwc://" in line and line.startswith("[")]
    assert len(linked) == 1 and lines[-1] == linked[0]
    assert linked[0].startswith("[resource links] pwc://papers/")
