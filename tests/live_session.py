"""One installed server per test module, driven from synchronous tests.

`serve_module(root, **settings)` starts a fresh loopback fake catalog and the
installed `pwc-mcp-local` (`tests.installed.InstalledServer`) against it, opens
an SDK client session in a blocking portal, and yields a `LiveSession`. Modules
that share one server for all their tests take its fixtures from `module_session`
and add their own `ok()`, with the assertions every successful answer there must
meet.

One server serves many tests: a refused connection or timeout provoked by one test
does not hold the next ones off the catalog, since the first answer after it ends the
remembered outage (`pwc_local.store.outage`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp_types import CallToolResult, PromptReference, ResourceTemplateReference

from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer


class LiveSession:
    """A live stdio session with the spawned server, usable from synchronous tests."""

    def __init__(
        self, portal: BlockingPortal, client: Client, fake: FakeCatalog, env: dict[str, str]
    ) -> None:
        self.portal = portal
        self.client = client
        self.fake = fake
        self.env = env

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments)

    def error(self, name: str, **arguments: Any) -> str:
        """Call a tool that must fail; the message after the SDK's prefix."""
        return self.message(name, self.call(name, **arguments))

    @staticmethod
    def message(name: str, result: CallToolResult) -> str:
        """The error text of a failed call of tool `name`, after the SDK's prefix."""
        assert result.is_error
        prefix = f"Error executing tool {name}: "
        text = result.content[0].text
        assert text.startswith(prefix), text
        return text[len(prefix) :]

    def complete(
        self, ref: PromptReference | ResourceTemplateReference, name: str, value: str
    ) -> list[str]:
        result = self.portal.call(self.client.complete, ref, {"name": name, "value": value})
        return result.completion.values

    def read(self, uri: str) -> str:
        result = self.portal.call(self.client.read_resource, uri)
        assert len(result.contents) == 1
        return result.contents[0].text


@contextmanager
def serve_module(root: Path, session_class: type[LiveSession], **settings: str) -> Iterator[Any]:
    """A fake catalog, the installed server against it, and a `session_class` session."""
    fake = FakeCatalog().start()
    server = InstalledServer(root, fake.api_url, **settings)
    try:
        with start_blocking_portal() as portal:
            client = Client(server.params(), mode="legacy", cache=None)
            with portal.wrap_async_context_manager(client) as live:
                yield session_class(portal, live, fake, server.env)
    finally:
        fake.stop()


def module_session(session_class: type[LiveSession], home: str, **settings: str) -> tuple[Any, Any]:
    """The fixtures `session` and `fresh_fake` for a module that shares one server.

    `session` (module-scoped) is a `session_class` session from `serve_module`, the
    server's home in a fresh directory named after `home`, `settings` in its
    environment. `fresh_fake` (autouse) resets the fake (data, faults, request log)
    before and after every test, so none sees what another left. pytest finds
    fixtures among a module's names, so the module binds both:

        session, fresh_fake = module_session(Session, "reading", PWC_MCP_LOCAL_TIMEOUT="3")
    """

    @pytest.fixture(scope="module", name="session")
    def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSession]:
        with serve_module(tmp_path_factory.mktemp(home), session_class, **settings) as live:
            yield live

    @pytest.fixture(autouse=True, name="fresh_fake")
    def fresh_fake(session: LiveSession) -> Iterator[None]:
        session.fake.reset()
        yield
        session.fake.reset()

    return session, fresh_fake
