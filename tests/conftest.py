"""Shared pytest fixtures: which one to use when.

Reaching the server. Three fixtures cover what almost every test needs; each works in
a private home under `tmp_path` (config, cache, data and log directories of its own,
no `PWC_*` variable from the shell) against the `fake_catalog` below:

* `installed_server` (`tests.installed.InstalledServer`): the installed
  `pwc-mcp-local`, spawned over stdio and driven by the MCP SDK's own client. Use it
  for anything a user of an MCP client would see. Each `session()` is a new process
  in the same home (so a second one sees the cache, key and library the first left);
  `set(...)` adds settings, `command(...)` runs the installed CLI in that home:

      @pytest.mark.anyio
      async def test_a_task(installed_server: InstalledServer) -> None:
          async with installed_server.session() as session:
              task = await call(session, "get_task", task="object-detection")  # tests.installed
          assert task["task"]["name"] == "Object Detection"

* `raw_peer` (`tests.stdio_peer.StdioPeer`): the same installed server, spawned and
  not yet initialized, with the bytes on its stdin and stdout in the test's hands.
  Use it for framing, JSON-RPC details and hostile input, where an SDK client would
  hide or refuse what is sent:

      def test_garbage_line(raw_peer: StdioPeer) -> None:
          raw_peer.initialize()
          raw_peer.send_raw(b"not json\n")
          assert raw_peer.next_message()["error"]["code"] == -32700
          assert raw_peer.finish() == 0

* `cli`: `pwc-mcp-local WORDS...` through click's `CliRunner`, in this process (no
  spawn, so not `e2e`), with the same private home as `installed_server`: use it for
  what a command prints and exits with. A test that needs the command as installed
  (a real terminal, signals, the exit status of the process) runs
  `installed_server.command(...)` instead.

      def test_version(cli: Callable[..., Result]) -> None:
          result = cli("--version")
          assert result.exit_code == 0 and result.output.startswith("pwc-mcp-local, version ")

A test that needs something these do not give spawns otherwise and says why in a
comment: a module-scoped shared server for speed (`tests.installed.module_session`),
several clients at once (`tests.multi_client`), a server served in this process
(`tests.stdio_peer.InProcessPeer`), the transport under a tiny server
(`tests/stdio_tiny_server.py`), a process started the way a client's config entry
starts it, or one that is killed or given odd descriptors.

Catalogs, from the most faithful to the most controllable:

* `fake_catalog` starts a fresh loopback fake of the catalog API for one test (new
  port, fresh data, no faults, empty request log) and stops it afterwards;
  `fake_catalog_session` is one fake shared by a whole session for read-only use
  (do not install faults or change its data). Both yield a
  `tests.fake_catalog.FakeCatalog`: `.api_url`, `.requests`, `.faults`, `.stop()`,
  `.start()` and friends.
* `scripted` is an empty `tests.scripted_catalog.ScriptedCatalog`: routes and
  failures a unit test scripts itself, behind a real `HttpCatalog`, no sockets.

Every test that starts a process (the installed server, the CLI, a helper script)
is marked `e2e`, which keeps `pytest -m "not e2e"` a fast lane of in-process tests.
A test that uses `installed_server` or `raw_peer` is marked for you; others say
`@pytest.mark.e2e` (or `pytestmark`). `_no_processes` holds the line: in a test
without the marker, starting a process (in the test or in a fixture it sets up)
fails the test with the reason.

The suite runs in pytest-xdist workers (`-n auto --dist loadfile` in pyproject.toml),
one more than there are cores: much of an e2e test is waiting for a spawned process,
and a worker that waits leaves its core to another. A command line that names test
files or node ids runs in one process: starting workers would take longer than those
tests. `-n N` (or PYTEST_XDIST_AUTO_NUM_WORKERS) chooses the number.
"""

from __future__ import annotations

import multiprocessing.process
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

import pytest

from tests.fake_catalog import FakeCatalog

# The fixtures import the MCP client and the HTTP catalog when a test asks for them:
# the xdist controller loads this file too and runs no test, and the SDK's import
# alone is about 1.3 s of CPU.
if TYPE_CHECKING:
    from click.testing import Result

    from tests.installed import InstalledServer
    from tests.scripted_catalog import ScriptedCatalog
    from tests.stdio_peer import StdioPeer

# Fixtures that spawn the installed server: a test using one is `e2e`.
SPAWNING_FIXTURES = ("installed_server", "raw_peer")

# pytest rewrites the asserts of every test module as it imports them, after this file
# (about 4 s of CPU for this suite), and caches the result as bytecode, unless
# PYTHONDONTWRITEBYTECODE is set, as it is on some machines and CI runners: then every
# run, and every xdist worker, rewrites them all again. The suite's bytecode goes to
# __pycache__ directories (ignored by git) whatever that variable says.
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many workers `-n auto` starts: see the module docstring."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if chosen.isdigit():
        return int(chosen)
    if any(".py" in arg for arg in config.args):
        return 0
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks tests that use a spawning fixture `e2e`; orders the files.

    The order is the one in which test files start (only that; never what a file does).

    xdist hands each worker the next whole file in this order: first the files
    marked `slow` (the longest, so that none is left to start near the end while
    the other workers idle), then every other file with e2e tests, then the
    in-process ones; within each group, collection order. A file becomes `slow`
    with `pytestmark = pytest.mark.slow` when it takes a large share of a worker
    (about 20 s or more of the whole suite on an idle 2-core machine).
    """
    for item in items:
        uses = getattr(item, "fixturenames", ())
        if item.get_closest_marker("e2e") is None and any(f in uses for f in SPAWNING_FIXTURES):
            item.add_marker(pytest.mark.e2e)
    marked = {
        name: {item.path for item in items if item.get_closest_marker(name) is not None}
        for name in ("slow", "e2e")
    }
    first = {path: position for position, path in enumerate(dict.fromkeys(i.path for i in items))}

    def start(item: pytest.Item) -> tuple[bool, bool, int]:
        return (item.path not in marked["slow"], item.path not in marked["e2e"], first[item.path])

    items.sort(key=start)  # stable: tests keep their order within a file


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (`pytest.mark.anyio`) run on asyncio, the server's loop, alone.

    anyio's own fixture would run each once per installed backend.
    """
    return "asyncio"


@pytest.fixture
def fake_catalog() -> Iterator[FakeCatalog]:
    fake = FakeCatalog().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture(scope="session")
def fake_catalog_session() -> Iterator[FakeCatalog]:
    fake = FakeCatalog().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def installed_server(tmp_path: Path, fake_catalog: FakeCatalog) -> InstalledServer:
    """The installed server against this test's `fake_catalog`, its home in `tmp_path`."""
    from tests.installed import InstalledServer

    return InstalledServer(tmp_path, fake_catalog.api_url)


@pytest.fixture
def raw_peer(installed_server: InstalledServer) -> Iterator[StdioPeer]:
    """`installed_server` spawned for raw JSON-RPC lines; killed afterwards if still running."""
    with installed_server.peer() as peer:
        yield peer


@pytest.fixture
def cli(
    tmp_path: Path, fake_catalog: FakeCatalog, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Result]]:
    """`cli(*words, input=None)`: `pwc-mcp-local WORDS...` in this process (click's runner).

    The environment is `installed_server`'s (same home, same catalog) for the test's
    length; the logging set-up a command makes (handlers on the root logger) is
    undone afterwards.
    """
    import logging

    from click.testing import CliRunner

    from pwc_local.cli import main
    from tests.installed import InstalledServer

    for name in list(os.environ):
        if name.startswith("PWC_"):
            monkeypatch.delenv(name)
    for name, value in InstalledServer(tmp_path, fake_catalog.api_url).env.items():
        if os.environ.get(name) != value:
            monkeypatch.setenv(name, value)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {
        name: logger.level
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }

    def invoke(*words: str, input: str | None = None) -> Result:
        return CliRunner().invoke(main, list(words), input=input)

    yield invoke
    logging.captureWarnings(False)
    for handler in list(root.handlers):
        root.removeHandler(handler)
        if handler not in handlers:
            handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            logger.setLevel(levels.get(name, logging.NOTSET))


@pytest.fixture
def scripted() -> ScriptedCatalog:
    from tests.scripted_catalog import ScriptedCatalog

    return ScriptedCatalog()


@contextmanager
def _no_processes(item: pytest.Item) -> Iterator[None]:
    """Outside `e2e` tests, starting a process (subprocess, multiprocessing) fails."""
    if item.get_closest_marker("e2e") is not None:
        yield
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"{item.name} starts a process: mark it @pytest.mark.e2e")

    with (
        mock.patch.object(subprocess.Popen, "__init__", refuse),
        mock.patch.object(multiprocessing.process.BaseProcess, "start", refuse),
    ):
        yield


# Setup too: a module-scoped fixture that spawns a server starts it there.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _no_processes(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _no_processes(item):
        yield
