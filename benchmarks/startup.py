"""Start-up and context-size figures for pwc-mcp-local.

    python benchmarks/startup.py [--runs 15]

Prints, for the installed `pwc-mcp-local` and for a bare one-tool `MCPServer` run by
the same interpreter (once with the SDK's own stdio transport, once through
`pwc_local.server.stdio`):

* spawn-to-`initialize` and spawn-to-`tools/list` answer times: median and p90 over
  `--runs` runs each, after one untimed warm-up, runs interleaved so that load on the
  machine hits all alike;
* the size in bytes of the `initialize` answer (with its instructions) and of the
  `tools/list`, `resources/templates/list` and `prompts/list` answers, the part of
  a model's context the server costs in every session;
* the peak resident memory of each server over such a session;
* the modules `pwc-mcp-local` imports, in a session that only initializes, that the
  bare server does not (from `python -X importtime`), heaviest first.

It is a script that prints figures, not a test: nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PWC_MCP_LOCAL = str(Path(sys.executable).parent / "pwc-mcp-local")

BARE_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("bare")


@server.tool()
def echo(text: str) -> str:
    \"\"\"Answer with the text given.\"\"\"
    return text


if __name__ == "__main__":
    {run}
"""
RUN_WITH_SDK = 'server.run("stdio")'
RUN_WITH_GUARD = "import sys; from pwc_local.server import stdio; sys.exit(stdio.run(server))"

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "startup-benchmark", "version": "0"},
    },
}


def frame(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def spawn(argv: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(env),
    )


def time_to_answers(argv: Sequence[str], env: Mapping[str, str]) -> tuple[float, float]:
    """Seconds from spawning the server to its `initialize` answer and its `tools/list` answer.

    Both matter: a client gives up when `initialize` is late, and it lists the tools
    right after, so work moved past `initialize` still shows up in the second figure.
    """
    started = time.perf_counter()
    proc = spawn(argv, env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(frame(INITIALIZE))
    proc.stdin.flush()
    answer = proc.stdout.readline()
    initialized = time.perf_counter() - started
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    proc.stdin.flush()
    listing = proc.stdout.readline()
    listed = time.perf_counter() - started
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(60)
    if b'"result"' not in answer or b'"tools"' not in listing:
        raise SystemExit(f"{argv[0]} did not initialize and list: {answer[:300]!r}")
    return initialized, listed


def session_answers(
    argv: Sequence[str], env: Mapping[str, str]
) -> tuple[dict[str, bytes], float | None]:
    """The raw answer lines to initialize and the three list requests, and the
    server's peak resident memory over that session in MiB (POSIX only)."""
    requests = {
        "initialize": INITIALIZE,
        "tools/list": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        "resources/templates/list": {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "resources/templates/list",
        },
        "prompts/list": {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    }
    proc = spawn(argv, env)
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[str, bytes] = {}
    for name, request in requests.items():
        proc.stdin.write(frame(request))
        proc.stdin.flush()
        answers[name] = proc.stdout.readline()
        if name == "initialize":
            proc.stdin.write(frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    proc.stdin.close()
    proc.stdout.read()
    if not hasattr(os, "wait4"):
        proc.wait(60)
        return answers, None
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return answers, usage.ru_maxrss / 1024  # kilobytes on Linux


def imported_modules(argv: Sequence[str], env: Mapping[str, str]) -> dict[str, int]:
    """Module name -> cumulative import time (µs) in a session that only initializes."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
    )
    output, errors = proc.communicate(frame(INITIALIZE), timeout=120)
    if b'"result"' not in output:
        raise SystemExit(f"{argv} did not initialize under -X importtime")
    modules: dict[str, int] = {}
    for raw in errors.decode("utf-8", "replace").splitlines():
        if not raw.startswith("import time:") or "|" not in raw:
            continue
        _, cumulative, name = (part.strip() for part in raw[len("import time:") :].split("|"))
        if cumulative.isdigit():
            modules[name.strip()] = int(cumulative)
    return modules


def unused_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per server")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pwc-startup-") as scratch:
        root = Path(scratch)
        env = dict(os.environ)
        env.update(
            HOME=str(root / "home"),
            XDG_CONFIG_HOME=str(root / "config"),
            XDG_CACHE_HOME=str(root / "cache"),
            PWC_API_URL=f"http://127.0.0.1:{unused_port()}/api/v1",
            PWC_MCP_LOCAL_CACHE_DIR=str(root / "pwc-cache"),
        )
        bare_sdk = root / "bare_sdk.py"
        bare_sdk.write_text(BARE_SERVER.replace("{run}", RUN_WITH_SDK), encoding="utf-8")
        bare_guard = root / "bare_guard.py"
        bare_guard.write_text(BARE_SERVER.replace("{run}", RUN_WITH_GUARD), encoding="utf-8")
        servers = {
            "pwc-mcp-local": [PWC_MCP_LOCAL],
            "bare MCPServer (SDK stdio)": [sys.executable, str(bare_sdk)],
            "bare MCPServer (our stdio)": [sys.executable, str(bare_guard)],
        }

        print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs")
        print(f"\nspawn -> answer, {args.runs} runs each (after one warm-up)")
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in servers}
        for argv in servers.values():
            time_to_answers(argv, env)
        for _ in range(args.runs):
            for name, argv in servers.items():
                times[name].append(time_to_answers(argv, env))
        for step, label in ((0, "initialize"), (1, "tools/list")):
            print(f"  {label}")
            for name, values in times.items():
                series = [value[step] for value in values]
                median, p90 = statistics.median(series), percentile(series, 0.9)
                print(f"    {name:28} median {median * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms")
            baseline = statistics.median(v[step] for v in times["bare MCPServer (SDK stdio)"])
            ratio = statistics.median(v[step] for v in times["pwc-mcp-local"]) / baseline
            print(f"    ratio pwc-mcp-local / bare (median): {ratio:.2f}")

        print("\nanswer sizes of pwc-mcp-local (bytes on the wire, newline excluded)")
        answers, rss = session_answers(servers["pwc-mcp-local"], env)
        _, bare_rss = session_answers(servers["bare MCPServer (SDK stdio)"], env)
        for method, raw in answers.items():
            size = len(raw.rstrip(b"\n"))
            print(f"  {method:26} {size:7d}")
        init = json.loads(answers["initialize"])["result"]
        instructions = init.get("instructions") or ""
        print(f"  instructions alone: {len(instructions.encode())} bytes")
        tools = json.loads(answers["tools/list"])["result"]["tools"]
        sizes = sorted(
            (
                (len(json.dumps(tool, separators=(",", ":")).encode()), tool["name"])
                for tool in tools
            ),
            reverse=True,
        )
        average = sum(size for size, _ in sizes) // max(1, len(tools))
        print(f"  {len(tools)} tools, {average} bytes each on average; largest:")
        for size, name in sizes[:5]:
            print(f"    {name:28} {size:6d}")
        if rss is not None and bare_rss is not None:
            print("\npeak memory (max RSS) over initialize and the three listings")
            print(f"  pwc-mcp-local {rss:6.1f} MiB, bare MCPServer {bare_rss:6.1f} MiB")

        print("\nmodules imported before answering initialize, not by the bare server")
        ours = imported_modules([sys.executable, "-X", "importtime", PWC_MCP_LOCAL], env)
        bare = imported_modules([sys.executable, "-X", "importtime", str(bare_sdk)], env)
        extra = {name: us for name, us in ours.items() if name not in bare}
        print(f"  {len(extra)} more modules ({len(ours)} against {len(bare)}):")
        others = sorted(((us, n) for n, us in extra.items() if not n.startswith("pwc_local")))
        for us, name in reversed(others):
            print(f"    {name:32} {us / 1000:7.1f} ms cumulative")
        if not others:
            print("    none outside pwc_local")
        own = sorted(((us, n) for n, us in extra.items() if n.startswith("pwc_local")))
        print("  pwc_local modules (cumulative time includes what each imports):")
        for us, name in reversed(own):
            print(f"    {name:32} {us / 1000:7.1f} ms")


if __name__ == "__main__":
    main()
