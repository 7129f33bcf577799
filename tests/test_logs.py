"""Logging setup: where records go, and what SDK records may not carry."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pwc_local.config import ConfigError
from pwc_local.logs import configure_logging

CLI = str(Path(sys.executable).parent / "pwc-mcp-local")


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    sdk = logging.getLogger("mcp")
    sdk_level = sdk.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    sdk.setLevel(sdk_level)


def _crash(value: str) -> None:
    raise ValueError(f"Unexpected keyword argument, input_value={value!r}")


def test_sdk_records_keep_message_class_and_frames_but_not_peer_data(
    tmp_path: Path, restore_logging: None
) -> None:
    log_file = tmp_path / "server.log"
    configure_logging("debug", log_file)
    try:
        _crash("SECRET" + "-argument")  # spelt apart: frames quote this source line
    except ValueError:
        logging.getLogger("mcp.shared.jsonrpc_dispatcher").exception(
            "handler for %r raised", "SECRET" + "-method"
        )
    logging.getLogger("pwc_local.probe").info("our own record %s", "kept")
    for handler in logging.getLogger().handlers:
        handler.flush()
    logged = log_file.read_text(encoding="utf-8")
    assert "handler for %r raised [arguments withheld]" in logged
    assert "in _crash" in logged and "ValueError [text withheld]" in logged
    assert "SECRET-argument" not in logged and "SECRET-method" not in logged
    assert "our own record kept" in logged  # only the SDK's records are trimmed


def test_a_log_file_that_is_stdout_is_refused(tmp_path: Path, restore_logging: None) -> None:
    # Under pytest, stdout is a pipe or a capture file; either way not a terminal.
    if os.isatty(1):
        pytest.skip("stdout is a terminal here")
    with pytest.raises(ConfigError, match="standard output"):
        configure_logging("info", Path("/dev/stdout"))


@pytest.mark.e2e
@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout")
def test_cli_refuses_stdout_as_log_file(tmp_path: Path) -> None:
    # Not `installed_server.command`: start-up with a bare environment, as in test_config.
    result = subprocess.run(
        [CLI, "--log-level", "debug"],
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PWC_MCP_LOCAL_LOG_FILE": "/dev/stdout",
        },
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stdout == b""  # before the fix, every debug record landed here
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "standard output" in lines[0]
