"""Both profiles end to end: every tool, resource template and prompt (issue 34).

The suite's homes run the default (compact) profile; this module runs the same table
in each profile, one installed server per profile: every tool of the contract is
called once on its success path (its `structuredContent` checked against the output
schema it advertises, with jsonschema), every resource template read, every prompt
rendered. The hosted profile is `structured = "hosted"` here so that the local tools
are exercised in it too (`tools = "hosted"` selects it as well, and lists only the 21).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pwc_local.server.bindings import TOOLS
from pwc_local.server.resources import TEMPLATES
from tests.installed import LiveSession, serve_module
from tests.test_e2e_tools import SCHEMA_CALLS

pytestmark = pytest.mark.e2e

PROFILES = {"default": {}, "hosted": {"PWC_MCP_LOCAL_STRUCTURED": "hosted"}}
SMALL = "1706.03762"  # a paper whose Markdown fits one response
READS = {
    "paper-info": f"pwc://papers/{SMALL}",
    "paper-markdown": f"pwc://papers/{SMALL}/markdown",
    "task": "pwc://tasks/image-classification",
    "benchmark": "pwc://benchmarks/imagenet-1k",
}
PROMPTS = {
    "find_papers": {"topic": "speech"},
    "compare_leaderboard": {"benchmark": "ImageNet-1k"},
    "survey_task": {"task": "ocr"},
    "whats_new_digest": {},
}


@pytest.fixture(scope="module", params=list(PROFILES))
def profile(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, LiveSession]]:
    settings = PROFILES[request.param]
    with serve_module(tmp_path_factory.mktemp(request.param), LiveSession, **settings) as live:
        yield request.param, live


def test_the_tables_name_every_tool_template_and_prompt() -> None:
    assert {name for name, _ in SCHEMA_CALLS} == {spec.name for spec in TOOLS}
    assert set(READS) == set(TEMPLATES)


def test_every_tool_answers_what_its_output_schema_says(profile: tuple[str, LiveSession]) -> None:
    from jsonschema import Draft202012Validator

    name, session = profile
    listing = session.portal.call(session.client.list_tools)
    schemas = {tool.name: tool.output_schema for tool in listing.tools}
    assert set(schemas) == {spec.name for spec in TOOLS}
    for tool, arguments in SCHEMA_CALLS:
        result = session.call(tool, **arguments)
        assert not result.is_error, (name, tool, result.content[0].text)
        structured = result.structured_content or {}
        assert ("schema_version" in structured) == (name == "hosted"), tool
        errors = list(Draft202012Validator(schemas[tool] or {}).iter_errors(structured))
        assert errors == [], (name, tool, [error.message for error in errors])
        # Only the leaderboard view's data rides in a result's `_meta` (issue 36), and
        # only where the view is named: the hosted profile's results stay the hosted's.
        with_data = name == "default" and tool in ("get_benchmark", "results_table")
        assert (result.meta is not None) == with_data, (name, tool)


def test_every_resource_template_reads(profile: tuple[str, LiveSession]) -> None:
    name, session = profile
    for template, uri in READS.items():
        text = session.read(uri)
        if template == "paper-markdown":
            assert text == session.fake.markdown(SMALL), name
        else:
            assert isinstance(json.loads(text), dict), (name, template)


def test_every_prompt_renders(profile: tuple[str, LiveSession]) -> None:
    name, session = profile
    listed = session.portal.call(session.client.list_prompts)
    assert {prompt.name for prompt in listed.prompts} == set(PROMPTS)
    for prompt, arguments in PROMPTS.items():
        rendered = session.portal.call(session.client.get_prompt, prompt, arguments)
        text: Any = rendered.messages[0].content.text
        assert all(value in text for value in arguments.values()), (name, prompt)


def test_an_unknown_argument_is_refused_in_both_profiles(
    profile: tuple[str, LiveSession],
) -> None:
    # The hosted server ignores it; we refuse it, naming what the tool takes (README).
    name, session = profile
    message = session.error("list_papers", task="machine-translation", published_aftr="2020")
    assert message.startswith("invalid_argument: unknown argument published_aftr; "), name
    assert "published_after" in message
