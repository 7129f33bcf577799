"""Settings precedence, validation and the command line's refusal of bad values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pwc_local import contract
from pwc_local.config import (
    DEFAULT_API_URL,
    MAX_READ_CHUNK,
    ConfigError,
    Settings,
    load_settings,
    parse_size,
    pwc_config_dir,
)

CLI = str(Path(sys.executable).parent / "pwc-mcp-local")


def write_config(tmp_path: Path, text: str) -> Path:
    directory = tmp_path / "xdg" / "pwc"
    directory.mkdir(parents=True)
    path = directory / "mcp-local.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_any_source(tmp_path: Path) -> None:
    settings = load_settings({}, {"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.api_url == DEFAULT_API_URL
    assert settings.timeout == 25.0
    assert settings.log_level == "warning"
    assert settings.cache_size == 1024**3
    assert settings.cursor_ttl == 24 * 3600
    assert settings.config_file is None
    assert set(settings.sources.values()) == {"default"}


def test_settings_are_read_only_values() -> None:
    # A plain class (start-up: no `dataclasses`), with a frozen dataclass's behaviour.
    one = Settings(timeout=5.0, sources={"timeout": "command line"})
    same = Settings(timeout=5.0)
    assert one == same and hash(one) == hash(same)  # whatever the sources say
    assert one != Settings(timeout=6.0) and one != "Settings"
    assert {one, same} == {one}
    with pytest.raises(AttributeError, match="read-only"):
        one.timeout = 9.0
    assert "timeout=5.0" in repr(one) and "sources" not in repr(one)
    assert Settings(tools="hosted").chunk_bytes == MAX_READ_CHUNK == contract.CHUNK_BYTES


def test_precedence_flags_env_file_default(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        'api_url = "http://file.test/api/v1"\ntimeout = 7\nlog_level = "info"\ncursor_ttl = 3600\n',
    )
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PWC_API_URL": "http://env.test/api/v1/",
        "PWC_MCP_LOCAL_TIMEOUT": "9.5",
    }
    settings = load_settings({"api_url": "http://flag.test/api/v1", "log_level": None}, env)
    assert settings.api_url == "http://flag.test/api/v1"
    assert settings.timeout == 9.5
    assert settings.log_level == "info"
    assert settings.cursor_ttl == 3600
    assert settings.sources["api_url"] == "command line"
    assert settings.sources["timeout"] == "environment PWC_MCP_LOCAL_TIMEOUT"
    assert settings.sources["log_level"].startswith("config file ")
    assert settings.sources["cache_size"] == "default"

    without_flag = load_settings({}, env)
    assert without_flag.api_url == "http://env.test/api/v1"  # trailing slash stripped


def test_config_dir_follows_xdg_config_home(tmp_path: Path) -> None:
    assert pwc_config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "pwc"


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"PWC_API_URL": "ftp://example.org"}, "http:// or https://"),
        ({"PWC_API_URL": "not a url"}, "http:// or https://"),
        ({"PWC_API_URL": "http://"}, "no host"),
        ({"PWC_MCP_LOCAL_TIMEOUT": "-1"}, "above 0"),
        ({"PWC_MCP_LOCAL_TIMEOUT": "nan"}, "above 0"),
        ({"PWC_MCP_LOCAL_TIMEOUT": "1e308"}, "at most 600"),
        ({"PWC_MCP_LOCAL_LOG_LEVEL": "loud"}, "is not one of"),
        ({"PWC_MCP_LOCAL_CACHE_SIZE": "12 parsecs"}, "is not a size"),
        ({"PWC_MCP_LOCAL_CURSOR_TTL": "5"}, "between 60"),
    ],
)
def test_bad_values_name_the_setting_and_source(
    tmp_path: Path, env: dict[str, str], fragment: str
) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), **env}
    with pytest.raises(ConfigError) as caught:
        load_settings({}, env)
    message = str(caught.value)
    assert fragment in message
    assert "environment" in message


def test_bad_config_files(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    path = write_config(tmp_path, "timeout = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({}, env)
    path.write_text("tiemout = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown setting 'tiemout'; did you mean timeout\?"):
        load_settings({}, env)
    path.write_text("timeout = -4\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="config file"):
        load_settings({}, env)
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings({}, env, config_file=tmp_path / "missing.toml")


def test_sizes() -> None:
    assert parse_size("1GiB") == 1024**3
    assert parse_size("500MB") == 500 * 1000**2
    assert parse_size(2 * 1024**2) == 2 * 1024**2
    with pytest.raises(ConfigError):
        parse_size("10k")  # below the 1 MiB floor
    with pytest.raises(ConfigError):
        parse_size(True)
    assert parse_size(str(2**63 - 1)) == 2**63 - 1  # exact, however many digits


@pytest.mark.parametrize("raw", ["9" * 400, "100000000TB", str(2**63), 2**63])
def test_sizes_beyond_what_the_cache_can_hold_are_refused(raw: object) -> None:
    # Too large for diskcache's SQLite INTEGER: every tool call used to fail on it (or,
    # past float range, start-up crashed with a traceback).
    with pytest.raises(ConfigError, match="largest size"):
        parse_size(raw)


def run_cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    # Not `installed_server.command`: start-up with a bare environment (PATH, HOME, `env`).
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env}
    return subprocess.run(
        [CLI, *args], env=environment, capture_output=True, stdin=subprocess.DEVNULL, timeout=30
    )


@pytest.mark.e2e
def test_cli_refuses_bad_url_with_exit_2_and_silent_stdout(tmp_path: Path) -> None:
    result = run_cli(tmp_path, PWC_API_URL="ftp://example.org")
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1
    assert "PWC_API_URL" in lines[0] and "http://" in lines[0]


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda tmp: tmp / "nope.toml", "does not exist"),
        (lambda tmp: tmp, "is not a file"),  # a directory is no settings file
    ],
)
def test_cli_refuses_unreadable_config_file(tmp_path: Path, make: Any, fragment: str) -> None:
    for args, env in (
        (("serve", "--config", str(make(tmp_path))), {}),
        ((), {"PWC_MCP_LOCAL_CONFIG": str(make(tmp_path))}),
    ):
        result = run_cli(tmp_path, *args, **env)
        assert result.returncode == 2
        assert result.stdout == b""
        lines = result.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0]


@pytest.mark.e2e
def test_cli_version_and_help(tmp_path: Path) -> None:
    from pwc_local import __version__

    version = run_cli(tmp_path, "--version")
    assert version.returncode == 0
    assert __version__ in version.stdout.decode()
    usage = run_cli(tmp_path, "--help")
    assert usage.returncode == 0
    assert "serve" in usage.stdout.decode()


@pytest.mark.e2e
def test_python_dash_m_is_the_same_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pwc_local", "--version"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert result.returncode == 0
    assert result.stdout.decode().startswith("pwc-mcp-local, version ")


@pytest.mark.e2e
def test_cli_refuses_a_log_file_it_cannot_open(tmp_path: Path) -> None:
    result = run_cli(tmp_path, PWC_MCP_LOCAL_LOG_FILE=str(tmp_path))  # a directory
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot open log file" in lines[0]


@pytest.mark.e2e
def test_cli_creates_the_log_file_directory(tmp_path: Path) -> None:
    target = tmp_path / "new-dir" / "server.log"
    result = run_cli(tmp_path, PWC_MCP_LOCAL_LOG_FILE=str(target))
    assert result.returncode == 0  # stdin is empty, so the session simply ends
    assert result.stdout == b""
    assert target.exists()
