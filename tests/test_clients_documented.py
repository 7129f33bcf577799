"""The clients added in issue 30, checked against the format each one documents.

Gemini CLI, opencode, Codex and Copilot CLI are also listed by the clients themselves
in `benchmarks/client_listings.py`; Cline, LM Studio and Goose cannot be installed
here, so this file is their proof: `install CLIENT` writes the file, key and entry
shape named in the comment above each target in `clients/targets.py`, keeps the rest
of the file, and `uninstall`, `uninstall --all`, `doctor` and `install print --for`
see the entry.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pwc_local import contract
from pwc_local.cli import main
from pwc_local.clients.entry import entry_args, entry_env, entry_program, is_our_entry
from pwc_local.clients.errors import ConfigSyntaxError
from pwc_local.clients.jsonc import loads as jsonc_loads
from pwc_local.clients.targets import LINUX, MACOS, TARGETS, WINDOWS, Host
from pwc_local.clients.yamlblock import YamlText
from pwc_local.doctor import check_clients

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROGRAM = os.path.abspath(sys.argv[0])  # replaced below by what install writes
ENV = {"PWC_API_URL": "http://127.0.0.1:9/api/v1"}


@dataclass(frozen=True)
class Documented:
    """Where a client's documentation says its servers live, and one entry's shape."""

    path: str  # relative to the home directory, Linux layout
    container: tuple[str, ...]
    entry: Callable[[str], dict[str, Any]]  # the documented entry running PROGRAM with ENV
    existing: str  # a file as the client's documentation shows it, with one other server


def _mcp_servers(extra: dict[str, Any]) -> Callable[[str], dict[str, Any]]:
    return lambda program: {**extra, "command": program, "args": [], "env": ENV}


OTHER_JSON = '{\n  "mcpServers": {\n    "other": {"command": "npx", "args": ["-y", "x"]}\n  }\n}\n'

DOCUMENTED = {
    "gemini": Documented(
        ".gemini/settings.json",
        ("mcpServers",),
        _mcp_servers({}),
        '{\n  // Gemini strips comments\n  "theme": "Default",\n'
        '  "mcpServers": {"other": {"command": "npx", "args": ["-y", "x"]}}\n}\n',
    ),
    "opencode": Documented(
        ".config/opencode/opencode.json",
        ("mcp",),
        lambda program: {
            "type": "local",
            "enabled": True,
            "command": [program],
            "environment": ENV,
        },
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n'
        '    "other": {"type": "local", "command": ["bun", "x", "other"], "enabled": true},\n'
        "  },\n}\n",
    ),
    "cline": Documented(
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        ("mcpServers",),
        _mcp_servers({"disabled": False}),
        OTHER_JSON,
    ),
    "lmstudio": Documented(".lmstudio/mcp.json", ("mcpServers",), _mcp_servers({}), OTHER_JSON),
    "copilot": Documented(
        ".copilot/mcp-config.json",
        ("mcpServers",),
        _mcp_servers({"type": "local", "tools": ["*"]}),
        OTHER_JSON,
    ),
    "goose": Documented(
        ".config/goose/config.yaml",
        ("extensions",),
        lambda program: {
            "enabled": True,
            "type": "stdio",
            "description": "Papers With Code catalog (pwc-mcp-local)",
            "timeout": 300,
            "name": "pwc-local",
            "cmd": program,
            "args": [],
            "envs": ENV,
        },
        # As Goose writes it: block style, a list at its key's column, comments.
        "# goose\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    bundled: true\n"
        "    enabled: true\n    name: developer\n    type: builtin\n  github:\n    args:\n"
        "    - -y\n    - '@modelcontextprotocol/server-github'\n    cmd: npx\n"
        '    enabled: true  # on\n    envs:\n      TOKEN: "a:b"\n    env_keys: []\n'
        "    type: stdio\n\nGOOSE_MODEL: gpt-4o\n",
    ),
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "COPILOT_HOME", "APPDATA", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    return home


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def parse(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".yaml":
        return {"extensions": YamlText(text).get(["extensions"])}
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return jsonc_loads(text, comments=True)


def servers(client: str, path: Path) -> dict[str, Any]:
    value: Any = parse(path)
    for key in DOCUMENTED[client].container:
        value = value[key]
    return value


def installed_program(path: Path, client: str) -> str:
    program = entry_program(servers(client, path)["pwc-local"])
    assert program is not None and os.path.isabs(program)
    return program


every_client = pytest.mark.parametrize("client", list(DOCUMENTED))


def test_every_target_has_a_documented_format_somewhere():
    """The seven older targets are covered by test_install_cli.py; the rest here."""
    older = {"claude-desktop", "claude-code", "vscode", "cursor", "windsurf", "codex", "zed"}
    assert set(TARGETS) == older | set(DOCUMENTED)


@every_client
def test_install_writes_the_documented_file_and_entry(home: Path, client: str):
    result = run("install", client, "--env", f"PWC_API_URL={ENV['PWC_API_URL']}")
    assert result.exit_code == 0, result.output
    path = home / DOCUMENTED[client].path
    assert str(path) in result.output
    program = installed_program(path, client)
    assert servers(client, path)["pwc-local"] == DOCUMENTED[client].entry(program)
    assert os.access(program, os.X_OK)


@every_client
def test_other_servers_stay_and_uninstall_restores_every_byte(home: Path, client: str):
    path = home / DOCUMENTED[client].path
    path.parent.mkdir(parents=True)
    original = DOCUMENTED[client].existing
    path.write_text(original, encoding="utf-8")

    assert run("install", client).exit_code == 0
    found = servers(client, path)
    assert set(found) >= {"other" if client != "goose" else "github", "pwc-local"}
    again = run("install", client)
    assert "Nothing to do" in again.output

    assert run("uninstall", client).exit_code == 0
    assert path.read_text(encoding="utf-8") == original


def test_goose_other_keys_and_entries_are_read_as_goose_wrote_them(home: Path):
    path = home / DOCUMENTED["goose"].path
    path.parent.mkdir(parents=True)
    path.write_text(DOCUMENTED["goose"].existing, encoding="utf-8")
    assert run("install", "goose").exit_code == 0
    github = servers("goose", path)["github"]
    assert github["args"] == ["-y", "@modelcontextprotocol/server-github"]
    assert github["envs"] == {"TOKEN": "a:b"} and github["enabled"] is True
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# goose\nGOOSE_PROVIDER: openai\n")
    assert text.endswith("\nGOOSE_MODEL: gpt-4o\n")


@pytest.mark.parametrize(
    "text",
    [
        "extensions:\n  a: &anchor\n    cmd: x\n",  # an anchor: not read, not edited
        "extensions:\n\ta:\n",  # a tab for indentation
        "extensions:\n  a:\n    description: |\n      two\n      lines\n",
    ],
)
def test_goose_yaml_beyond_what_we_read_is_left_alone(home: Path, text: str):
    path = home / DOCUMENTED["goose"].path
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["install", "goose"])
    assert result.exit_code != 0
    assert "left unchanged" in result.output
    assert path.read_text(encoding="utf-8") == text


def test_yaml_parse_error_names_the_line():
    with pytest.raises(ConfigSyntaxError) as caught:
        YamlText("extensions:\n  a:\n    cmd: x\n   bad: y\n").get(["extensions"])
    assert caught.value.line == 4


def test_entry_readers_understand_every_shape():
    opencode = {"type": "local", "command": ["/x/pwc-mcp-local", "--log-level", "debug"]}
    opencode["environment"] = {"A": "1"}
    goose = {"cmd": "/x/pwc-mcp-local", "args": ["-v"], "envs": {"B": "2"}}
    assert entry_program(opencode) == "/x/pwc-mcp-local"
    assert entry_args(opencode) == ["--log-level", "debug"] and entry_env(opencode) == {"A": "1"}
    assert entry_program(goose) == "/x/pwc-mcp-local"
    assert entry_args(goose) == ["-v"] and entry_env(goose) == {"B": "2"}
    assert is_our_entry("renamed", opencode) and is_our_entry("renamed", goose)
    assert is_our_entry("py", {"command": ["/usr/bin/python3", "-m", "pwc_local"]})
    assert not is_our_entry("other", {"type": "local", "command": ["npx", "other"]})


@pytest.mark.parametrize("client", ["opencode", "goose", "copilot"])
def test_doctor_finds_and_judges_the_new_shapes(home: Path, client: str):
    assert run("install", client).exit_code == 0
    assert run("install", client, "--name", "broken").exit_code == 0
    path = home / DOCUMENTED[client].path
    program = installed_program(path, client)
    path.write_text(path.read_text().replace(program, "/nonexistent/pwc-mcp-local", 1))
    host = Host(LINUX, dict(os.environ), home)
    check = next(c for c in check_clients(host, spawn=False) if c.name == client)
    entries = check.details["entries"]
    assert set(entries) == {"pwc-local", "broken"}
    runnable = {name: info["runnable"] for name, info in entries.items()}
    # The first occurrence of the path is the first entry written: `pwc-local`.
    assert runnable == {"pwc-local": False, "broken": True}
    assert check.status == "fail" and "does not exist" in check.summary


def test_uninstall_all_removes_entries_of_the_new_clients(home: Path):
    for client in DOCUMENTED:
        assert run("install", client).exit_code == 0
    result = run("uninstall", "--all")
    assert result.exit_code == 0, result.output
    for client, documented in DOCUMENTED.items():
        assert servers(client, home / documented.path) in ({}, None), client
    assert ".gemini/settings.json" in result.output and ".github/mcp.json" in result.output


def test_gemini_install_and_doctor_say_how_to_trust_the_folder(home: Path):
    result = run("install", "gemini")
    assert "/permissions trust" in result.output and "Disabled" in result.output
    host = Host(LINUX, dict(os.environ), home)
    check = next(c for c in check_clients(host, spawn=False) if c.name == "gemini")
    assert check.status == "ok"
    assert any("--skip-trust" in note for note in check.notes)
    # `"trust": true`, which the notice says to add by hand, is kept by a later install.
    path = home / ".gemini" / "settings.json"
    path.write_text(path.read_text().replace('"args": []', '"args": [], "trust": true'))
    assert "Nothing to do" in run("install", "gemini").output
    assert run("install", "gemini", "--env", "A=1", "--force").exit_code == 0
    assert servers("gemini", path)["pwc-local"]["trust"] is True


WRITING = [t.name for t in contract.TOOLS if not t.hints.get("read_only_hint", False)]


def test_codex_approve_writes_sets_approval_for_exactly_the_writing_tools(home: Path):
    assert sorted(WRITING) == ["save_papers", "watch", "whats_new"]
    plain = run("install", "codex")
    assert "--approve-writes" in plain.output  # told what Codex will do without it
    path = home / ".codex" / "config.toml"
    assert "tools" not in tomllib.loads(path.read_text())["mcp_servers"]["pwc-local"]

    refused = run("install", "codex", "--approve-writes")
    assert refused.exit_code != 0  # a change to an existing entry needs --force
    assert run("install", "codex", "--approve-writes", "--force").exit_code == 0
    tools = tomllib.loads(path.read_text())["mcp_servers"]["pwc-local"]["tools"]
    assert tools == {name: {"approval_mode": "approve"} for name in WRITING}
    # Installing again without the flag keeps the approvals (they are not ours then).
    assert "Nothing to do" in run("install", "codex").output


def test_approve_writes_and_for_are_refused_where_they_mean_nothing(home: Path):
    assert CliRunner().invoke(main, ["install", "gemini", "--approve-writes"]).exit_code == 2
    assert CliRunner().invoke(main, ["install", "codex", "--for", "gemini"]).exit_code == 2


@pytest.mark.parametrize("client", ["opencode", "goose", "codex"])
def test_install_print_for_a_client_is_what_install_writes(home: Path, client: str):
    printed = run("install", "print", "--for", client).output
    assert run("install", client).exit_code == 0
    written = TARGETS[client].user_path(Host(LINUX, dict(os.environ), home)).read_text()
    assert printed.startswith(written.rstrip("\n") + "\n")


def test_project_files_of_the_new_clients(home: Path, tmp_path: Path):
    project = tmp_path / "repo"
    project.mkdir()
    expected = {
        "gemini": ".gemini/settings.json",
        "opencode": "opencode.json",
        "copilot": ".github/mcp.json",
        "codex": ".codex/config.toml",
    }
    trust = {  # what each client wants before it reads a project's file
        "gemini": "/permissions trust",
        "opencode": None,
        "copilot": "only in a folder you trust",
        "codex": 'trust_level = "trusted"',
    }
    for client, relative in expected.items():
        result = run("install", client, "--project", str(project))
        assert result.exit_code == 0, result.output
        assert "pwc-mcp-local" in (project / relative).read_text()
        said = trust[client]
        assert said is None or said in result.output, client
    user_level = run("install", "codex").output
    assert "trust_level" not in user_level  # the project notice is for --project only
    for client in ("cline", "lmstudio", "goose"):
        refused = CliRunner().invoke(main, ["install", client, "--project", str(project)])
        assert refused.exit_code == 2 and "no project-level" in refused.output


def test_readme_table_names_every_client():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    table = readme[readme.index("| Client | `CLIENT` |") :]
    table = table[: table.index("\n\n")]
    for client in TARGETS:
        assert f"`{client}`" in table, client


def test_user_paths_on_every_system(tmp_path: Path):
    home = tmp_path / "h"
    windows = Host(WINDOWS, {"APPDATA": str(home / "Roaming")}, home)
    assert TARGETS["goose"].user_path(windows) == home / "Roaming/Block/goose/config/config.yaml"
    assert TARGETS["lmstudio"].user_path(windows) == home / ".lmstudio/mcp.json"
    assert TARGETS["cline"].user_path(windows) == home / (
        "Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"
    )
    macos = Host(MACOS, {}, home)
    assert TARGETS["cline"].user_path(macos) == home / (
        "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
        "cline_mcp_settings.json"
    )
    assert TARGETS["gemini"].user_path(macos) == home / ".gemini/settings.json"
    moved = Host(LINUX, {"COPILOT_HOME": "/c", "XDG_CONFIG_HOME": "/x"}, home)
    assert TARGETS["copilot"].user_path(moved) == Path("/c/mcp-config.json")
    assert TARGETS["goose"].user_path(moved) == Path("/x/goose/config.yaml")
    assert TARGETS["opencode"].user_path(moved) == Path("/x/opencode/opencode.json")


def test_opencode_jsonc_is_used_when_it_is_the_file_there(tmp_path: Path):
    host = Host(LINUX, {"XDG_CONFIG_HOME": str(tmp_path)}, tmp_path)
    folder = tmp_path / "opencode"
    folder.mkdir()
    (folder / "opencode.jsonc").write_text("{}\n")
    assert TARGETS["opencode"].user_path(host) == folder / "opencode.jsonc"
    (folder / "opencode.json").write_text("{}\n")  # both: the .json one, as before
    assert TARGETS["opencode"].user_path(host) == folder / "opencode.json"
