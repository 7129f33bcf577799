"""What a client offers a model that never waits: `real_clients.py --no-wait`.

A real model does not wait for MCP servers still starting: whatever tools the
client's first request offers are the tools of that conversation's first turn
(and, for a one-shot `codex exec`, of the whole run). `FirstLook` is one client's
run in that mode: how many of our tools its model's first request offered (the
first request that offers any tool; side requests offer none), when our tools
first appeared, whether the model's call to one of them was answered, and what
the client's own MCP log says about connecting (Claude Code: a version
negotiation probe that timed out, an `initialize` refused after it, and the
time to connect).

`merge_first_looks` keeps one table of these runs in docs/benchmarks.md, one row
per server, client and load: a run replaces the rows it measured and keeps the
others, so runs against two servers (with and without the early path) sit side
by side.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from benchmarks.real_clients_api import Offer
from benchmarks.real_clients_report import find_section, replace_section

HEADING = "## Real clients, a model that never waits"
# Claude Code's MCP log lines that say the first probe was not answered in time.
_LATE = re.compile(r"probe timed out|rejected initialize", re.IGNORECASE)
_CONNECTED = re.compile(r"Successfully connected.*? in (\d+)\s*ms", re.IGNORECASE)
_PROTOCOL = re.compile(r'"negotiatedProtocolVersion":\s*"([^"]+)"')
_ABANDONED = re.compile(r"Connection abandoned after (\d+)\s*ms", re.IGNORECASE)


@dataclass(frozen=True)
class McpLog:
    """What a client's MCP log says about our server's connection."""

    files: int = 0  # log files found
    late: tuple[str, ...] = ()  # lines saying the probe timed out or initialize was refused
    connected_ms: int | None = None  # the connection time the log gives
    connected_after: float | None = None  # seconds from the client's start to that line
    protocol: str = ""  # the protocol version negotiated
    abandoned_ms: int | None = None  # the client gave up connecting (it was ending) after

    def cell(self) -> str:
        """`connected in 1,443 ms (4.2 s after the client started) on 2026-07-28, no
        probe timed out`; a late probe's first line quoted (to its first bracket);
        `-` without a log."""
        if not self.files:
            return "-"
        parts = []
        if self.connected_ms is not None:
            parts.append(f"connected in {self.connected_ms:,} ms")
        if self.connected_after is not None:
            parts.append(f"({self.connected_after:.1f} s after the client started)")
        if self.protocol:
            parts.append(f"on {self.protocol}")
        if not parts:
            parts.append("not connected")
            if self.abandoned_ms is not None:
                parts.append(f"(abandoned after {self.abandoned_ms:,} ms, the client ending)")
        if not self.late:
            return " ".join(parts) + ", no probe timed out"
        more = f" and {len(self.late) - 1} more" if len(self.late) > 1 else ""
        return " ".join(parts) + f', "{self.late[0].split(" (")[0]}"{more}'


def mcp_log(home: Path, server: str = "pwc-local", began: float | None = None) -> McpLog:
    """Claude Code's MCP log of `server` under a scratch home: the JSON lines in
    `.cache/claude-cli-nodejs/PROJECT/mcp-logs-SERVER/` (a `debug` text and an ISO
    `timestamp` each). `began`: when the client started (time.time())."""
    files = sorted(home.glob(f".cache/claude-cli-nodejs/*/mcp-logs-{server}/*"))
    late: list[str] = []
    connected: int | None = None
    after: float | None = None
    protocol = ""
    abandoned: int | None = None
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            text, when = _entry(line)
            if _LATE.search(text):
                late.append(text.strip()[:300])
            found = _CONNECTED.search(text)
            if found and connected is None:
                connected = int(found.group(1))
                after = None if when is None or began is None else when - began
            version = _PROTOCOL.search(text)
            if version and not protocol:
                protocol = version.group(1)
            gave_up = _ABANDONED.search(text)
            if gave_up and abandoned is None:
                abandoned = int(gave_up.group(1))
    return McpLog(len(files), tuple(dict.fromkeys(late)), connected, after, protocol, abandoned)


def _entry(line: str) -> tuple[str, float | None]:
    """A log line's text and time (seconds since the epoch), as far as it has them."""
    try:
        entry = json.loads(line)
    except ValueError:
        return line, None
    if not isinstance(entry, dict):
        return line, None
    text = str(entry.get("debug") or entry.get("error") or "")
    try:
        when = datetime.fromisoformat(str(entry["timestamp"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return text, None
    return text, when.timestamp()


@dataclass
class FirstLook:
    key: str
    title: str
    version: str
    busy: int  # processes spinning a core each during the run
    load: float  # the 1-minute load average as the run began
    listed: int  # tools the server lists with these settings
    offers: list[Offer] = field(default_factory=list)
    called: list[int] = field(default_factory=list)  # the script's steps answered
    seconds: float = 0.0
    error: str = ""
    log: McpLog = field(default_factory=McpLog)

    def first(self) -> str:
        """Our tools in the model's first request: `31 of 31` (or `no request`)."""
        if not self.offers:
            return "no request offered tools"
        return f"{self.offers[0].ours} of {self.listed}"

    def appeared(self) -> str:
        """When our tools were first offered: `request 1 (2.1 s)`, or `never`."""
        for index, offer in enumerate(self.offers):
            if offer.ours:
                return f"request {index + 1} ({offer.seconds:.1f} s)"
        return "never"

    def summary(self) -> str:
        answered = "called and answered" if self.called else "not called"
        return (
            f"first request: {self.first()} of our tools; ours first offered: {self.appeared()}; "
            f"tool {answered}; MCP log: {self.log.cell()}; {self.seconds:.0f} s"
            + (f"; {self.error}" if self.error else "")
        )


COLUMNS = (
    "server",
    "client",
    "load",
    "our tools in the model's first request",
    "ours first offered",
    "our tool called",
    "MCP log",
    "run",
)


def row(look: FirstLook, server: str) -> list[str]:
    load = f"{look.busy} busy + {look.load:.1f}" if look.busy else f"{look.load:.1f}"
    run = f"{look.seconds:.0f} s" + (f", {look.error}" if look.error else "")
    return [
        server,
        f"{look.title} {look.version}".strip(),
        load,
        look.first(),
        look.appeared(),
        "answered" if look.called else "no",
        look.log.cell(),
        run,
    ]


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"


def render_first_looks(looks: list[FirstLook], server: str) -> str:
    lines = [_line(list(COLUMNS)), _line(["---"] * len(COLUMNS))]
    lines += [_line(row(look, server)) for look in looks]
    for look in looks:
        lines += [f"- {look.title}: {text}" for text in look.log.late]
    return "\n".join(lines)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def merge_first_looks(
    document: str, looks: list[FirstLook], server: str, when: str, network: str
) -> str:
    """`document` with the runs of `looks` in its table (a row per server, client and
    load: the latest run's replaces an earlier one's), the section added if missing.
    What follows the table (notes written by hand) is kept."""
    rows: dict[tuple[str, str, str], list[str]] = {}
    old = find_section(document, HEADING).splitlines()[1:]
    table_lines = [n for n, line in enumerate(old) if line.startswith("| ")]
    notes = old[table_lines[-1] + 1 :] if table_lines else []
    for line in old:
        cells = _cells(line)
        header = cells == list(COLUMNS) or set(cells[0]) <= {"-"}
        if line.startswith("| ") and len(cells) == len(COLUMNS) and not header:
            rows[_key(cells)] = cells
    for look in looks:
        cells = row(look, server)
        cells[-1] += f", {when}"
        rows[_key(cells)] = cells
    prose = (
        "`python benchmarks/real_clients.py --no-wait [--busy N] --write-docs` (issue 33): "
        "each client once, with a scripted model that never waits for MCP servers still "
        "starting (in Real clients above, the model calls the client's waiting tool until "
        "our tools are listed). The model's first request is the first that offers any "
        "tool; if it offers ours the model calls one, else it answers without them and the "
        "client ends, stopping any server still connecting (Claude Code then logs that the "
        "server exited). Load: the 1-minute load average as the run began (the machine's "
        "other work), plus N processes spinning a core each during the run (`--busy N`). "
        "MCP log: Claude Code's own log of the connection (the time it gives, the protocol "
        "version negotiated, any line saying its version negotiation probe timed out or "
        "its `initialize` was refused). "
        f"Latest network: {network}. A run replaces the rows of its server, client and load."
    )
    table = [_line(list(COLUMNS)), _line(["---"] * len(COLUMNS))]
    ordered = sorted(rows.items(), key=lambda item: (item[0][1], int(item[0][2] or 0)))
    table += [_line(cells) for _, cells in ordered]  # by client and load, servers as run
    section = "\n".join(
        [HEADING, "", textwrap.fill(prose, width=88, break_on_hyphens=False), "", *table]
    )
    return replace_section(document, "\n".join([section, *notes]).rstrip("\n") + "\n", HEADING)


def _key(cells: list[str]) -> tuple[str, str, str]:
    """Server, client (without its version) and busy processes: what a row stands for."""
    busy = cells[2].split(" busy")[0] if " busy" in cells[2] else "0"
    return cells[0], cells[1].rsplit(" ", 1)[0], busy
