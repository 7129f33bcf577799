"""Each failure `doctor` must name precisely, through the installed command where a
person would meet it: a client entry whose environment the server refuses, a script
whose interpreter is gone, a file that is no program, a catalog behind a certificate
nobody trusts (a loopback TLS fake with a fresh self-signed certificate), a catalog
slower than the configured timeout, and one invalid setting beside a valid URL. (A
healthy entry, started and listing every tool, is in tests/test_doctor.py.)

The TLS case is also followed into the server: the same cause must be in the tool
error sentence and in the stderr log at warning level."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from pwc_local import doctor
from pwc_local.cli import main
from pwc_local.config import Settings
from pwc_local.doctor import Check, check_catalog
from pwc_local.upstream.causes import classify, proxy_for, redact
from tests.fake_catalog import FakeCatalog
from tests.installed import InstalledServer
from tests.tls_cert import self_signed_context

INSTALLED = Path(sys.executable).parent / "pwc-mcp-local"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in list(os.environ):
        if name.startswith("PWC_") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    return home


@pytest.fixture
def no_self_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Doctor's self-test (one server spawn) reported as skipped, for tests about a client
    entry or the catalog that assert nothing about it; the self-test itself is checked by
    `test_entry_env_the_server_refuses_is_reported_with_its_line` here and in
    tests/test_doctor.py."""

    async def not_run(*args: object, **kwargs: object) -> Check:
        return Check("self-test", "skip", "not run by this test")

    monkeypatch.setattr(doctor, "check_self_test", not_run)


@pytest.fixture
def tls_catalog(tmp_path: Path) -> Iterator[FakeCatalog]:
    fake = FakeCatalog(tls=self_signed_context(tmp_path)).start()
    try:
        yield fake
    finally:
        fake.stop()


def desktop_config(home: Path) -> Path:
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def write_entry(home: Path, entry: dict[str, Any]) -> None:
    path = desktop_config(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"pwc-local": entry}}))


def doctor_json(*args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    result = CliRunner().invoke(main, ["doctor", "--json", *args])
    report = json.loads(result.output)
    return result.exit_code, {check["name"]: check for check in report["checks"]}


# -- client entries, started exactly as the client would ----------------------------------


@pytest.mark.e2e
def test_entry_env_the_server_refuses_is_reported_with_its_line(home: Path):
    write_entry(home, {"command": str(INSTALLED), "args": [], "env": {"PWC_API_URL": "x/bad"}})
    status, checks = doctor_json("--offline")
    assert status == 1
    desktop = checks["claude-desktop"]
    assert desktop["status"] == "fail"
    # The server's own line, not a guess: it names the setting and where it came from.
    assert (
        "configuration error: invalid api_url from environment PWC_API_URL" in (desktop["summary"])
    )
    assert desktop["details"]["entries"]["pwc-local"]["started"] is False
    # The shell's own settings are fine, so the self-test passes: only the entry is bad.
    assert checks["self-test"]["status"] == "ok"


@pytest.mark.e2e
@pytest.mark.skipif(os.name != "posix", reason="POSIX scripts")
def test_script_whose_interpreter_is_gone(home: Path, tmp_path: Path, no_self_test: None):
    script = tmp_path / "old-venv" / "bin" / "pwc-mcp-local"
    script.parent.mkdir(parents=True)
    script.write_text("#!/nonexistent/python3.9\nimport sys\n")
    script.chmod(0o755)
    write_entry(home, {"command": str(script), "args": []})
    _status, checks = doctor_json("--offline")
    desktop = checks["claude-desktop"]
    assert desktop["status"] == "fail"
    assert "interpreter /nonexistent/python3.9" in desktop["summary"]
    assert "does not exist" in desktop["summary"]
    assert "install claude-desktop --force" in desktop["fix"]


@pytest.mark.e2e
@pytest.mark.skipif(os.name != "posix", reason="POSIX exec")
def test_file_that_is_not_a_program(home: Path, tmp_path: Path, no_self_test: None):
    blob = tmp_path / "pwc-mcp-local"
    blob.write_bytes(b"\x7fELF\x02\x01\x01garbage-not-for-this-machine")
    blob.chmod(0o755)
    write_entry(home, {"command": str(blob), "args": []})
    _status, checks = doctor_json("--offline")
    assert "exec format error" in checks["claude-desktop"]["summary"]


@pytest.mark.e2e
def test_bare_command_name_is_looked_up_on_the_desktop_path(home: Path, no_self_test: None):
    # A desktop app does not see the shell's PATH (where a venv's bin may be).
    write_entry(home, {"command": "pwc-mcp-local-not-installed-anywhere", "args": []})
    _status, checks = doctor_json("--offline")
    assert checks["claude-desktop"]["status"] == "fail"
    assert "does not exist" in checks["claude-desktop"]["summary"]


# -- the catalog ---------------------------------------------------------------------------


def test_tls_failure_names_the_certificate_problem(tls_catalog: FakeCatalog):
    check = anyio.run(check_catalog, Settings(api_url=tls_catalog.api_url, timeout=10), {})
    assert check.status == "fail"
    assert check.details["cause"] == "tls"
    assert tls_catalog.api_url in check.summary
    assert "TLS certificate verification failed" in check.summary
    assert "self" in check.summary and "signed" in check.summary  # OpenSSL's own words
    assert "trust store" in (check.fix or "")


@pytest.mark.e2e
def test_configured_timeout_is_the_one_honoured(
    home: Path, monkeypatch: pytest.MonkeyPatch, no_self_test: None
):
    fake = FakeCatalog().start()
    try:
        fake.faults.slow(prefix="tasks/")  # held until released: only a timeout ends it
        monkeypatch.setenv("PWC_API_URL", fake.api_url)
        monkeypatch.setenv("PWC_MCP_LOCAL_TIMEOUT", "1")
        _status, checks = doctor_json()
    finally:
        fake.stop()
    catalog = checks["catalog"]
    assert catalog["status"] == "fail"
    assert catalog["details"]["cause"] == "timeout"
    assert f"{fake.api_url} did not answer within 1 s" in catalog["summary"]
    assert "PWC_MCP_LOCAL_TIMEOUT (now 1 s, set in the environment" in catalog["fix"]


@pytest.mark.e2e
def test_one_invalid_setting_still_probes_the_url_the_user_set(
    home: Path, monkeypatch: pytest.MonkeyPatch, fake_catalog: FakeCatalog
):
    monkeypatch.setenv("PWC_API_URL", fake_catalog.api_url)
    monkeypatch.setenv("PWC_MCP_LOCAL_CACHE_SIZE", "lots")
    _status, checks = doctor_json()
    assert checks["configuration"]["status"] == "fail"
    assert "PWC_MCP_LOCAL_CACHE_SIZE" in checks["configuration"]["summary"]
    assert checks["catalog"]["status"] == "ok"
    assert checks["catalog"]["details"]["api_url"] == fake_catalog.api_url
    assert [r.path for r in fake_catalog.requests] == ["tasks/"]


def test_the_proxy_in_use_is_named_without_its_password():
    env = {"HTTPS_PROXY": "http://me:secret@proxy.example:3128", "NO_PROXY": "localhost"}
    assert proxy_for("https://paperswithcode.co/api/v1", env) == "http://proxy.example:3128"
    assert proxy_for("https://localhost/api/v1", env) is None
    assert proxy_for("http://paperswithcode.co/api/v1", env) is None  # no HTTP_PROXY
    assert redact("proxy.example:8080") == "http://proxy.example:8080"


def test_causes_are_found_below_the_httpx_error():
    import socket

    import httpx

    def chained(inner: BaseException) -> BaseException:
        try:
            try:
                raise inner
            except BaseException as exc:
                raise httpx.ConnectError("boom") from exc
        except httpx.ConnectError as outer:
            return outer

    dns = classify(chained(socket.gaierror(-2, "Name or service not known")))
    assert (dns.kind, dns.text) == (
        "dns",
        "the host name does not resolve (DNS: Name or service not known)",
    )
    assert classify(chained(ConnectionRefusedError(111, "refused"))).kind == "refused"
    assert classify(httpx.ReadTimeout("slow")).text == "no answer in time (waiting for the answer)"
    assert classify(httpx.ProxyError("407 Proxy Authentication Required")).kind == "proxy"


# -- doctor prints as it goes --------------------------------------------------------------


@pytest.mark.e2e
def test_lines_appear_before_the_slow_checks_finish(home: Path, tmp_path: Path):
    fake = FakeCatalog().start()
    fake.faults.slow(prefix="tasks/")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PWC_")}
    env.update(PWC_API_URL=fake.api_url, PWC_MCP_LOCAL_TIMEOUT="60")
    process = subprocess.Popen(
        [str(INSTALLED), "doctor"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        seen = [process.stdout.readline() for _ in range(2)]
        # The header and the configuration line are out while the catalog request is
        # still held by the fake: the output is not waiting for every check.
        assert seen[0].startswith("pwc-mcp-local ")
        assert "configuration" in seen[1]
        assert fake.faults.wait_until_blocked(1, timeout=60)
        assert process.poll() is None
    finally:
        # Proven: nothing is gained by letting doctor go on to its self-test and clients.
        process.kill()
        process.communicate(timeout=120)
        fake.stop()


# -- the same cause in the server's tool error and log ------------------------------------


@pytest.mark.e2e
def test_server_names_the_tls_cause_in_the_error_and_the_log(
    home: Path, tls_catalog: FakeCatalog, installed_server: InstalledServer
):
    installed_server.api_url = tls_catalog.api_url  # after `home`: no proxy variables

    async def scenario() -> str:
        async with installed_server.session() as session:
            result = await session.call_tool("get_paper_info", {"paper": "1706.03762"})
            assert result.is_error
            return result.content[0].text  # type: ignore[union-attr]

    text = anyio.run(scenario)
    assert "upstream_error: " in text
    assert "TLS certificate verification failed" in text
    log = installed_server.log.read_text()
    warnings = [line for line in log.splitlines() if "TLS certificate verification" in line]
    assert warnings and all("WARNING" in line.upper() for line in warnings)
    assert "1706.03762" not in log  # the reference is never logged


@pytest.mark.e2e
def test_bare_name_works_for_a_terminal_client_but_not_a_desktop_app(
    home: Path, monkeypatch: pytest.MonkeyPatch, no_self_test: None
):
    import shutil

    from pwc_local.doctor import DESKTOP_PATH

    monkeypatch.setenv("PATH", f"{INSTALLED.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    by_name = {"command": "pwc-mcp-local", "args": []}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"pwc-local": by_name}}))
    write_entry(home, by_name)
    _status, checks = doctor_json("--offline")
    # Claude Code runs in the shell and sees its PATH; Claude Desktop does not.
    assert checks["claude-code"]["status"] == "ok", checks["claude-code"]
    if shutil.which("pwc-mcp-local", path=DESKTOP_PATH) is None:
        assert checks["claude-desktop"]["status"] == "fail"
