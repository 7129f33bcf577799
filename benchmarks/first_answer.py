"""How soon a fresh server answers its first messages (issue 33), against two floors.

| figure                    | measured                                            |
| ------------------------- | --------------------------------------------------- |
| spawn -> server/discover  | spawn, write the probe (2026-07-28 envelope), answer |
| spawn -> initialize       | spawn, write `initialize`, its answer               |
| spawn -> tools/list       | spawn, write `initialize`, `initialized` and        |
|                           | `tools/list` at once, the listing's answer          |
| spawn -> first tools/call | the same three lines and a call at once: a cached   |
|                           | `get_paper_info` (the bare SDK server: `echo`)      |
| SIGINT on an idle server  | after the handshake and a pause, SIGINT to exit     |

Floors, spawned the same way in the same run: a bare Python process answering each
JSON line (`floor.py`) and a bare one-tool SDK `MCPServer` (`bare.py`); `before`, an
older `pwc-mcp-local` to compare with (`run.py --before COMMAND`). Targets (issue
33): discover and initialize within 3x the Python floor, tools/list within 4x, the
first call no slower than before, SIGINT within 0.5 s. Figures are medians of `runs`
spawns, servers in turns.
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = [sys.executable, str(HERE / "floor.py")]
BARE = [sys.executable, str(HERE / "bare.py")]
ENVELOPE = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "first-answer", "version": "0"},
}

LOCAL_CALL = {"name": "list_library", "arguments": {}}


def _line(request_id: int | None, method: str, params: Mapping[str, object] | None) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = dict(params)
    return json.dumps(message).encode() + b"\n"


SCRIPTS = {
    "spawn -> server/discover": (_line(1, "server/discover", ENVELOPE), 1),
    "spawn -> initialize": (_line(1, "initialize", INITIALIZE), 1),
    "spawn -> tools/list": (
        _line(1, "initialize", INITIALIZE)
        + _line(None, "notifications/initialized", None)
        + _line(2, "tools/list", None),
        2,
    ),
}


def _spawn_and_wait(
    argv: Sequence[str], env: Mapping[str, str], script: bytes, last: int
) -> subprocess.Popen[bytes]:
    """Spawn `argv`, write `script` at once, and read answers up to the one with id `last`."""
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(env),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(script)
    proc.stdin.flush()
    while json.loads(proc.stdout.readline() or b"{}").get("id", last) != last:
        pass
    return proc


def time_to_answer(argv: Sequence[str], env: Mapping[str, str], script: bytes, last: int) -> float:
    """Seconds from spawn to the answer carrying id `last`."""
    started = time.perf_counter()
    proc = _spawn_and_wait(argv, env, script, last)
    answered = time.perf_counter() - started
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(60)
    return answered


def sigint_exit(argv: Sequence[str], env: Mapping[str, str], pause: float = 0.5) -> float:
    """Seconds from SIGINT to exit, on a server idle after its handshake and `pause`.

    A tool call is answered once the full server has taken over from the early path.
    """
    script, _ = SCRIPTS["spawn -> tools/list"]
    proc = _spawn_and_wait(argv, env, script + _line(3, "tools/call", LOCAL_CALL), 3)
    time.sleep(pause)  # a client's idle moment, not synchronisation
    started = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(60)
    return time.perf_counter() - started


def first_answer_rows(
    ours: Sequence[str],
    env: Mapping[str, str],
    runs: int,
    paper: str,
    before: Sequence[str] | None = None,
) -> list[tuple[str, str, str, float | None]]:
    """Rows of figures: ours against the Python floor, the bare SDK and `before`.

    `paper` is in the cache of `env`'s home: the first call reads it from there.
    """
    rows: list[tuple[str, str, str, float | None]] = []
    handshake, _ = SCRIPTS["spawn -> tools/list"]
    ours_call = _line(3, "tools/call", {"name": "get_paper_info", "arguments": {"paper": paper}})
    bare_call = _line(3, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
    scripts = {
        **{label: {"any": script} for label, (script, _) in SCRIPTS.items()},
        "spawn -> first tools/call": {"ours": handshake + ours_call, "any": handshake + bare_call},
    }
    servers = {"ours": ours, "floor": FLOOR, "bare": BARE, **({"before": before} if before else {})}
    for label, by_server in scripts.items():
        last = 3 if "tools/call" in label else SCRIPTS[label][1]
        times: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(runs):
            for name, argv in servers.items():
                script = by_server.get("ours" if name == "before" else name, by_server["any"])
                times[name].append(time_to_answer(argv, env, script, last))
        median = {name: statistics.median(values) for name, values in times.items()}
        mine = median["ours"]
        for name, floor in (("floor", "Python floor"), ("bare", "bare SDK"), ("before", "before")):
            if name in median:
                rows.append(
                    (f"{label} (x {floor})", _ms(mine), _ms(median[name]), mine / median[name])
                )
    exits = [sigint_exit(ours, env) for _ in range(max(3, runs // 2))]
    rows.append(("SIGINT on an idle server -> exit", _ms(statistics.median(exits)), "", None))
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"
