"""How a saved paper of many megabytes is read, and what saving it costs in memory.

    python benchmarks/large_paper.py [--sizes 4,8,16,40]

For each size (MiB of UTF-8 Markdown), the loopback fake catalog (tests/fake_catalog)
serves a synthetic paper of that size: a section every 16 KiB or so, with
subsections, paragraphs of plain words and a sprinkle of multi-byte characters. Then:

| figure                     | how                                                     |
| -------------------------- | ------------------------------------------------------- |
| save, memory per byte      | peak RSS of `pwc-mcp-local library add` of the paper,   |
|                            | less the peak RSS of adding a small paper, per byte     |
| saved: outline             | `get_paper_outline` of the saved paper, fresh server    |
| saved: section             | `read_paper_section` of its middle section, by ID       |
| saved: first / next chunk  | `read_paper` without a cursor, then with its cursor     |
| unsaved: outline (cached)  | the same paper under another ID, second outline call    |
|                            | (every chunk from the disk cache)                       |

Times are the wall time of one `tools/call` over raw stdio (`peer.py`), the server
spawned with a scratch cache, config and library per size. Targets (issue 22):
outline and section of a saved 40 MiB paper under 1 s; saving within 2x the
paper's size in memory. It prints figures; nothing passes or fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake catalog lives in tests/

from benchmarks.peer import Peer  # noqa: E402
from benchmarks.run import PWC_MCP_LOCAL, compile_package, scratch_env  # noqa: E402

SAVED = "1706.03762"  # saved at each size
UNSAVED = "1512.03385"  # the same Markdown, only read (through the cache)
SMALL = "1810.04805"  # the memory baseline: a paper of a few KiB
SECTION_BYTES = 16_384
MiB = 2**20


def synthetic_paper(size: int) -> str:
    """About `size` bytes of Markdown with the structure of a long paper (deterministic)."""
    sentence = "the model attends to every position of the sequence with learned weights"
    words = sentence.split(" ")
    paragraph = " ".join(words[i % len(words)] for i in range(180)) + " — ∑ᵢ αᵢ = 1 ✓.\n\n"
    title = "# A Very Long Paper\n\n"
    parts = [title]
    total = len(title.encode())
    per_subsection = SECTION_BYTES // 2 // len(paragraph.encode())
    section = 0
    while total < size:
        section += 1
        parts.append(f"## {section} Part {section}\n\n")
        for sub in (1, 2):
            parts.append(f"### {section}.{sub} Detail {sub}\n\n")
            parts += [paragraph] * per_subsection
        total += sum(len(p.encode()) for p in parts[-(2 * per_subsection + 3) :])
    return "".join(parts)


# Spawns `library add` from a fresh small interpreter and prints its peak RSS: a child
# forked from this process would count this process's memory (the paper, the fake's
# copies of it) in its own peak until it execs.
_PEAK_OF_CHILD = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "_pid, status, usage = os.wait4(child.pid, 0)\n"
    "print(usage.ru_maxrss)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def add_peak_rss(env: dict[str, str], paper: str) -> int:
    """Peak resident bytes of one `library add` process."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_OF_CHILD, PWC_MCP_LOCAL, "library", "add", paper],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"library add {paper} failed: {done.stderr[-500:]}")
    return int(done.stdout) * 1024  # KiB on Linux


def timed(peer: Peer, tool: str, **arguments: Any) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = peer.call(tool, **arguments)
    return time.perf_counter() - started, result


def figures(fake: Any, scratch: Path, mib: float) -> list[tuple[str, str]]:
    size = int(mib * MiB)
    text = synthetic_paper(size)
    fake.set_markdown(SAVED, text)
    fake.set_markdown(UNSAVED, text)
    env = scratch_env(scratch, fake.api_url)
    env["XDG_DATA_HOME"] = str(scratch / "data")
    baseline = add_peak_rss(env, SMALL)
    started = time.perf_counter()
    peak = add_peak_rss(env, SAVED)
    save_seconds = time.perf_counter() - started
    real = len(text.encode())
    grown = peak - baseline
    rows = [
        ("save: wall time", f"{save_seconds:.1f} s"),
        (
            "save: memory per byte",
            f"{grown / real:.2f}x ({grown / MiB:.0f} MiB)",
        ),
    ]
    peer = Peer([PWC_MCP_LOCAL], env)
    peer.handshake()
    seconds, outline = timed(peer, "get_paper_outline", paper=SAVED)
    rows.append(("saved: outline", f"{seconds * 1000:.0f} ms"))
    sections = outline["structuredContent"]["sections"]
    middle = sections[len(sections) // 2]["id"]
    seconds, _ = timed(peer, "read_paper_section", paper=SAVED, section=middle, max_bytes=65536)
    rows.append(("saved: section", f"{seconds * 1000:.0f} ms"))
    seconds, first = timed(peer, "read_paper", paper=SAVED)
    rows.append(("saved: first chunk", f"{seconds * 1000:.0f} ms"))
    cursor = first["structuredContent"]["next_cursor"]
    seconds, _ = timed(peer, "read_paper", paper=SAVED, cursor=cursor)
    rows.append(("saved: next chunk", f"{seconds * 1000:.0f} ms"))
    timed(peer, "get_paper_outline", paper=UNSAVED)  # fills the cache
    seconds, _ = timed(peer, "get_paper_outline", paper=UNSAVED)
    rows.append(("unsaved: outline (cached)", f"{seconds * 1000:.0f} ms"))
    peer.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4,8,16,40", help="paper sizes in MiB, commas")
    args = parser.parse_args()
    from tests.fake_catalog.server import FakeCatalog

    compile_package()
    fake = FakeCatalog().start()
    try:
        for mib in (float(s) for s in args.sizes.split(",")):
            with tempfile.TemporaryDirectory(prefix="pwc-large-") as scratch:
                rows = figures(fake, Path(scratch), mib)
            print(f"\n{mib:g} MiB paper")
            for label, value in rows:
                print(f"  {label:28} {value:>24}")
    finally:
        fake.stop()
    print("\ntargets: saved outline and section of 40 MiB < 1 s; save memory <= 2x")


if __name__ == "__main__":
    main()
