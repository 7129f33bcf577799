"""How fast `completion/complete` answers from what is known locally.

    python benchmarks/completions.py [--names 10000] [--saved 200] [--completions 300]

Builds a scratch library of `--saved` saved papers with 500 KiB of Markdown each
(what made reading the library's listing slow) and a completion vocabulary full
to its bound: `--names` names of each kind (papers, tasks, benchmarks), titles
of two to six words drawn from a 3,000-word vocabulary. Then spawns the installed
`pwc-mcp-local` with the catalog unreachable (a closed loopback port, as offline)
and times `--completions` `completion/complete` requests over its stdio, from
the request line written to the answer line read, with prefixes of words and IDs
taken from the names, cycling over the paper, task and benchmark templates.

Prints the median, 95th percentile and maximum per case: one typed character
(the catalog is never asked) and two or more (the catalog is asked and refused at
once, so the local names answer); the maximum includes the first completion of
each kind, which reads that kind's names into the server's memory. The target:
at most 50 ms for a completion answered locally. Nothing passes or fails.

On the 2-core development machine (shared): 1 character median 5 ms, p95 9 ms;
2-8 characters median 3 ms, p95 7 ms.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.peer import Peer  # noqa: E402
from benchmarks.run import scratch_env  # noqa: E402
from benchmarks.spread import spread  # noqa: E402
from pwc_local.common.shelf import SavedPaper  # noqa: E402
from pwc_local.store.library import Library  # noqa: E402
from pwc_local.store.vocabulary import BENCHMARK, KINDS, PAPER, TASK, Name, Vocabulary  # noqa: E402

PWC_MCP_LOCAL = str(Path(sys.executable).parent / "pwc-mcp-local")
UNREACHABLE = "http://127.0.0.1:9"  # discard port: nothing listens, connections are refused
SYLLABLES = ["ka", "lo", "mi", "ne", "tra", "sfo", "rm", "er", "at", "ten", "ti", "on", "vi", "de"]
TEMPLATES = {
    PAPER: ("pwc://papers/{paper}", "paper"),
    TASK: ("pwc://tasks/{task}", "task"),
    BENCHMARK: ("pwc://benchmarks/{benchmark}", "benchmark"),
}
BATCH = 4000  # names per writer pass (the in-memory queue holds 5,000)


def words(rng: random.Random, count: int = 3000) -> list[str]:
    found: set[str] = set()
    while len(found) < count:
        found.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(found)


def names(rng: random.Random, vocabulary: list[str], kind: str, count: int) -> list[Name]:
    made = []
    for n in range(count):
        title = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 6))).title()
        ident = f"{2000 + n // 99999 % 100:04d}.{n % 99999:05d}" if kind == PAPER else None
        made.append(Name(title, ident or f"{title.lower().replace(' ', '-')}-{n}"))
    return made


def build(directory: Path, rng: random.Random, count: int, saved: int) -> list[Name]:
    """The library with `saved` papers and `count` names of each kind; some names to type."""
    vocabulary = words(rng)
    library = Library.open(directory)
    markdown = "Body text. " * (500 * 1024 // 11)
    typed: list[Name] = []
    for kind in KINDS:
        made = names(rng, vocabulary, kind, count)
        typed += rng.sample(made, 100)
        for start in range(0, len(made), BATCH):
            store = Vocabulary(library.path)
            store.note(kind, made[start : start + BATCH])
            store.close()  # writes the batch
    for n in range(saved):
        paper = names(rng, vocabulary, PAPER, 1)[0]
        library.save(
            SavedPaper(
                paper=f"2501.{n:05d}",
                title=paper.label,
                in_catalog=True,
                metadata={"id": str(n), "title": paper.label},
                citation={"key": f"saved{n}"},
                markdown=markdown,
                content_version=f"{n:064x}",
            )
        )
    library.close()
    return typed


def prefixes(
    rng: random.Random, typed: list[Name], total: int, short: bool
) -> list[tuple[str, str]]:
    """(kind, prefix) pairs: one character, or two to eight of a word or ID of a name."""
    chosen = []
    for index in range(total):
        kind = KINDS[index % len(KINDS)]
        name = rng.choice(typed[index % 3 * 100 : index % 3 * 100 + 100])
        text = rng.choice([name.ident, *name.label.split()])
        chosen.append((kind, text[:1] if short else text[: rng.randint(2, min(8, len(text)))]))
    return chosen


def timed(peer: Peer, cases: list[tuple[str, str]]) -> tuple[list[float], int]:
    timings, answered = [], 0
    for kind, prefix in cases:
        uri, variable = TEMPLATES[kind]
        params = {
            "ref": {"type": "ref/resource", "uri": uri},
            "argument": {"name": variable, "value": prefix},
        }
        begin = time.perf_counter()
        answer = peer.request("completion/complete", params)
        timings.append((time.perf_counter() - begin) * 1000)
        answered += bool(answer["result"]["completion"]["values"])
    return timings, answered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=10_000, help="names of each kind")
    parser.add_argument("--saved", type=int, default=200)
    parser.add_argument("--completions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        started = time.perf_counter()
        typed = build(root / "data" / "pwc-mcp-local", rng, args.names, args.saved)
        print(
            f"built {args.names} names of each kind and {args.saved} saved papers "
            f"in {time.perf_counter() - started:.1f} s"
        )
        peer = Peer([PWC_MCP_LOCAL], scratch_env(root, UNREACHABLE))
        try:
            peer.handshake()
            peer.request("completion/complete", _warm_up())  # the runtime is built
            for label, short in (("1 character", True), ("2-8 characters", False)):
                timings, answered = timed(peer, prefixes(rng, typed, args.completions, short))
                print(
                    f"completion/complete, {label}, offline: {spread(timings)} "
                    f"({answered}/{len(timings)} with values; target: <= 50 ms)"
                )
        finally:
            peer.close()


def _warm_up() -> dict[str, object]:
    return {
        "ref": {"type": "ref/resource", "uri": "pwc://tasks/{task}"},
        "argument": {"name": "task", "value": "a"},
    }


if __name__ == "__main__":
    main()
