"""The advertised MCP surface matches the contract: tests/data/tools.json and the table.

The installed `pwc-mcp-local` is spawned and driven over stdio by the SDK client, so
these tests read exactly what a client receives from `initialize`, `tools/list`,
`resources/templates/list` and `prompts/*`, without the network (no tool is called
that would need it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from pwc_local import __version__
from pwc_local.config import Settings
from pwc_local.contract import names
from pwc_local.server.app import build_server
from pwc_local.server.bindings import BY_NAME, all_tools
from tests.installed import InstalledServer

TOOLS = all_tools()

# The contract lives in the shared spec next to the repository; a copy is kept in the
# repository so the test also runs from a clean clone (a drift test compares the two).
SHARED_SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "tools.json"
VENDORED_SPEC = Path(__file__).resolve().parent / "data" / "tools.json"
SPEC = json.loads(
    (SHARED_SPEC if SHARED_SPEC.exists() else VENDORED_SPEC).read_text(encoding="utf-8")
)
BOUND_KEYS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")

# The hosted output models, identified by their own (non-envelope) properties.
ENVELOPE = {"schema_version", "cache"}
MODEL_FIELDS = {
    "PaperPage": {"data", "items", "next_page", "note", "available_at"},
    "PaperInfoResult": {
        "data", "paper", "evaluation_count", "evaluations", "in_catalog", "note", "available_at"
    },
    "EvaluationPage": {"data", "paper", "evaluation_count", "page", "next_page", "evaluations"},
    "PaperReadResult": {
        "paper", "markdown", "truncated", "next_cursor", "in_catalog", "available_at"
    },
    "PaperLineageResult": {
        "data", "paper", "predecessors", "successors", "coverage", "coverage_note"
    },
    "TaskResult": {"data", "task"},
    "QueryResult": {"data"},
    "MethodResult": {"data", "method"},
    "BenchmarkResult": {
        "data", "benchmark", "evaluation_count", "matched_count", "evaluations",
        "metric_directions", "page", "next_page", "ranking_note", "metric_note",
    },
    "BenchmarkPage": {"data", "items", "next_page"},
}  # fmt: skip
# Which model each tool returns comes from the contract table itself.
TOOL_MODELS = {spec.name: spec.output.__name__ for spec in TOOLS}
HOSTED = names("hosted")


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Everything the spawned server advertises, collected in one stdio session.

    Module-scoped, not `installed_server`: one spawn serves every test of the module.
    """
    import anyio

    # Nothing listens at the server's catalog URL: no tool is called. The hosted
    # profile's shapes, for every tool (the default profile's: test_compact_results).
    home = tmp_path_factory.mktemp("contract-home")
    params = InstalledServer(home, PWC_MCP_LOCAL_STRUCTURED="hosted").params()

    async def collect() -> dict[str, Any]:
        async with Client(params, mode="legacy", cache=None) as client:
            tools = (await client.list_tools()).tools
            templates = (await client.list_resource_templates()).resource_templates
            prompts = (await client.list_prompts()).prompts
            rendered = {
                name: await client.get_prompt(name, {args[0]: 'a "quoted"\ntopic'})
                for name, args in SPEC["prompts"].items()
            }
            return {
                "info": client.server_info,
                "capabilities": client.server_capabilities,
                "tools": {tool.name: tool.model_dump(by_alias=True, mode="json") for tool in tools},
                "templates": templates,
                "prompts": prompts,
                "rendered": rendered,
            }

    return anyio.run(collect)


@pytest.mark.skipif(not SHARED_SPEC.exists(), reason="no shared spec next to this clone")
def test_vendored_contract_matches_the_shared_spec() -> None:
    assert json.loads(VENDORED_SPEC.read_text(encoding="utf-8")) == json.loads(
        SHARED_SPEC.read_text(encoding="utf-8")
    )


def _branches(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The non-null branch of a property schema and whether `null` is accepted."""
    if "anyOf" in schema:
        options = schema["anyOf"]
        nullable = {"type": "null"} in options
        others = [option for option in options if option != {"type": "null"}]
        assert len(others) == 1, schema
        return others[0], nullable
    return schema, False


@pytest.mark.e2e
def test_exactly_the_declared_tools_in_order(surface: dict[str, Any]) -> None:
    """The server lists the table's tools, in order; the hosted group is the hosted contract."""
    assert list(surface["tools"]) == [spec.name for spec in TOOLS]
    assert list(HOSTED) == list(SPEC["tools"])
    assert len(HOSTED) == 21


@pytest.mark.e2e
@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_input_schema_matches_the_table(surface: dict[str, Any], spec: Any) -> None:
    """Every tool, hosted or local: names, order, required and defaults as declared."""
    schema = surface["tools"][spec.name]["inputSchema"]
    assert list(schema["properties"]) == [param.name for param in spec.params]
    required = [param.name for param in spec.params if param.required]
    assert sorted(schema.get("required", [])) == sorted(required)
    for param in spec.params:
        prop = schema["properties"][param.name]
        if param.required:
            assert "default" not in prop, param.name
        else:
            assert prop["default"] == param.default, param.name


@pytest.mark.e2e
@pytest.mark.parametrize("name", list(SPEC["tools"]))
def test_input_schema_matches_spec(surface: dict[str, Any], name: str) -> None:
    spec = SPEC["tools"][name]
    schema = surface["tools"][name]["inputSchema"]
    assert schema["type"] == "object"
    assert sorted(schema.get("required", [])) == sorted(spec["required"])
    assert list(schema["properties"]) == list(spec["parameters"])
    for param, expected in spec["parameters"].items():
        prop = schema["properties"][param]
        body, nullable = _branches(prop)
        where = f"{name}.{param}"
        assert body["type"] == expected["type"], where
        assert nullable == expected.get("nullable", False), where
        if "default" in expected:
            assert "default" in prop and prop["default"] == expected["default"], where
            assert param not in schema.get("required", []), where
        else:
            assert "default" not in prop, where
        for key in BOUND_KEYS:
            if key in expected or key not in LOCAL_BOUNDS:
                assert body.get(key) == expected.get(key), f"{where} {key}"
        assert body.get("enum") == expected.get("enum"), where
        if "items" in expected:
            assert body["items"]["type"] == expected["items"], where
        if "values" in expected:
            assert body["additionalProperties"] == {"type": expected["values"]}, where
        assert "title" not in prop, where  # generated titles only repeat the name
    assert "title" not in schema


# Bounds the hosted server leaves out and we state: every string has a length (issue 34).
LOCAL_BOUNDS = ("maxLength",)


def _strings(schema: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every string schema in `schema` (items and dict keys too), with where it is."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "string" and "enum" not in schema:
            found.append((where, schema))
        if schema.get("type") == "object" and "additionalProperties" in schema:
            found.append((f"{where} keys", {"type": "string", **schema.get("propertyNames", {})}))
        for key, value in schema.items():
            if key != "propertyNames":
                found += _strings(value, f"{where}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += _strings(value, f"{where}[{index}]")
    return found


def test_every_string_a_tool_takes_has_a_length_bound() -> None:
    import anyio

    settings = Settings(api_url="http://127.0.0.1:9")
    listed = anyio.run(build_server(settings).list_tools)
    assert len(listed) == len(TOOLS)
    unbounded = [
        f"{tool.name}{where}"
        for tool in listed
        for where, schema in _strings(tool.input_schema["properties"], "")
        if "maxLength" not in schema
    ]
    assert unbounded == []


ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_documents_give_the_true_tool_counts() -> None:
    """Every count of tools the documents state is the contract's (issue 34): all of them,
    the hosted ones or the local ones. A new tool fails this until the documents say so."""
    total, hosted = len(TOOLS), len(names("hosted"))
    wrong = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        counts = [
            (match, {total, hosted})
            for match in re.finditer(r"\b(\d+) (?:default |read-only )?tools\b", text)
        ]
        counts += [(m, {total}) for m in re.finditer(r"\b[Aa]ll (\d+)\b", text)]
        counts += [(m, {total}) for m in re.finditer(r"\b(\d+) tools in all\b", text)]
        counts += [(m, {hosted}) for m in re.finditer(r"\bhosted(?: server's)? (\d+)\b", text)]
        counts += [(m, {total - hosted}) for m in re.finditer(r"\b(\d+) local\b", text)]
        wrong += [f"{path.name}: {m.group(0)}" for m, true in counts if int(m.group(1)) not in true]
    assert wrong == []
    assert f"({total} tools in all)" in (ROOT / "README.md").read_text(encoding="utf-8")


READ_ONLY = {
    "title": None,
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": True,
}


@pytest.mark.e2e
@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_annotations_and_description(surface: dict[str, Any], spec: Any) -> None:
    tool = surface["tools"][spec.name]
    assert tool["annotations"] == spec.annotations.model_dump(by_alias=True, mode="json")
    if spec.group == "hosted":
        assert tool["annotations"] == READ_ONLY
    assert tool.get("title") is None
    assert 20 <= len(tool["description"]) <= 700


def _objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema (with properties) nested anywhere in `schema`."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if "properties" in schema:
            found.append(schema)
        for value in schema.values():
            found.extend(_objects(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_objects(value))
    return found


@pytest.mark.e2e
@pytest.mark.parametrize("name", names())
def test_output_schema(surface: dict[str, Any], name: str) -> None:
    schema = surface["tools"][name]["outputSchema"]
    assert schema["type"] == "object"
    assert schema["properties"]["schema_version"]["const"] == "v1"
    if name in HOSTED:
        assert set(schema["properties"]) - ENVELOPE == MODEL_FIELDS[TOOL_MODELS[name]]
    for nested in _objects(schema):
        assert nested.get("additionalProperties") is False, nested
    # The local addition: a nullable cache status (null unless served stale).
    # (The listing leaves nested models open, {"type": "object"}, and drops defaults:
    # server/listing.py.)
    cache = schema["properties"]["cache"]
    assert cache == {"type": ["object", "null"]}


@pytest.mark.e2e
def test_server_identity(surface: dict[str, Any]) -> None:
    info = surface["info"]
    assert info.name == "pwc-local"
    assert info.title == "Papers With Code (local)"
    assert info.version == __version__
    assert info.website_url == "https://paperswithcode.co"
    capabilities = surface["capabilities"]
    assert capabilities.tools is not None
    assert capabilities.resources is not None
    assert capabilities.prompts is not None


def test_instructions_are_short_and_cover_the_essentials() -> None:
    server = build_server(Settings())
    instructions = server.instructions or ""
    assert len(instructions) < 900
    for needle in ("search_papers", "list_", "get_task", "get_benchmark", "next_cursor",
                   "structuredContent", "fficial"):  # fmt: skip
        assert needle in instructions


@pytest.mark.e2e
def test_resource_templates(surface: dict[str, Any]) -> None:
    advertised = {
        t.uri_template: (t.name, t.title, t.mime_type, bool(t.description))
        for t in surface["templates"]
    }
    assert list(advertised) == SPEC["resource_templates"]
    json_type, markdown = "application/json", "text/markdown"
    assert advertised == {
        "pwc://papers/{paper}": ("paper-info", "Paper information", json_type, True),
        "pwc://papers/{paper}/markdown": ("paper-markdown", "Paper Markdown", markdown, True),
        "pwc://tasks/{task}": ("task", "Research task", json_type, True),
        "pwc://benchmarks/{benchmark}": ("benchmark", "Benchmark leaderboard", json_type, True),
    }


@pytest.mark.e2e
def test_prompts(surface: dict[str, Any]) -> None:
    # The hosted three as the contract has them, and the watch list's digest (local).
    prompts = {p.name: p for p in surface["prompts"]}
    assert {name: [a.name for a in p.arguments or []] for name, p in prompts.items()} == {
        **SPEC["prompts"],
        "whats_new_digest": [],
    }
    assert {name: p.title for name, p in prompts.items()} == {
        "find_papers": "Find papers",
        "compare_leaderboard": "Compare a leaderboard",
        "survey_task": "Survey a research task",
        "whats_new_digest": "What's new on my watch list",
    }
    for prompt in prompts.values():
        assert all(argument.required for argument in prompt.arguments or [])


@pytest.mark.e2e
@pytest.mark.parametrize("name", list(SPEC["prompts"]))
def test_prompt_embeds_argument_as_quoted_literal(surface: dict[str, Any], name: str) -> None:
    messages = surface["rendered"][name].messages
    assert len(messages) == 1
    assert messages[0].role == "user"
    body = messages[0].content.text
    # The argument appears as one JSON string literal: its quotes and newline escaped.
    assert json.dumps('a "quoted"\ntopic') in body
    assert "\n" not in body


@pytest.mark.e2e
def test_start_up_imports_no_network_cache_or_query_modules() -> None:
    """Spawn-to-initialize time matters: building the server must not load these."""
    import subprocess

    script = (
        "import sys\n"
        "from pwc_local.config import Settings\n"
        "from pwc_local.server.app import build_server\n"
        "build_server(Settings())\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert "pwc_local.server.app" in loaded  # the probe did build the server
    heavy = {
        "httpx",
        "diskcache",
        "platformdirs",
        "pwc_local.upstream.http",
        "pwc_local.queries.papers",
        "pwc_local.queries.public",
        "pwc_local.queries.reading",
        "pwc_local.queries.taxonomy",
        "pwc_local.queries.benchmarks",
        "pwc_local.common.cursors",
        "pwc_local.server.bindings",
    }
    assert loaded & heavy == set()


@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_table_entry_fits_its_query_function(spec: Any) -> None:
    """Forwarding is derived, so a renamed or misspelt parameter must fail here, not in use.

    The query function takes the entry's services positionally, then every
    parameter marked `query=True` by name, with no default of its own: the
    table states each default once (direct callers use `tools.call_query`).
    """
    import inspect

    from pwc_local.server.tools import SERVICES

    assert set(spec.needs) <= set(SERVICES)
    signature = inspect.signature(spec.query)
    accepted = list(signature.parameters.values())[len(spec.needs) :]
    by_name = {parameter.name: parameter for parameter in accepted}
    for param in spec.params:
        if not param.query:
            continue
        where = f"{spec.query} {param.name}"
        assert param.name in by_name, f"{spec.query} takes no {param.name}"
        parameter = by_name[param.name]
        assert parameter.default is inspect.Parameter.empty, (
            f"{where}: a default besides the table's"
        )
        if not param.required:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, f"{where}: not keyword-only"
    forwarded = {param.name for param in spec.params if param.query}
    missing = [
        p.name for p in accepted if p.default is inspect.Parameter.empty and p.name not in forwarded
    ]
    assert missing == [], f"{spec.query} needs {missing}"


def test_call_query_fills_the_table_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """Direct callers get the table's defaults, only the query's parameters, and hooks as given."""
    import anyio

    from pwc_local.server import tools

    seen: list[Any] = []

    async def query(*services: Any, **arguments: Any) -> str:
        seen.append((services, arguments))
        return "answer"

    import dataclasses

    from pwc_local.server.bindings import hosted

    patched = dataclasses.replace(BY_NAME["get_paper_info"], query=query)
    monkeypatch.setitem(hosted.BY_NAME, "get_paper_info", patched)  # its group's entries

    async def calls() -> str:
        with pytest.raises(TypeError, match="needs the parameter paper"):
            await tools.call_query("get_paper_info", "catalog")
        return await tools.call_query("get_paper_info", "catalog", paper="755", repo_limit=2, now=1)

    assert anyio.run(calls) == "answer"
    assert seen == [(("catalog",), {"paper": "755", "include_evaluations": False, "now": 1})]


# What the query layer leaves to the schema (pwc_local/queries/arguments.py says which
# checks it keeps): each of these must be refused by the SDK before any tool body runs.
SCHEMA_REFUSES = [
    ("search_papers", {"query": "x", "mode": "fuzzy"}, "mode must be one of"),
    ("search_papers", {"query": "x", "page": 0}, "page must be at least 1"),
    ("search_papers", {"query": "x", "limit": 101}, "limit must be at most 25"),
    ("search_papers", {"query": ""}, "query must not be empty"),
    ("list_papers", {"authors": ["a"] * 11}, "authors must have at most 10 items"),
    ("list_papers", {"authors": "Kaiming He"}, "authors must be an array"),
    ("list_papers", {"order_direction": "up"}, "order_direction must be one of"),
    ("list_trending_papers", {"max_age_days": 0}, "max_age_days must be at least 1"),
    ("list_trending_papers", {"max_age_days": 366}, "max_age_days must be at most 365"),
    ("get_related_papers", {"paper": "1706.03762", "limit": 21}, "limit must be at most 20"),
    ("get_paper_evaluations", {"paper": "1706.03762", "page": 101}, "page must be at most 100"),
    ("list_tasks", {"order_by": "rank"}, "order_by must be one of"),
    ("list_tasks", {"limit": 101}, "limit must be at most 25"),
    ("list_methods", {"limit": 501}, "limit must be at most 25"),
    ("get_benchmark", {"benchmark": "COCO", "page": 0}, "page must be at least 1"),
    ("get_benchmark", {"benchmark": "COCO", "limit": 101}, "limit must be at most 25"),
    ("get_benchmark", {"benchmark": "COCO", "pareto": ["mAP:higher"]}, "at least 2 items"),
    ("get_benchmark", {"benchmark": "COCO", "require_metrics": []}, "at least 1 item"),
    ("get_benchmark", {"benchmark": "COCO", "minimum_metrics": []}, "must be an object"),
    ("list_benchmarks", {"benchmarks_per_task": 11}, "benchmarks_per_task must be at most 10"),
    ("list_benchmarks", {"order_by": "rank"}, "order_by must be one of"),
    ("list_benchmarks", {"limit": 0}, "limit must be at least 1"),
]


@pytest.fixture(scope="module")
def refused() -> list[Any]:
    """The results of the SCHEMA_REFUSES calls, made in-process with no runtime behind them."""
    import anyio

    from pwc_local.runtime import LazyRuntime

    def no_runtime(_settings: Settings) -> Any:
        raise AssertionError("a refused call must not reach the tool body")

    settings = Settings(api_url="http://127.0.0.1:9")
    server = build_server(settings, runtime=LazyRuntime(settings, builder=no_runtime))

    async def calls() -> list[Any]:
        async with Client(server, mode="legacy") as client:
            return [await client.call_tool(name, args) for name, args, _ in SCHEMA_REFUSES]

    return anyio.run(calls)


@pytest.mark.parametrize("index", range(len(SCHEMA_REFUSES)))
def test_the_schema_refuses_what_the_query_layer_does_not_check(
    refused: list[Any], index: int
) -> None:
    name, _, expected = SCHEMA_REFUSES[index]
    result = refused[index]
    assert result.is_error
    text = result.content[0].text
    assert text.startswith(f"Error executing tool {name}: invalid_argument: "), text
    assert expected in text


def test_a_kind_takes_only_the_bounds_it_turns_into_schema() -> None:
    """A misspelt bound must fail where it is declared, not vanish from the schema."""
    from pwc_local.contract import Kind

    assert dict(Kind(int, le=5, ge=1).bounds) == {"ge": 1, "le": 5}
    with pytest.raises(TypeError, match="no bound maximum"):
        Kind(int, maximum=5)
