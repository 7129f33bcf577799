"""Both profiles end to end: every tool, resource, resource template and prompt (issue 34).

The suite's homes run the default (compact) profile; this module runs one installed
server per profile and exercises everything its own listings name: every listed tool
is called on its success path (its `structuredContent` checked against the output
schema it advertises, with jsonschema), every resource and resource template read,
every prompt rendered. The sets come from the listings, so a tool, template or prompt
added without a case here fails the test. The profiles: the default one; the hosted
one (`tools = "hosted"`: the 21 hosted tools, the hosted shapes); and the local tools
in the hosted shapes (`structured = "hosted"` alone), so every tool runs in both shapes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pwc_local.contract import names
from tests.installed import LiveSession, serve_module
from tests.test_e2e_tools import SCHEMA_CALLS

pytestmark = pytest.mark.e2e

PROFILES = {
    "default": {},
    "hosted": {"PWC_MCP_LOCAL_TOOLS": "hosted"},
    "hosted shapes": {"PWC_MCP_LOCAL_STRUCTURED": "hosted"},
}
LISTED = {"default": names(), "hosted": names("hosted"), "hosted shapes": names()}
SMALL = "1706.03762"  # a paper whose Markdown fits one response
READS = {  # a listed resource template -> the URI read
    "pwc://papers/{paper}": f"pwc://papers/{SMALL}",
    "pwc://papers/{paper}/markdown": f"pwc://papers/{SMALL}/markdown",
    "pwc://tasks/{task}": "pwc://tasks/image-classification",
    "pwc://benchmarks/{benchmark}": "pwc://benchmarks/imagenet-1k",
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
    home = tmp_path_factory.mktemp(request.param.replace(" ", "-"))
    with serve_module(home, LiveSession, **settings) as live:
        yield request.param, live


def test_every_listed_tool_answers_what_its_output_schema_says(
    profile: tuple[str, LiveSession],
) -> None:
    from jsonschema import Draft202012Validator

    name, session = profile
    listing = session.portal.call(session.client.list_tools)
    schemas = {tool.name: tool.output_schema for tool in listing.tools}
    assert tuple(schemas) == LISTED[name], name  # 33 tools, 21 in the hosted profile
    cases = {tool: [args for called, args in SCHEMA_CALLS if called == tool] for tool in schemas}
    assert [tool for tool, calls in cases.items() if not calls] == [], "tools without a case"
    for tool, calls in cases.items():
        for arguments in calls:
            result = session.call(tool, **arguments)
            assert not result.is_error, (name, tool, result.content[0].text)
            structured = result.structured_content or {}
            assert ("schema_version" in structured) == (name != "default"), (name, tool)
            errors = list(Draft202012Validator(schemas[tool] or {}).iter_errors(structured))
            assert errors == [], (name, tool, [error.message for error in errors])
            # Only the leaderboard view's data rides in a result's `_meta` (issue 36), and
            # only where the view is named: the other profiles' results stay as they were.
            with_data = name == "default" and tool in ("get_benchmark", "results_table")
            assert (result.meta is not None) == with_data, (name, tool)


def test_every_listed_resource_and_template_reads(profile: tuple[str, LiveSession]) -> None:
    name, session = profile
    listed = session.portal.call(session.client.list_resource_templates)
    templates = [template.uri_template for template in listed.resource_templates]
    assert sorted(templates) == sorted(READS), name  # a new template needs a case
    for template in templates:
        text = session.read(READS[template])
        if template.endswith("/markdown"):
            assert text == session.fake.markdown(SMALL), name
        else:
            assert isinstance(json.loads(text), dict), (name, template)
    # The resources listed as such: the leaderboard view's HTML in the default profile.
    resources = session.portal.call(session.client.list_resources).resources
    assert [str(r.uri) for r in resources] == (
        ["ui://pwc/leaderboard"] if name == "default" else []
    )
    for resource in resources:
        assert session.read(str(resource.uri)).lstrip().lower().startswith("<!doctype html>")


def test_every_listed_prompt_renders(profile: tuple[str, LiveSession]) -> None:
    name, session = profile
    listed = [prompt.name for prompt in session.portal.call(session.client.list_prompts).prompts]
    local = {"whats_new_digest"}  # prompts of the local tools, not in the hosted profile
    assert set(listed) == (set(PROMPTS) - local if name == "hosted" else set(PROMPTS)), name
    for prompt in listed:
        arguments = PROMPTS[prompt]
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
