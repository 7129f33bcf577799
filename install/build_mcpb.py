"""Build the Claude Desktop bundle: `python install/build_mcpb.py [--out DIR]`.

Writes `DIR/pwc-mcp-local-VERSION.mcpb` (default `dist/`), an MCP Bundle (a zip file
with `manifest.json` at its root, manifest format 0.4) of server type `uv`: the host
application provides uv, which reads the bundle's own `pyproject.toml`, installs the
dependencies listed there into a private environment and runs the entry point. So
the bundle carries only our source, no compiled packages, and works on macOS,
Windows and Linux without a Python installed by the user.

Layout inside the bundle:

    manifest.json         name, version, server (uv), user_config, tools
    pyproject.toml        our dependencies, `[tool.uv] package = false` (nothing to build)
    server/main.py        entry point: runs `pwc_local.cli:main` (serve on stdio)
    server/pwc_local/...  the package source, exactly as in the wheel
    README.md

Settings a person can change in Claude Desktop's extension settings (`user_config`)
reach the server as the environment variables it already reads: the catalog URL
(`PWC_API_URL`) and the cache size (`PWC_MCP_LOCAL_CACHE_SIZE`). The tool list in the
manifest is read from the server's own contract table (see `contract_tools`).

Only the standard library is needed (Python 3.11+, or 3.10 with `tomli`): the build
runs from a plain checkout, before any dependency is installed.

To validate the result with the official tool, unpack it first: `mcpb validate` takes
the manifest file, not the bundle (`.ci/run` does this):

    python -m zipfile -e dist/pwc-mcp-local-VERSION.mcpb /tmp/bundle
    npx @anthropic-ai/mcpb validate /tmp/bundle/manifest.json

The tests unpack the bundle and start it as the manifest says.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_VERSION = "0.4"
ENTRY_POINT = "server/main.py"
# A fixed timestamp keeps two builds of the same tree byte-identical.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)

MAIN_PY = '''"""Entry point of the pwc-mcp-local MCP Bundle: serve MCP on stdio.

The host runs this file with uv (see manifest.json); this directory, which holds the
pwc_local package, is on sys.path because it is the script's own directory.
"""

import sys

from pwc_local.cli import main

if __name__ == "__main__":
    sys.exit(main())
'''


def project_metadata() -> dict[str, Any]:
    """`[project]` of the checkout's pyproject.toml."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise SystemExit(
                "install/build_mcpb.py reads pyproject.toml: it needs Python 3.11 or newer, "
                "or tomli on Python 3.10 (python -m pip install tomli)"
            ) from None
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def bundle_pyproject(project: dict[str, Any]) -> str:
    """The bundle's own pyproject: its dependencies for uv, and no package to build."""
    lines = [
        "# Read by uv when the host starts the bundle: it installs these dependencies",
        "# into a private environment. The server's source is in server/, so there is",
        "# no package to build or install (package = false).",
        "[project]",
        f"name = {json.dumps(project['name'] + '-bundle')}",
        f"version = {json.dumps(project['version'])}",
        f"requires-python = {json.dumps(project['requires-python'])}",
        "dependencies = [",
        *(f"    {json.dumps(dependency)}," for dependency in project["dependencies"]),
        "]",
        "",
        "[tool.uv]",
        "package = false",
        "",
    ]
    return "\n".join(lines)


def manifest(project: dict[str, Any], tools: list[dict[str, str]]) -> dict[str, Any]:
    from pwc_local.config import DEFAULT_API_URL, ENV_NAMES

    return {
        "manifest_version": MANIFEST_VERSION,
        "name": project["name"],
        "display_name": "Papers With Code (local)",
        "version": project["version"],
        "description": project["description"],
        "long_description": (
            "Search papers, inspect tasks, methods and leaderboards, and read a paper's "
            "full Markdown in chunks, from the Papers With Code research catalog. Runs on "
            "your machine with a disk cache that keeps answers available offline."
        ),
        "author": {"name": project["authors"][0]["name"]},
        "license": project["license"],
        "keywords": project.get("keywords", []),
        "server": {
            "type": "uv",
            "entry_point": ENTRY_POINT,
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", ENTRY_POINT],
                "env": {
                    ENV_NAMES["api_url"]: "${user_config.api_url}",
                    ENV_NAMES["cache_size"]: "${user_config.cache_size}",
                },
            },
        },
        "user_config": {
            "api_url": {
                "type": "string",
                "title": "Catalog API URL",
                "description": "Base URL of the Papers With Code catalog API, ending in /api/v1.",
                "default": DEFAULT_API_URL,
                "required": False,
            },
            "cache_size": {
                "type": "string",
                "title": "Cache size",
                "description": "Largest size of the local disk cache, such as 1GiB or 500MB.",
                "default": "1GiB",
                "required": False,
            },
        },
        "tools": tools,
        "prompts_generated": True,
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": project["requires-python"]},
        },
    }


def contract_tools() -> list[dict[str, str]]:
    """Name and first sentence of each tool, in the order the server lists them, from
    the contract table (`pwc_local.contract.TOOLS`), which needs only the standard
    library. (tests/test_bundle.py checks the result against what the bundled server
    lists.)
    """
    from pwc_local.contract import TOOLS

    return [{"name": tool.name, "description": _first_sentence(tool.description)} for tool in TOOLS]


def _first_sentence(text: str | None) -> str:
    text = " ".join((text or "").split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def build(out: Path) -> Path:
    """Write the bundle into `out` and return its path."""
    sys.path.insert(0, str(ROOT))
    project = project_metadata()
    files: dict[str, bytes] = {
        "manifest.json": (
            json.dumps(manifest(project, contract_tools()), indent=2, ensure_ascii=False) + "\n"
        ).encode("utf-8"),
        "pyproject.toml": bundle_pyproject(project).encode("utf-8"),
        ENTRY_POINT: MAIN_PY.encode("utf-8"),
        "README.md": (ROOT / "README.md").read_bytes(),
    }
    package = ROOT / "pwc_local"
    for source in sorted(package.rglob("*")):
        if source.is_file() and "__pycache__" not in source.parts and source.suffix != ".pyc":
            files[f"server/{source.relative_to(ROOT).as_posix()}"] = source.read_bytes()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{project['name']}-{project['version']}.mcpb"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    target.write_bytes(buffer.getvalue())
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python install/build_mcpb.py", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output directory")
    args = parser.parse_args(argv)
    target = build(args.out)
    print(target)  # alone on stdout, for scripts: bundle=$(python install/build_mcpb.py)
    print(
        "To validate it, unpack it: mcpb validate takes the manifest, not the bundle:\n"
        f"  python -m zipfile -e {target} DIR && npx @anthropic-ai/mcpb validate DIR/manifest.json",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
