"""End to end: the `watch` and `whats_new` tools and the `whats_new_digest` prompt.

Each test spawns the installed `pwc-mcp-local` with a home of its own against a
loopback fake catalog of its own (`serve_module`), changes the catalog between two
looks with `fake.apply(...)`, and reads what a client reads: `structuredContent`
and the text block. A restart is a second server process with the same home.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from pwc_local.present.watch import row_line
from tests.fake_catalog import NEW_PAPER, NewPaper, NewResult
from tests.installed import LiveSession, looks, serve_module

pytestmark = pytest.mark.e2e

NEW_LEADER = NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1})
LOWER_ROW = NewResult(
    "72", paper="755", model="Plain ResNet", metrics={"Top-1 Accuracy": 80.5}, rank=4
)
RECOVERY_POLLS = 50  # whats_new calls (each answers at once) until the catalog is back


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveSession]:
    """A server per test (each changes watches and baselines), driven synchronously."""
    with serve_module(tmp_path, LiveSession) as session:
        yield session


def _ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    assert "schema_version" not in result.structured_content  # the default profile
    return result.structured_content


def _text(result: CallToolResult) -> str:
    (block,) = result.content
    return block.text


def _looks(result: CallToolResult) -> list[dict[str, Any]]:
    return looks(_ok(result))


def _changes(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(change["type"], change.get("model")) for change in report["changes"]]


def _last_looks(live: LiveSession) -> list[str]:
    """Each watch's last look, to the second, as the `watch` tool lists them (adding a
    watched target again keeps it and moves nothing)."""
    listed = _ok(live.call("watch", kind="benchmark", target="ImageNet-1k"))
    assert listed["status"] == "kept"
    return [watch["last_look"] for watch in listed["watches"]]


def _in_another_process(live: LiveSession, name: str, **arguments: Any) -> CallToolResult:
    """Call tool `name` in a new server process with the same home (and catalog)."""
    params = live.params()

    async def call() -> CallToolResult:
        async with Client(params, mode="legacy", cache=None) as client:
            return await client.call_tool(name, arguments)

    return live.portal.call(call)


def test_a_new_result_and_a_new_leader_then_mark_seen_both_ways(live: LiveSession) -> None:
    added = live.call("watch", kind="benchmark", target="imagenet-1k")
    listed = _ok(added)
    assert listed["status"] == "added" and listed["limit"] == 100
    assert [(w["kind"], w["name"], w["target"]) for w in listed["watches"]] == [
        ("benchmark", "ImageNet-1k", "imagenet-1k")
    ]
    assert _text(added).startswith("Watching benchmark imagenet-1k; baseline taken now.")
    assert "ImageNet-1k  (as imagenet-1k)" in _text(added)
    baseline = _last_looks(live)
    quiet = _looks(live.call("whats_new", mark_seen=False))
    assert [report["status"] for report in quiet] == ["unchanged"]

    live.fake.apply(LOWER_ROW)
    live.fake.apply(NEW_LEADER)
    peeked = live.call("whats_new", mark_seen=False)
    first = _looks(peeked)
    assert _looks(live.call("whats_new", mark_seen=False)) == first
    (report,) = first
    assert report["status"] == "changed" and report["more"] == 0 and report["reason"] is None
    assert _changes(report) == [
        ("new_leader", "ViT-G/14"),
        ("new_result", "ViT-G/14"),
        ("new_result", "Plain ResNet"),
    ]
    leader = report["changes"][0]
    assert (leader["metric"], leader["value"], leader["was"]) == (
        "Top-1 Accuracy",
        90.1,
        "ViT-H/14, 88.55",
    )
    lower = report["changes"][2]
    # Added at rank 4, then moved down one by the new leader; paper 755 is 1706.03762.
    assert (lower["rank"], lower["value"], lower["paper"]) == (5, 80.5, "1706.03762")
    # The text carries the same changes, each as its line, and the count.
    text = _text(peeked)
    for change in report["changes"]:
        assert row_line(change) in text
    assert "new leader    ViT-G/14  Top-1 Accuracy 90.1  (was ViT-H/14, 88.55)" in text
    assert text.endswith("1 changed, 0 unchanged")

    assert _last_looks(live) == baseline  # nothing moved

    marked = datetime.now(timezone.utc).replace(microsecond=0)
    seen = _looks(live.call("whats_new"))  # mark_seen=true, the default
    assert seen[0]["changes"] == report["changes"]
    after = _looks(live.call("whats_new"))
    assert [r["status"] for r in after] == ["unchanged"]
    (moved,) = _last_looks(live)  # the baseline moved to the look that marked them seen
    assert datetime.fromisoformat(moved) >= marked
    assert after[0]["previous_look"] == moved[:16].replace("T", " ") + " UTC"


def test_a_new_server_process_sees_the_same_watches_and_baselines(live: LiveSession) -> None:
    _ok(live.call("watch", kind="benchmark", target="ImageNet-1k"))
    _ok(live.call("watch", kind="task", target="Image Classification"))
    live.fake.apply(NEW_LEADER)
    live.fake.apply(NewPaper(NEW_PAPER))
    restarted = _looks(_in_another_process(live, "whats_new", mark_seen=True))
    assert [(r["name"], r["status"]) for r in restarted] == [
        ("ImageNet-1k", "changed"),
        ("Image Classification", "changed"),
    ]
    assert [(c["type"], c["paper"]) for c in restarted[1]["changes"]] == [
        ("new_paper", NEW_PAPER.arxiv_id)
    ]
    # That process moved the baselines; this one reads them from the same database.
    here = _looks(live.call("whats_new", mark_seen=False))
    assert [r["status"] for r in here] == ["unchanged", "unchanged"]
    again = _ok(_in_another_process(live, "watch", kind="task", target="image classification"))
    assert again["status"] == "kept" and len(again["watches"]) == 2


def test_offline_every_watch_is_not_checked_and_back_the_change_is_reported(
    live: LiveSession,
) -> None:
    _ok(live.call("watch", kind="benchmark", target="ImageNet-1k"))
    listed = _ok(live.call("watch", kind="query", target="vision transformer"))
    looked = [w["last_look"] for w in listed["watches"]]
    live.fake.stop()
    live.fake.apply(NEW_LEADER)  # made during the outage
    live.fake.apply(NewPaper(NEW_PAPER))
    offline = live.call("whats_new")  # mark_seen=true: still nothing may move
    answer = _looks(offline)
    assert [r["status"] for r in answer] == ["not_checked", "not_checked"]
    for report in answer:
        assert report["reason"].startswith("upstream_error: ") and report["changes"] == []
    assert "0 changed, 0 unchanged, 2 not checked (their baselines stay):" in _text(offline)
    assert "(2 watches)" in _text(offline)  # the reason is said once, for both
    still = _ok(live.call("watch", kind="query", target="Vision  Transformer"))  # kept
    assert still["status"] == "kept"
    assert [w["last_look"] for w in still["watches"]] == looked

    live.fake.start()
    for _ in range(RECOVERY_POLLS):  # the outage memory lets a probe through
        back = _looks(live.call("whats_new", mark_seen=False))
        if all(r["status"] != "not_checked" for r in back):
            break
    else:
        pytest.fail("whats_new did not reach the catalog again")
    assert [r["status"] for r in back] == ["changed", "changed"]
    assert ("new_leader", "ViT-G/14") in _changes(back[0])
    assert [c["paper"] for c in back[1]["changes"]] == [NEW_PAPER.arxiv_id]


def test_bad_input_is_refused_and_stores_nothing(live: LiveSession) -> None:
    unknown_kind = live.error("watch", kind="dataset", target="COCO")
    assert unknown_kind.startswith("invalid_argument: kind ")
    assert live.error("watch", kind="query", target="").startswith("invalid_argument: target ")
    assert live.error("watch", kind="query", target="   ") == (
        "invalid_argument: target must not be empty"
    )
    assert live.error("watch", kind="task", target="Image Classificatio") == (
        "not_found: Task not found: Image Classificatio; closest results: "
        "Image Classification, Fine-Grained Image Classification"
    )
    assert live.error("watch", kind="benchmark", target="COCO", remove=True).startswith(
        "not_found: Watch not found: benchmark COCO"
    )
    empty = live.call("whats_new")
    assert _ok(empty)["note"].startswith("No watches yet") and _looks(empty) == []
    assert _text(empty).startswith("No watches yet")


def test_the_digest_prompt_is_listed_and_asks_for_whats_new(live: LiveSession) -> None:
    prompts = live.portal.call(live.client.list_prompts).prompts
    digest = next(prompt for prompt in prompts if prompt.name == "whats_new_digest")
    assert digest.title == "What's new on my watch list" and not digest.arguments
    rendered = live.portal.call(live.client.get_prompt, "whats_new_digest", {})
    (message,) = rendered.messages
    body = message.content.text
    assert message.role == "user"
    for needle in ("whats_new", "grouped by watch", "https://arxiv.org/abs/", "paperswithcode.co"):
        assert needle in body


def test_the_hosted_profile_has_neither_the_tools_nor_the_prompt(live: LiveSession) -> None:
    params = live.params(PWC_MCP_LOCAL_TOOLS="hosted")

    async def surface() -> tuple[set[str], set[str]]:
        async with Client(params, mode="legacy", cache=None) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
            return tools, prompts

    tools, prompts = live.portal.call(surface)
    assert len(tools) == 21 and not tools & {"watch", "whats_new"}
    assert prompts == {"find_papers", "compare_leaderboard", "survey_task"}


def test_the_annotations_say_what_the_tools_do_to_this_machine(live: LiveSession) -> None:
    # A hint left out means MCP's default (readOnly false, destructive true, idempotent
    # false, openWorld true): read here as a client must read it.
    defaults = {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    tools = {tool.name: tool for tool in live.portal.call(live.client.list_tools).tools}

    def hints(name: str) -> dict[str, bool]:
        sent = tools[name].annotations
        given = sent.model_dump(by_alias=True, exclude_none=True) if sent else {}
        return {key: given.get(key, default) for key, default in defaults.items()}

    assert hints("watch") == {
        "readOnlyHint": False,  # writes the list
        "destructiveHint": True,  # remove=true drops a watch and its baseline
        "idempotentHint": True,  # adding again keeps it
        "openWorldHint": True,  # asks the catalog on the web
    }
    assert hints("whats_new") == {
        "readOnlyHint": False,  # moves the baselines
        "destructiveHint": False,
        "idempotentHint": False,  # a retry finds the changes marked seen
        "openWorldHint": True,
    }
