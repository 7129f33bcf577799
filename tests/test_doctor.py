"""`pwc-mcp-local doctor`: a healthy run against the catalog fake, and each failure it
must detect (unreachable catalog, unwritable cache, bad key mode, an entry that points
at a missing executable, a server that cannot start)."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from pwc_local.cli import main
from pwc_local.clients.targets import Host
from pwc_local.commands.doctor import format_checks
from pwc_local.config import Settings
from pwc_local.doctor import (
    Check,
    check_cache,
    check_catalog,
    check_clients,
    check_configuration,
    check_cursor_key,
    check_self_test,
)
from pwc_local.server.bindings import all_tools

TOOLS = all_tools()

pytestmark = pytest.mark.slow  # a long file: starts first (conftest)

SECRET = "ab" * 32


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in list(os.environ):
        if name.startswith("PWC_") or name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR"):
            monkeypatch.delenv(name)
    return home


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in report["checks"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the whole command -----------------------------------------------------------------------


@pytest.mark.e2e
def test_healthy_run_reports_every_check(
    home: Path, fake_catalog: Any, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("PWC_API_URL", fake_catalog.api_url)
    runner = CliRunner()
    # The entry runs with the shell's catalog, so doctor asks that catalog only once.
    installed = runner.invoke(
        main, ["install", "claude-desktop", "--env", f"PWC_API_URL={fake_catalog.api_url}"]
    )
    assert installed.exit_code == 0

    result = runner.invoke(main, ["doctor", "--json"])
    report = json.loads(result.output)
    assert result.exit_code == 0, result.output
    assert report["ok"] is True
    checks = by_name(report)
    assert checks["configuration"]["details"]["api_url"] == {
        "value": fake_catalog.api_url,
        "source": "environment PWC_API_URL",
    }
    assert checks["catalog"]["status"] == "ok"
    assert checks["catalog"]["details"]["latency_ms"] >= 0
    # One cheap request, and the self-test's list_tools needed none.
    assert [(r.path, r.query) for r in fake_catalog.requests] == [
        ("tasks/", {"page": ["1"], "page_size": ["1"]})
    ]
    assert checks["self-test"]["status"] == "ok"
    assert checks["self-test"]["details"]["tools"] == len(TOOLS)
    assert checks["cache"]["status"] == "ok"
    assert checks["cursor key"]["status"] == "ok"
    # The entry `install` wrote was started as the client would start it.
    desktop = checks["claude-desktop"]
    assert desktop["status"] == "ok"
    assert desktop["details"]["entries"]["pwc-local"]["runnable"] is True
    assert f"handshake and {len(TOOLS)} tools" in desktop["summary"]  # every table entry
    assert desktop["details"]["entries"]["pwc-local"]["probe"]["tools"] == len(TOOLS)
    assert desktop["details"]["entries"]["pwc-local"]["catalog"]["status"] == "ok"
    assert desktop["notes"] == []  # same settings as the shell: nothing to point out
    assert checks["cursor"]["status"] == "skip"


@pytest.mark.e2e
def test_an_entry_with_a_dead_catalog_fails_though_the_shells_answers(
    home: Path, fake_catalog: Any, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("PWC_API_URL", fake_catalog.api_url)
    dead = f"http://127.0.0.1:{free_port()}/api/v1"
    runner = CliRunner()
    assert (
        runner.invoke(main, ["install", "claude-desktop", "--env", f"PWC_API_URL={dead}"]).exit_code
        == 0
    )

    result = runner.invoke(main, ["doctor"])
    assert result.exit_code == 1, result.output
    assert "All good." not in result.output
    assert f"ok    catalog         {fake_catalog.api_url} answered" in result.output
    desktop = [line for line in result.output.splitlines() if "claude-desktop" in line]
    assert desktop[0].strip().startswith("FAIL"), result.output
    assert f"but its catalog fails: {dead}: the connection was refused" in desktop[0]
    assert (
        f"note: PWC_API_URL: your shell sets {fake_catalog.api_url}, "
        f"Claude Desktop's entry sets {dead}" in result.output
    )
    assert "install claude-desktop --force --env NAME=VALUE" in result.output


@pytest.mark.e2e
def test_an_entry_without_env_runs_with_the_defaults_and_doctor_says_so(
    home: Path, fake_catalog: Any, monkeypatch: pytest.MonkeyPatch
):
    # The shell's PWC_* do not reach a desktop app: its entry runs with the defaults.
    # (--offline: the default catalog is not on loopback, so it is not asked here.)
    monkeypatch.setenv("PWC_API_URL", fake_catalog.api_url)
    monkeypatch.setenv("PWC_MCP_LOCAL_TIMEOUT", "5")
    runner = CliRunner()
    assert runner.invoke(main, ["install", "claude-desktop"]).exit_code == 0

    result = runner.invoke(main, ["doctor", "--json", "--offline"])
    desktop = by_name(json.loads(result.output))["claude-desktop"]
    assert desktop["notes"] == [
        f"PWC_API_URL: your shell sets {fake_catalog.api_url}, "
        "Claude Desktop's entry uses the default https://paperswithcode.co/api/v1",
        "PWC_MCP_LOCAL_TIMEOUT: your shell sets 5 s, Claude Desktop's entry uses the default 25 s",
    ]
    assert "catalog" not in desktop["details"]["entries"]["pwc-local"]  # --offline


@pytest.mark.e2e
def test_failures_give_exit_status_one_and_a_fix(home: Path, monkeypatch: pytest.MonkeyPatch):
    # A setting the server refuses: the configuration check fails, and so does the
    # self-test, which shows the server's own complaint.
    monkeypatch.setenv("PWC_MCP_LOCAL_TIMEOUT", "soon")
    result = CliRunner().invoke(main, ["doctor", "--offline"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    failed = [line.split()[1] for line in lines if line.strip().startswith("FAIL")]
    assert failed == ["configuration", "self-test"]
    assert any("PWC_MCP_LOCAL_TIMEOUT" in line for line in lines if "FAIL" in line)
    assert any("configuration error" in line for line in lines if "self-test" in line)
    assert any(line.strip().startswith("fix:") for line in lines)
    assert "skip  catalog" in result.output
    assert lines[-1] == "2 checks failed."


def test_every_duration_and_size_setting_is_shown_with_its_unit():
    defaults = Settings()
    check = check_configuration(defaults)
    lines = format_checks([check])
    assert any(line.split() == ["timeout", "=", "25", "s", "(default)"] for line in lines)
    assert any(line.split() == ["cursor_ttl", "=", "86400", "s", "(default)"] for line in lines)
    assert any(line.split() == ["cache_size", "=", "1", "GiB", "(default)"] for line in lines)
    # Unset settings show the value they take effect with, as the README's table has it.
    assert any(line.split() == ["structured", "=", "compact", "(default)"] for line in lines)
    assert any(line.split() == ["read_chunk", "=", "8", "KiB", "(default)"] for line in lines)
    # A number shown bare would be a setting missing from doctor.SETTING_UNITS.
    for name, info in check.details.items():
        value = getattr(defaults, name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            assert re.fullmatch(r"[\d.]+ [A-Za-z]+", info["value"]), (name, info["value"])


# -- catalog -------------------------------------------------------------------------------


def test_unreachable_catalog_names_the_failure_class():
    settings = Settings(api_url=f"http://127.0.0.1:{free_port()}/api/v1", timeout=5)
    check = anyio.run(check_catalog, settings)
    assert check.status == "fail"
    assert check.details["cause"] == "refused"
    assert "connection was refused" in check.summary and settings.api_url in check.summary
    assert "PWC_API_URL" in (check.fix or "")


def test_catalog_at_the_wrong_path_is_an_http_failure(fake_catalog: Any):
    settings = Settings(api_url=fake_catalog.api_url.replace("/api/v1", "/nothing-here"))
    check = anyio.run(check_catalog, settings)
    assert check.status == "fail"
    assert "answered HTTP 404" in check.summary
    assert "/api/v1" in (check.fix or "")


# -- cache ---------------------------------------------------------------------------------


def test_cache_that_is_a_file_is_not_writable(tmp_path: Path):
    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    check = check_cache(Settings(cache_dir=blocker))
    assert check.status == "fail"
    assert f"cache directory {blocker} is not a directory" in check.summary
    assert "PWC_MCP_LOCAL_CACHE_DIR" in (check.fix or "")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_cache_without_write_permission(tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        check = check_cache(Settings(cache_dir=locked / "cache"))
    finally:
        locked.chmod(0o700)
    assert check.status == "fail"


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_a_cache_directory_made_by_doctor_is_private(tmp_path: Path):
    # install.sh runs doctor before any server: the directory it makes is the cache's.
    directory = tmp_path / "new" / "pwc-mcp-local"
    assert check_cache(Settings(cache_dir=directory)).status == "ok"
    assert directory.stat().st_mode & 0o777 == 0o700


def test_cache_reports_size_against_its_bound(tmp_path: Path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "blob").write_bytes(b"x" * 3000)
    ok = check_cache(Settings(cache_dir=cache, cache_size=2 * 1024 * 1024))
    assert ok.status == "ok"
    assert ok.details["bytes"] >= 3000
    assert "of 2 MiB" in ok.summary
    over = check_cache(Settings(cache_dir=cache, cache_size=1000))
    assert over.status == "warn"
    assert "over its bound" in over.summary


def test_cache_counts_one_entry_in_the_singular(tmp_path: Path):
    from pwc_local.store.cache import DiskCache

    settings = Settings(cache_dir=tmp_path / "cache")
    cache = DiskCache.from_settings(settings)
    cache.put("response", ["tasks/", 1], {"results": []}, ttl=60)
    cache.close()
    assert check_cache(settings).summary.endswith(", 1 entry")


# -- cursor key ----------------------------------------------------------------------------


def write_key(directory: Path, mode: int) -> Path:
    directory.mkdir(mode=0o700, parents=True)
    key = directory / "cursor-key"
    key.write_text(SECRET + "\n")
    key.chmod(mode)
    return key


def no_secret(check: Check) -> None:
    assert SECRET not in repr(check)
    assert SECRET not in "\n".join(format_checks([check]))


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_key_readable_by_others_fails_with_chmod_fix(tmp_path: Path):
    key = write_key(tmp_path / "keys", 0o644)
    check = check_cursor_key({}, tmp_path / "keys")
    assert check.status == "fail"
    assert "0644" in check.summary
    assert check.fix == f"chmod 600 {key}"
    no_secret(check)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_private_key_is_ok(tmp_path: Path):
    write_key(tmp_path / "keys", 0o600)
    check = check_cursor_key({}, tmp_path / "keys")
    assert check.status == "ok", check.summary
    assert "0600" in check.summary
    no_secret(check)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs chown")
def test_key_owned_by_someone_else_fails(tmp_path: Path):
    key = write_key(tmp_path / "keys", 0o600)
    os.chown(key, 12345, 12345)
    check = check_cursor_key({}, tmp_path / "keys")
    assert check.status == "fail"
    assert "uid 12345" in check.summary
    assert (check.fix or "").startswith("chown ")


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_key_directory_open_to_others_fails_before_the_key_exists(tmp_path: Path):
    directory = tmp_path / "keys"
    directory.mkdir()
    directory.chmod(0o755)
    check = check_cursor_key({}, directory)
    assert check.status == "fail"
    assert f"chmod 700 {directory}" in check.summary
    assert "delete" not in (check.fix or "")  # there is no key file to delete


def test_missing_key_and_environment_key_are_fine(tmp_path: Path):
    missing = check_cursor_key({}, tmp_path / "nothing-yet")
    assert missing.status == "ok" and "first use" in missing.summary
    env = check_cursor_key({"PWC_MCP_CURSOR_KEY_CURRENT": SECRET}, tmp_path / "nothing")
    assert env.status == "ok" and "PWC_MCP_CURSOR_KEY_CURRENT" in env.summary
    no_secret(env)


# -- self-test -----------------------------------------------------------------------------


@pytest.mark.e2e
def test_self_test_of_something_that_is_not_an_mcp_server():
    command = (sys.executable, ["-c", "import sys; sys.stderr.write('boom: no server here\\n')"])
    check = anyio.run(check_self_test, command, {})
    assert check.status == "fail"
    assert "boom: no server here" in check.summary
    assert "by hand" in (check.fix or "")


@pytest.mark.e2e
def test_self_test_counts_one_tool_in_the_singular(tmp_path: Path):
    installed = Path(sys.executable).parent / "pwc-mcp-local"
    environ = {
        "PWC_MCP_LOCAL_TOOLS": "read_paper",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    check = anyio.run(check_self_test, (str(installed), []), environ)
    assert check.status == "ok", check.summary
    assert check.summary.startswith("handshake and 1 tool in ")


@pytest.mark.e2e
def test_self_test_of_a_server_that_never_answers():
    command = (sys.executable, ["-c", "import sys; sys.stdin.read()"])

    async def run() -> Check:
        return await check_self_test(command, {}, timeout=1)

    check = anyio.run(run)
    assert check.status == "fail"
    assert "within 1 s" in check.summary


# -- client entries ------------------------------------------------------------------------


def desktop_config(home: Path) -> Path:
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def write_json(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def test_entry_pointing_at_a_missing_executable(tmp_path: Path):
    host = Host("linux", {}, tmp_path)
    write_json(
        desktop_config(tmp_path),
        {"mcpServers": {"pwc-local": {"command": str(tmp_path / "gone" / "pwc-mcp-local")}}},
    )
    write_json(
        tmp_path / ".cursor" / "mcp.json",
        {"mcpServers": {"papers": {"command": "/old/venv/bin/pwc-mcp-local", "args": []}}},
    )
    checks = {check.name: check for check in check_clients(host)}
    assert checks["claude-desktop"].status == "fail"
    assert "does not exist" in checks["claude-desktop"].summary
    assert (checks["claude-desktop"].fix or "").endswith(
        "pwc-mcp-local install claude-desktop --force"
    )
    assert checks["cursor"].status == "fail"
    assert (checks["cursor"].fix or "").endswith(
        "pwc-mcp-local install cursor --name papers --force"
    )


@pytest.mark.e2e  # doctor starts the entry's command, as the client would
def test_entries_that_run_an_existing_executable(tmp_path: Path):
    # The entry is started for real: its server gets this sandbox as its home.
    sandbox = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "XDG_CACHE_HOME": str(tmp_path / ".cache"),
    }
    host = Host("linux", sandbox, tmp_path)
    write_json(
        desktop_config(tmp_path),
        {
            "mcpServers": {
                "pwc-local": {"command": sys.executable, "args": ["-m", "pwc_local"]},
                "someone-else": {"command": "/nowhere/other-server"},
            }
        },
    )
    checks = {check.name: check for check in check_clients(host)}
    assert checks["claude-desktop"].status == "ok", checks["claude-desktop"].summary
    assert "someone-else" not in checks["claude-desktop"].summary
    assert checks["zed"].status == "skip"


def test_a_client_config_that_does_not_parse(tmp_path: Path):
    host = Host("linux", {}, tmp_path)
    codex = tmp_path / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('[mcp_servers.pwc-local\ncommand = "x"\n')
    checks = {check.name: check for check in check_clients(host)}
    assert checks["codex"].status == "fail"
    assert f"{codex}:1:" in checks["codex"].summary
    assert "by hand" in (checks["codex"].fix or "")


def test_no_message_advises_installing_a_package_not_on_pypi_yet() -> None:
    # pwc-mcp-local is installed from a checkout or a wheel (README, "Install"): a fix
    # that says `pipx install pwc-mcp-local` fails (or finds it installed already).
    package = Path(__file__).resolve().parent.parent / "pwc_local"
    said = [
        f"{path.name}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"pipx install (--force )?'?pwc-mcp-local", line)
    ]
    assert said == []
