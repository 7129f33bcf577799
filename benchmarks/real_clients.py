"""What a model in each real MCP client receives from pwc-mcp-local, tool by tool.

    python benchmarks/real_clients.py [--server COMMAND] [--label TEXT] [--write-docs]
        [--clients claude-code,gemini,codex,opencode] [--clients-dir DIR]
        [--timeout 300] [--keep DIR] [--no-isolate] [--no-wait [--busy N]]

Installs Claude Code, Gemini CLI, Codex and opencode from the npm registry into
`--clients-dir` (`npm install --prefix`; kept between runs, installed only when
missing), points each at a scripted model API on 127.0.0.1
(`real_clients_api.py`), registers `--server` with it (`real_clients_setup.py`),
and lets the script (`real_clients_script.py`) ask for every default tool once,
then read a three-chunk paper to its end by following the cursor the model was
given. The server serves the loopback fake catalog (tests/fake_catalog), with its
cache and library in each client's scratch home. `--server` names any installed
`pwc-mcp-local` (default: the one beside this interpreter), so the same run can
be repeated against another version; `--label` names it in docs/benchmarks.md.

The same script runs first over a raw stdio client (`benchmarks/peer.py`), which
sees both halves of every result exactly as the server sent them: the text block
and `structuredContent`. Each result a client handed its model is compared with
them (`real_clients_report.py`): its bytes, which half it carries (or both), whether
it is whole or cut, and for reading whether the cursor survived. The paper read
has Markdown 2.5 times the first chunk the server hands out, so it takes three
chunks whatever the server's chunk size.

Each client run is bounded by `--timeout` and a failing client is reported as such;
the others still run. Nothing leaves the machine: after the npm install the
measuring part runs again inside `unshare --net` with only loopback up (unless
`--no-isolate`, or the machine allows no user namespace), and the clients' proxy
variables point at the scripted API, which refuses every host but loopback and
lists the hosts a client tried. `--keep DIR` keeps each client's scratch home, its
output, every request it sent the model API and what its model received. It is a
benchmark, not a test: it prints figures and asserts none; a run takes about a
minute once the clients are installed.

`--no-wait` runs another script: a model that never waits for servers still
starting, as a real one does not (the script above calls the client's waiting tool
until our tools are listed). It records whether each client's first model request
offers our tools, and Claude Code's own MCP log of the connection
(`real_clients_first_look.py`); `--busy N` keeps N processes spinning a core each
during every client's run. Its `--write-docs` keeps a row per server, client and
load, so runs against two servers (`--server`, `--label`) sit side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake catalog lives in tests/

from benchmarks.peer import Peer  # noqa: E402
from benchmarks.real_clients_api import ScriptedApi  # noqa: E402
from benchmarks.real_clients_first_look import (  # noqa: E402
    FirstLook,
    mcp_log,
    merge_first_looks,
    render_first_looks,
)
from benchmarks.real_clients_report import (  # noqa: E402
    ClientRun,
    Reference,
    docs_section,
    render_table,
    replace_section,
)
from benchmarks.real_clients_script import (  # noqa: E402
    CALLS,
    READ_PAPER,
    ScriptedModel,
    find_cursor,
)
from benchmarks.real_clients_setup import (  # noqa: E402
    BY_KEY,
    CLIENTS,
    Client,
    Scratch,
    install_clients,
)
from tests.fake_catalog.server import FakeCatalog  # noqa: E402

DEFAULT_CLIENTS_DIR = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pwc-real-clients"
)
DOCS = ROOT / "docs" / "benchmarks.md"
ISOLATED = "PWC_REAL_CLIENTS_NETWORK"  # set inside the namespace: how the network is closed
BIG_PAPER = "1911.02116"  # the fake's large multi-byte paper: its first chunk gives the size


def isolation_wrapper() -> list[str] | None:
    """`unshare` into a new network namespace with only loopback up, or None when this
    machine does not allow it (no user namespaces, no `unshare` or `ip`)."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if not unshare or not ip:
        return None
    wrapper = [
        unshare,
        "--net",
        "--map-root-user",
        "sh",
        "-c",
        f'"{ip}" link set lo up && exec "$@"',
        "sh",
    ]
    probe = subprocess.run([*wrapper, "true"], capture_output=True, timeout=30, check=False)
    return wrapper if probe.returncode == 0 else None


def prepare_clients(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    known: Mapping[str, Client],
    outside: str,
) -> tuple[list[str], dict[str, str]]:
    """The clients `args.clients` names (`known`; a parser error for any other) and their
    versions, installed first if missing. Outside the namespace and unless `--no-isolate`,
    this then runs the whole command again inside one and exits with its status; where no
    namespace can be made it says `outside` on stderr and goes on here."""
    keys = [k.strip() for k in args.clients.split(",") if k.strip()]
    unknown = [k for k in keys if k not in known]
    if unknown:
        parser.error(f"unknown clients {unknown}; known: {sorted(known)}")
    chosen = tuple(known[k] for k in keys)
    versions = install_clients(args.clients_dir, chosen, install=not os.environ.get(ISOLATED))
    if not args.no_isolate and not os.environ.get(ISOLATED):
        wrapper = isolation_wrapper()
        if wrapper:  # the measuring part again, in a network namespace of its own
            env = dict(os.environ, **{ISOLATED: "a namespace with loopback only (unshare)"})
            argv = [*wrapper, sys.executable, *sys.argv]
            sys.exit(subprocess.run(argv, env=env, check=False).returncode)
        print(outside, file=sys.stderr)
    return keys, versions


def default_server() -> str:
    beside = Path(sys.executable).parent / "pwc-mcp-local"
    return str(beside) if beside.exists() else "pwc-mcp-local"


def three_chunk_markdown(chunk_bytes: int) -> str:
    """Markdown of about 2.5 chunks: headed sections of plain and multi-byte lines."""
    lines = ["# Pre-training of Deep Bidirectional Transformers (three-chunk copy)", ""]
    size, section = 0, 0
    while size < chunk_bytes * 5 // 2:
        section += 1
        block = [f"## Section {section}", ""]
        block += [
            f"Line {section}.{n}: masked language modelling predicts hidden tokens; "
            "Ελληνικά, 中文, 日本語 stay whole across every cut."
            for n in range(12)
        ]
        block.append("")
        lines += block
        size += len("\n".join(block).encode())
    lines.append("## End of paper")
    return "\n".join(lines) + "\n"


def reference_run(server: str, env: dict[str, str], fake: FakeCatalog) -> Reference:
    """The script over a raw stdio client: both halves of every result. Also sizes
    and installs the three-chunk paper."""
    peer = Peer([server], env)
    try:
        peer.handshake()
        first = _call(peer, "read_paper", {"paper": BIG_PAPER})
        chunk = first.get("structuredContent", {}).get("markdown") or first["content"][0]["text"]
        chunk_bytes = len(chunk.encode())
        fake.set_markdown(READ_PAPER, three_chunk_markdown(chunk_bytes))
        model = ScriptedModel()
        reference = Reference(chunk_bytes=chunk_bytes)
        done = 0
        while (call := model.next_call(done)) is not None:
            result = _call(peer, call.tool, call.arguments)
            reference.add(call, result)
            structured = result.get("structuredContent") or {}
            # The reference follows the cursor the server sent, wherever it is.
            cursor = structured.get("next_cursor") or find_cursor(_text(result))
            payload = json.dumps({"next_cursor": cursor}) if cursor else _text(result)
            model.receive(call.step, payload if call.read is not None else _text(result), result)
            done += 1
        return reference
    finally:
        peer.close()


def _call(peer: Peer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = peer.request("tools/call", {"name": tool, "arguments": arguments})
    return dict(answer["result"])


def _text(result: dict[str, Any]) -> str:
    return "\n".join(
        b.get("text", "") for b in result.get("content", []) if b.get("type") == "text"
    )


@dataclass
class Outcome:
    exit_code: int | None = None
    seconds: float = 0.0
    timed_out: bool = False
    error: str = ""
    log: list[str] = field(default_factory=list)
    began: float = 0.0  # when the client was started (time.time())


def run_client(
    client: Client,
    binary: Path,
    api: ScriptedApi,
    scratch: Scratch,
    timeout: float,
    model: ScriptedModel | None = None,
) -> tuple[ScriptedModel, Outcome]:
    """One client through the script (`model`, by default the whole one), bounded by
    `timeout`; never raises. The client runs in a process group of its own, ended
    afterwards with whatever servers it left behind."""
    model = model or ScriptedModel()
    api.serve(model, scratch.root / "requests")
    outcome = Outcome()
    scratch.work.mkdir(parents=True, exist_ok=True)
    try:
        argv, env = client.prepare(scratch)
    except Exception as error:  # a failed setup is this client's result, not the run's end
        outcome.error = f"setup failed: {error}"
        return model, outcome
    stdout = scratch.root / "client.out"
    api.begin()  # the times of its requests count from here
    outcome.began = time.time()
    started = time.monotonic()
    with open(stdout, "wb") as out:
        try:
            proc = subprocess.Popen(
                [str(binary), *argv],
                cwd=scratch.work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: a timeout ends it and its servers
            )
        except OSError as error:
            outcome.error = f"could not start {binary.name}: {error}"
            return model, outcome
        try:
            outcome.exit_code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            outcome.timed_out = True
        _end_group(proc)
    outcome.seconds = time.monotonic() - started
    outcome.log = stdout.read_text(errors="replace").splitlines()[-15:]
    if outcome.timed_out:
        outcome.error = f"timed out after {timeout:g} s"
    elif outcome.exit_code != 0 and not model.received:
        outcome.error = f"exit {outcome.exit_code}: " + " | ".join(outcome.log[-3:])[-300:]
    return model, outcome


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """End the client's process group: the client if still running, and its servers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return  # the group is empty
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            time.sleep(0.5)  # servers it left get a moment to end on SIGTERM; then SIGKILL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--clients-dir", type=Path, default=DEFAULT_CLIENTS_DIR, help="npm prefix, kept"
    )
    parser.add_argument("--server", default=default_server(), help="the pwc-mcp-local command")
    parser.add_argument(
        "--clients", default=",".join(c.key for c in CLIENTS), help="comma-separated"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per client run")
    parser.add_argument("--write-docs", action="store_true", help=f"put the table in {DOCS.name}")
    parser.add_argument(
        "--no-isolate",
        action="store_true",
        help="measure without a network namespace (when `unshare -rn` is not allowed)",
    )
    parser.add_argument(
        "--label", help="how docs/benchmarks.md names the server (default: its --version)"
    )
    parser.add_argument("--keep", type=Path, help="keep each client's scratch directory under DIR")
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="a model that never waits for servers: what its first request offers (first_look)",
    )
    parser.add_argument(
        "--busy", type=int, default=0, help="processes spinning a core each during a client's run"
    )
    args = parser.parse_args()
    keys, versions = prepare_clients(
        parser, args, BY_KEY, "no network namespace here: proxy variables only"
    )
    label = (
        args.label
        or subprocess.run(
            [args.server, "--version"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    )
    if args.no_wait:
        with tempfile.TemporaryDirectory(prefix="pwc-real-clients-") as temp:
            looks = run_no_wait(args, keys, versions, args.keep or Path(temp))
        first_look_report(looks, label, args.write_docs)
        return
    with tempfile.TemporaryDirectory(prefix="pwc-real-clients-") as temp:
        reference, runs = run_all(args, keys, versions, args.keep or Path(temp))
    print(render_table(reference, runs))
    if args.write_docs:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        network = os.environ.get(ISOLATED) or "proxy variables only (no namespace)"
        section = docs_section(reference, runs, label, when, network)
        document = replace_section(DOCS.read_text(encoding="utf-8"), section)
        DOCS.write_text(document, encoding="utf-8")
        print(f"written to {DOCS}", file=sys.stderr)


def run_all(
    args: argparse.Namespace, keys: list[str], versions: dict[str, str], base: Path
) -> tuple[Reference, list[ClientRun]]:
    """The reference run, then each client in turn, on one fake catalog and one API."""
    fake = FakeCatalog().start()
    runs: list[ClientRun] = []
    try:
        with ScriptedApi() as api:
            ref_scratch = Scratch(base / "reference", api.url, fake.api_url, args.server)
            ref_env = dict(ref_scratch.base_env(), PWC_API_URL=fake.api_url)
            reference = reference_run(args.server, ref_env, fake)
            for key in keys:
                scratch = Scratch(base / key, api.url, fake.api_url, args.server)
                print(f"running {key} ...", file=sys.stderr, flush=True)
                client = BY_KEY[key]
                binary = args.clients_dir / "node_modules" / ".bin" / client.command
                model, outcome = run_client(client, binary, api, scratch, args.timeout)
                runs.append(
                    ClientRun(
                        key=key,
                        title=BY_KEY[key].title,
                        version=versions.get(key, ""),
                        model=model,
                        seconds=outcome.seconds,
                        timed_out=outcome.timed_out,
                        error=outcome.error,
                        refused_hosts=sorted(api.refused_hosts),
                        log_tail=outcome.log,
                    )
                )
                got = len(model.received)
                print(f"  {key}: {got} results in {outcome.seconds:.0f} s", file=sys.stderr)
                if args.keep:  # what the model got, beside the client's requests, for reading
                    received = {s: r.payload for s, r in sorted(model.received.items())}
                    (scratch.root / "received.json").write_text(json.dumps(received, indent=1))
            if args.keep:
                sent = {s: [x.text, x.structured] for s, x in sorted(reference.sent.items())}
                (base / "reference.json").write_text(json.dumps(sent, indent=1))
    finally:
        fake.stop()
    return reference, runs


# The mode whose model never waits (`--no-wait`): what a client offers its model first.
def run_no_wait(
    args: argparse.Namespace, keys: list[str], versions: dict[str, str], base: Path
) -> list[FirstLook]:
    """Each client once with a model that never waits: it calls one of our tools if its
    first request offers them, else it answers and the client ends. `args.busy`
    processes spin during each run."""
    fake = FakeCatalog().start()
    looks: list[FirstLook] = []
    try:
        with ScriptedApi() as api:
            api.waits = False
            for key in keys:
                scratch = Scratch(base / key, api.url, fake.api_url, args.server)
                listed = listed_tools(args.server, scratch)
                print(f"running {key} without waiting ...", file=sys.stderr, flush=True)
                client = BY_KEY[key]
                binary = args.clients_dir / "node_modules" / ".bin" / client.command
                model = ScriptedModel(calls=CALLS[:1], max_reads=0)
                load = os.getloadavg()[0]
                with busy(args.busy, args.timeout + 30):
                    model, outcome = run_client(client, binary, api, scratch, args.timeout, model)
                look = FirstLook(
                    key=key,
                    title=client.title,
                    version=versions.get(key, ""),
                    busy=args.busy,
                    load=load,
                    listed=listed,
                    offers=list(api.offers),
                    called=sorted(model.received),
                    seconds=outcome.seconds,
                    error=outcome.error,
                    log=mcp_log(scratch.home, began=outcome.began),
                )
                looks.append(look)
                print(f"  {key}: {look.summary()}", file=sys.stderr)
    finally:
        fake.stop()
    return looks


def listed_tools(server: str, scratch: Scratch) -> int:
    """How many tools the server lists with this run's settings (a raw stdio client)."""
    peer = Peer([server], dict(scratch.base_env(), PWC_API_URL=scratch.catalog_url))
    try:
        peer.handshake()
        return len(peer.last_answer["result"]["tools"])
    finally:
        peer.close()


@contextmanager
def busy(count: int, seconds: float) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` processes spinning a core each while the block runs (killed at its end);
    each also stops by itself after `seconds`, so none outlives a benchmark that dies."""
    code = (
        "import time\n"
        f"end = time.monotonic() + {seconds:.0f}\n"
        "while time.monotonic() < end:\n"
        "    pass\n"
    )
    spinners = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]
    try:
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def first_look_report(looks: list[FirstLook], label: str, write_docs: bool) -> None:
    print(render_first_looks(looks, label))
    if write_docs:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        network = os.environ.get(ISOLATED) or "proxy variables only (no namespace)"
        document = merge_first_looks(DOCS.read_text(encoding="utf-8"), looks, label, when, network)
        DOCS.write_text(document, encoding="utf-8")
        print(f"written to {DOCS}", file=sys.stderr)


if __name__ == "__main__":
    main()
