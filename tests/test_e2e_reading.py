"""End to end: outlines, section reads, citations, completions and resource links.

The installed `pwc-mcp-local`, spawned over stdio with the SDK client, against the
loopback fake. One server per module; the fake is reset before every test. The
offline tests refuse connections on the fake and check what the server still
answers from its cache.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, PromptReference, ResourceTemplateReference

from tests.fake_catalog import FakeCatalog

pytestmark = pytest.mark.e2e

EXECUTABLE = Path(sys.executable).parent / "pwc-mcp-local"
TIMEOUT_SECONDS = 3


class Session:
    """A live stdio session with the spawned server, usable from synchronous tests."""

    def __init__(self, portal: BlockingPortal, client: Client, fake: FakeCatalog) -> None:
        self.portal = portal
        self.client = client
        self.fake = fake

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments)

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        return result.structured_content

    def error(self, name: str, **arguments: Any) -> str:
        result = self.call(name, **arguments)
        assert result.is_error
        text = result.content[0].text
        prefix = f"Error executing tool {name}: "
        assert text.startswith(prefix), text
        return text[len(prefix) :]

    def complete(self, ref: PromptReference | ResourceTemplateReference, name: str, value: str):
        result = self.portal.call(self.client.complete, ref, {"name": name, "value": value})
        return result.completion.values

    def read(self, uri: str) -> str:
        result = self.portal.call(self.client.read_resource, uri)
        assert len(result.contents) == 1
        return result.contents[0].text


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    assert EXECUTABLE.exists(), "install the project first: pip install -e '.[test]'"
    home = tmp_path_factory.mktemp("home")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PWC_")}
    fake = FakeCatalog().start()
    env.update(
        {
            "PWC_API_URL": fake.api_url,
            "PWC_MCP_LOCAL_TIMEOUT": str(TIMEOUT_SECONDS),
            "PWC_MCP_LOCAL_CACHE_DIR": str(home / "cache"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache-home"),
            "XDG_DATA_HOME": str(home / "data"),
        }
    )
    params = StdioServerParameters(command=str(EXECUTABLE), args=[], env=env)
    try:
        with start_blocking_portal() as portal:
            client = Client(params, mode="legacy", cache=None)
            with portal.wrap_async_context_manager(client) as live:
                yield Session(portal, live, fake)
    finally:
        fake.stop()


@pytest.fixture(autouse=True)
def fresh_fake(session: Session) -> Iterator[None]:
    session.fake.reset()
    yield
    session.fake.reset()


# -- completions ------------------------------------------------------------------------

PROMPT_CASES = [
    (PromptReference(name="survey_task", type="ref/prompt"), "task", "Image Classification"),
    (PromptReference(name="find_papers", type="ref/prompt"), "topic", "Image Classification"),
    (PromptReference(name="compare_leaderboard", type="ref/prompt"), "benchmark", "ImageNet-1k"),
]
TEMPLATE_CASES = [
    (
        ResourceTemplateReference(uri="pwc://tasks/{task}", type="ref/resource"),
        "task",
        "image-classification",
    ),
    (
        ResourceTemplateReference(uri="pwc://benchmarks/{benchmark}", type="ref/resource"),
        "benchmark",
        "imagenet-1k",
    ),
]


def test_completions_capability_is_advertised(session: Session) -> None:
    capabilities = session.client.server_capabilities
    assert capabilities is not None and capabilities.completions is not None


@pytest.mark.parametrize(("ref", "name", "expected"), PROMPT_CASES + TEMPLATE_CASES)
def test_completions_online_then_offline(
    session: Session, ref: Any, name: str, expected: str
) -> None:
    online = session.complete(ref, name, "Ima")
    assert expected in online and len(online) <= 20
    session.fake.faults.refuse_connections()
    # A longer prefix was never asked online: the local vocabulary answers it.
    offline = session.complete(ref, name, "Image" if expected[0] == "I" else "imag")
    assert expected in offline


def test_paper_completion_online_and_offline(session: Session) -> None:
    ref = ResourceTemplateReference(uri="pwc://papers/{paper}", type="ref/resource")
    online = session.complete(ref, "paper", "attention")
    assert "1706.03762" in online
    session.fake.faults.refuse_connections()
    assert "1706.03762" in session.complete(ref, "paper", "Attention is")


def test_unknown_completions_are_empty_not_errors(session: Session) -> None:
    task = PromptReference(name="survey_task", type="ref/prompt")
    assert session.complete(task, "task", "zzqqxx-no-such") == []
    assert session.complete(task, "nope", "Ima") == []
    assert session.complete(PromptReference(name="nope", type="ref/prompt"), "task", "I") == []
    other = ResourceTemplateReference(uri="pwc://nowhere/{x}", type="ref/resource")
    assert session.complete(other, "x", "Ima") == []
