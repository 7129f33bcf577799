"""`cache stats` for people: every column lines up, whatever the cells hold."""

from __future__ import annotations

from pathlib import Path

from pwc_local.commands.cache import table
from tests.test_cache import invoke, populate


def test_columns_line_up_under_their_headings(tmp_path: Path) -> None:
    populate(tmp_path)
    result = invoke(tmp_path, "cache", "stats")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("kind"))
    rows = lines[start:]
    header = rows[0]
    # Right-aligned counts and sizes end under the end of their heading; dates start
    # under theirs (the ISO timestamps are wider than the heading words).
    entries_end = header.index("entries") + len("entries")
    size_end = header.index("size") + len("size")
    newest_start = header.index("newest")
    for row in rows[1:-1]:
        assert row[entries_end - 1] != " " and row[entries_end] == " ", row
        assert row[size_end - 1] != " " and row[size_end : size_end + 2] == "  ", row
        assert row[newest_start - 2 : newest_start] == "  " and row[newest_start] != " ", row
    assert all(line == line.rstrip() for line in rows)
    assert "+00:00" in rows[1]


def test_table_widths_follow_the_widest_cell() -> None:
    lines = table([("a", "1"), ("longer", "12345")], right=(1,))
    assert lines == ["a           1", "longer  12345"]
