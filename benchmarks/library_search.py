"""How fast `search_library` answers over a library of 1,000 saved papers.

    python benchmarks/library_search.py [--papers 1000] [--queries 200] [--keep DIR]

Builds a scratch library of `--papers` synthetic papers of realistic size (about
40-60 KiB of Markdown each, 8-12 sections with subsections, paragraphs of words
drawn from a Zipf-distributed vocabulary of 30,000 words, so some words are in
nearly every passage and most in few), then times `--queries` searches of one to
three words (common, medium and rare words mixed), each the whole query-layer call
a tool makes: tokenising, the FTS5 BM25 query, quotes and signed cursors.

Prints the build time, the database size and the median and 95th percentile of
the search time. The target is a median of at most 50 ms. Nothing passes or fails.
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

from benchmarks.spread import spread  # noqa: E402
from pwc_local.common.cursors import CursorCodec  # noqa: E402
from pwc_local.common.shelf import SavedPaper  # noqa: E402
from pwc_local.queries.library_search import search_library  # noqa: E402
from pwc_local.store.library import Library  # noqa: E402

VOCABULARY = 30_000
SYLLABLES = ["ka", "lo", "mi", "ne", "tra", "sfo", "rm", "er", "at", "ten", "ti", "on", "vi", "de"]


def vocabulary(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def document(rng: random.Random, words: list[str], weights: list[float], n: int) -> str:
    target = rng.randint(40_000, 60_000)
    parts = [f"# Synthetic Paper {n}\n\n"]
    size = 0
    section = 0
    while size < target:
        section += 1
        parts.append(f"## {section} {' '.join(rng.choices(words, weights, k=3)).title()}\n\n")
        for sub in range(rng.randint(1, 3)):
            parts.append(f"### {section}.{sub + 1} {rng.choice(words).title()}\n\n")
            for _ in range(rng.randint(3, 6)):
                paragraph = " ".join(rng.choices(words, weights, k=rng.randint(60, 140)))
                parts.append(paragraph.capitalize() + ".\n\n")
                size += len(paragraph)
    return "".join(parts)


def build(directory: Path, papers: int, seed: int) -> tuple[Library, list[str], list[float]]:
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    library = Library.open(directory)
    for n in range(papers):
        text = document(rng, words, weights, n)
        library.save(
            SavedPaper(
                paper=f"2401.{n:05d}",
                title=f"Synthetic Paper {n}",
                in_catalog=True,
                metadata={"id": str(n), "title": f"Synthetic Paper {n}"},
                citation={"key": f"synthetic{n}"},
                markdown=text,
                content_version=f"{n:064x}",
            )
        )
    return library, words, weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="build the library here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or Path(scratch) / "library"
        started = time.perf_counter()
        library, words, _weights = build(directory, args.papers, args.seed)
        built = time.perf_counter() - started
        db_bytes = sum(f.stat().st_size for f in directory.iterdir())
        print(f"built {args.papers} papers in {built:.1f} s; database {db_bytes / 2**20:.0f} MiB")
        rng = random.Random(args.seed + 1)
        codec = CursorCodec("benchmark-secret")
        bands = [words[:50], words[50:2000], words[2000:]]  # by Zipf rank: common .. rare
        queries = [
            " ".join(rng.choice(rng.choice(bands)) for _ in range(rng.randint(1, 3)))
            for _ in range(args.queries)
        ]
        timings = []
        found = 0
        for query in queries:
            begin = time.perf_counter()
            hits = search_library(library, codec, query, limit=10)
            timings.append((time.perf_counter() - begin) * 1000)
            found += bool(hits)
        library.close()
        print(
            f"search_library over {args.papers} saved papers: {spread(timings)} "
            f"({found}/{len(queries)} queries with hits; target: median <= 50 ms)"
        )


if __name__ == "__main__":
    main()
