"""The Claude Desktop bundle (`install/build_mcpb.py`) and the MCP registry's `server.json`.

The bundle is built, unpacked and started the way its manifest says: the manifest's
own command (`uv run --directory ${__dirname} server/main.py`) with `${...}`
substituted as the host does, and the environment its `user_config` produces. The
host's uv would install the dependencies from the bundle's pyproject.toml over the
network; the tests may not use the network, so uv is told (UV_OFFLINE, UV_NO_SYNC,
UV_PROJECT_ENVIRONMENT) to run in this test environment, which has those
dependencies already. Where the `uv` command is missing, the entry point is run with
this interpreter instead (`path` below names which way it ran in a failure).
The manifest's schema is checked by the official `mcpb validate` in `.ci/run`; the
build itself needs only the standard library (checked with `python -I -S`).

`server.json` is checked structurally against the rules of the registry's published
schema (2025-09-29: name pattern, description length, exact package versions,
stdio transport); the schema text itself is not vendored into this repository.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from pwc_local import __version__
from pwc_local.config import ENV_NAMES, parse_api_url, parse_size
from tests.fake_catalog import FakeCatalog

ROOT = Path(__file__).resolve().parent.parent
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def run_build(out: Path, *interpreter_options: str) -> subprocess.CompletedProcess[str]:
    """`python [OPTIONS] install/build_mcpb.py --out OUT`, as a person runs it."""
    script = str(ROOT / "install" / "build_mcpb.py")
    return subprocess.run(
        [sys.executable, *interpreter_options, script, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = run_build(out)
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path == out / f"pwc-mcp-local-{__version__}.mcpb"
    return path


@pytest.fixture(scope="module")
def unpacked(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bundle")
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(directory)
    return directory


def manifest_of(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.e2e
def test_manifest_describes_a_uv_server_with_user_settings(unpacked: Path):
    manifest = manifest_of(unpacked)
    assert manifest["manifest_version"] == "0.4"
    assert (manifest["name"], manifest["version"]) == ("pwc-mcp-local", __version__)
    server = manifest["server"]
    assert server["type"] == "uv"
    assert (unpacked / server["entry_point"]).is_file()
    assert (unpacked / "server" / "pwc_local" / "cli.py").is_file()
    config = manifest["user_config"]
    # The defaults are values the server itself accepts.
    assert parse_api_url(config["api_url"]["default"])
    assert parse_size(config["cache_size"]["default"]) == 1024**3
    assert server["mcp_config"]["env"] == {
        ENV_NAMES["api_url"]: "${user_config.api_url}",
        ENV_NAMES["cache_size"]: "${user_config.cache_size}",
    }
    # At least the hosted server's tools (the bundle test below compares the manifest
    # with what the bundled server itself lists).
    hosted = json.loads((ROOT / "tests" / "data" / "tools.json").read_text())["tools"]
    listed = {tool["name"] for tool in manifest["tools"]}
    assert set(hosted) <= listed
    assert all(tool["description"] for tool in manifest["tools"])


@pytest.mark.e2e
def test_bundle_pyproject_lists_the_project_dependencies(unpacked: Path):
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bundled = tomllib.loads((unpacked / "pyproject.toml").read_text())
    assert bundled["project"]["dependencies"] == ours["dependencies"]
    assert bundled["project"]["requires-python"] == ours["requires-python"]
    assert bundled["tool"]["uv"]["package"] is False


def substituted(value: str, directory: Path, user_config: dict[str, str]) -> str:
    """What the host does to `${__dirname}` and `${user_config.NAME}` in mcp_config."""
    value = value.replace("${__dirname}", str(directory))
    return re.sub(r"\$\{user_config\.(\w+)\}", lambda m: user_config[m.group(1)], value)


@pytest.mark.e2e
def test_bundle_starts_as_its_manifest_says(unpacked: Path, tmp_path: Path):
    manifest = manifest_of(unpacked)
    mcp_config = manifest["server"]["mcp_config"]
    fake = FakeCatalog().start()
    try:
        user_config = {"api_url": fake.api_url, "cache_size": "64MiB"}
        args = [substituted(arg, unpacked, user_config) for arg in mcp_config["args"]]
        env = {k: substituted(v, unpacked, user_config) for k, v in mcp_config["env"].items()}
        env.update(
            HOME=str(tmp_path),
            XDG_CONFIG_HOME=str(tmp_path / "config"),
            XDG_CACHE_HOME=str(tmp_path / "cache"),
        )
        if UV is not None and mcp_config["command"] == "uv":
            path = "uv"  # the manifest's own command and arguments
            command = UV
            env.update(
                UV_OFFLINE="1",
                UV_NO_SYNC="1",
                UV_PROJECT_ENVIRONMENT=sys.prefix,
                UV_CACHE_DIR=str(tmp_path / "uv-cache"),
                UV_PYTHON=sys.executable,
            )
        else:
            path = "python"  # no uv here: the same entry point with this interpreter
            command, args = sys.executable, [str(unpacked / manifest["server"]["entry_point"])]
        # Not `installed_server`: the command is the bundle's, as its manifest gives it.
        params = StdioServerParameters(command=command, args=args, env=env)

        async def scenario() -> tuple[int, dict[str, Any]]:
            with anyio.fail_after(60), (tmp_path / "stderr.log").open("w") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    tools = (await client.list_tools()).tools
                    result = await client.call_tool("get_paper_info", {"paper": "1706.03762"})
                    assert not result.is_error, result.content
                    listed = [(tool.name, tool.description or "") for tool in tools]
                    return listed, result.structured_content or {}

        listed, structured = anyio.run(scenario)
    finally:
        fake.stop()
    # The manifest's list (read from the contract table, pwc_local/contract.py) is what the server
    # lists: the same tools in the same order, each with its description's first sentence.
    assert [name for name, _ in listed] == [tool["name"] for tool in manifest["tools"]], path
    for (name, description), tool in zip(listed, manifest["tools"], strict=True):
        assert description.startswith(tool["description"]), name
    assert "Attention" in json.dumps(structured)
    # The catalog URL came from user_config, through the manifest's env mapping.
    assert fake.requests and all(r.path.startswith("papers/") for r in fake.requests), path


# -- server.json ---------------------------------------------------------------------------


def test_server_json_follows_the_registry_rules():
    document = json.loads((ROOT / "server.json").read_text())
    assert document["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", document["name"])
    assert 1 <= len(document["description"]) <= 100
    assert document["version"] == __version__
    (package,) = document["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == "pwc-mcp-local"
    assert package["version"] == __version__  # an exact version, never a range
    assert package["transport"] == {"type": "stdio"}
    for variable in package["environmentVariables"]:
        assert variable["name"] in ENV_NAMES.values()
        assert set(variable) <= {"name", "description", "default", "isRequired", "format"}


def test_readme_carries_the_registry_ownership_marker():
    name = json.loads((ROOT / "server.json").read_text())["name"]
    assert f"<!-- mcp-name: {name} -->" in (ROOT / "README.md").read_text()


@pytest.mark.e2e
def test_bundle_builds_from_a_plain_checkout_with_the_standard_library_only(
    bundle: Path, tmp_path: Path
):
    # -I -S: no site-packages (so none of the project's dependencies), no user site,
    # no PYTHON* variables, no script directory on sys.path: a fresh checkout.
    result = run_build(tmp_path, "-I", "-S")
    assert result.returncode == 0, result.stderr
    built = Path(result.stdout.strip())
    assert built.read_bytes() == bundle.read_bytes()
    # The way to validate it is said where the builder looks.
    assert "mcpb validate" in result.stderr and "manifest.json" in result.stderr


@pytest.mark.e2e  # the bundle fixture runs the build command
def test_bundle_build_is_reproducible(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The fixture ran the command; this second build calls the same `build()` in this
    # process (one process start fewer), and must give the same bytes.
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_mcpb", ROOT / "install" / "build_mcpb.py")
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    monkeypatch.setattr(sys, "path", list(sys.path))  # build() puts the checkout first
    again = builder.build(tmp_path)
    assert again == tmp_path / bundle.name
    assert again.read_bytes() == bundle.read_bytes()
