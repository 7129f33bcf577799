"""Every error code is a class: the tree, the documented code table, and no `code: ` by hand.

A `code: sentence` text comes from a `CodedError` subclass (its class attribute `code`,
its `public_message()`), composed only by `failures.coded_text` / `server.errors`. These
tests walk every subclass in the package, read the README table a client matches on,
and scan the source for a module that writes a code's text itself.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import pwc_local
from pwc_local.failures import CodedError, coded_text
from pwc_local.server.errors import error_message
from pwc_local.upstream.errors import (
    HTTPNotFound,
    HTTPRateLimited,
    HTTPRejected,
    HTTPStatusError,
    HTTPTimedOut,
    NotFound,
    RecordMissing,
    SavedMissing,
    is_missing,
    translate_404,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pwc_local"
COMPOSERS = {PACKAGE / "failures.py", PACKAGE / "server" / "errors.py"}
SNAKE = re.compile(r"^[a-z]+(?:_[a-z]+)*$")


def _every_coded_class() -> set[type[CodedError]]:
    for module in pkgutil.walk_packages(pwc_local.__path__, "pwc_local."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: set[type[CodedError]] = set()
    pending: list[type[CodedError]] = [CodedError]
    while pending:
        cls = pending.pop()
        if cls not in found:
            found.add(cls)
            pending.extend(cls.__subclasses__())
    return found


def _readme_codes() -> set[str]:
    # The table the README links to (docs/errors.md): the README itself has no room.
    lines = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| Code | Meaning |")
    codes: set[str] = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        codes.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return codes


def test_every_coded_class_has_a_snake_case_code_listed_in_the_readme() -> None:
    classes = _every_coded_class()
    assert len(classes) > 30  # the walk reached the catalog, store and server trees
    listed = _readme_codes()
    for cls in classes:
        assert SNAKE.match(cls.code), (cls, cls.code)
        assert cls.code in listed, f"{cls.__qualname__}: {cls.code} missing from README table"
    assert {cls.code for cls in classes} == listed  # and the table lists no code nobody raises


def test_the_code_is_the_class_s_never_the_instance_s() -> None:
    for status in (404, 400, 422, 429, 500, 504):
        exc = HTTPStatusError(status, "gateway timeout")
        assert "code" not in vars(exc)
        assert exc.code == type(exc).code


@pytest.mark.parametrize(
    ("status", "detail", "cls"),
    [
        (404, "", HTTPNotFound),
        (404, "gateway timeout", HTTPNotFound),
        (400, "", HTTPRejected),
        (422, "", HTTPRejected),
        (429, "", HTTPRateLimited),
        (504, "<h1>504 Gateway Timeout</h1>", HTTPTimedOut),
        (500, "boom", HTTPStatusError),
        (409, "conflict", HTTPStatusError),
    ],
)
def test_an_http_status_builds_the_class_it_means(
    status: int, detail: str, cls: type[HTTPStatusError]
) -> None:
    exc = HTTPStatusError(status, detail, retry_after="3")
    assert type(exc) is cls
    assert (exc.status, exc.detail, exc.retry_after) == (status, detail, "3")
    assert isinstance(exc, RecordMissing) is (status == 404)


def test_a_replayed_404_is_a_missing_record_but_no_http_error() -> None:
    replay = SavedMissing()
    assert not isinstance(replay, HTTPStatusError)
    assert is_missing(replay) and is_missing(HTTPStatusError(404))
    assert (
        error_message(replay)
        == error_message(HTTPStatusError(404))
        == ("not_found: the requested catalog record does not exist.")
    )
    with (
        pytest.raises(NotFound, match=r"^Task not found: x$"),
        translate_404(NotFound("Task not found: x")),
    ):
        raise replay


def test_the_server_s_refusals_read_as_before() -> None:
    from pwc_local.server.errors import (
        prompt_arguments_message,
        unknown_prompt_message,
        unknown_tool_message,
    )
    from pwc_local.server.framing import OVERSIZED_ANSWER, OVERSIZED_LOCAL_ANSWER
    from pwc_local.server.hygiene import invalid_message
    from pwc_local.server.resources import TRUNCATED, UNKNOWN_RESOURCE

    assert OVERSIZED_ANSWER == (
        "upstream_error: the answer would be larger than the 2 MiB response limit because the "
        "catalog sent unusually large records; ask for fewer rows (a smaller limit) or a "
        "narrower request."
    )
    assert OVERSIZED_LOCAL_ANSWER.startswith(
        "response_too_large: the answer would be larger than the 2 MiB response limit because "
        "of what is stored on this machine"
    )
    assert UNKNOWN_RESOURCE == (
        "not_found: no resource template matches this URI; resources/templates/list names the "
        "templates (percent-encode a reference that contains '/')."
    )
    assert TRUNCATED.startswith("invalid_argument: the paper's Markdown is longer than one")
    assert invalid_message("authors[1]").startswith(
        "invalid_argument: authors[1] is not valid Unicode text (it holds a lone surrogate, "
    )
    assert unknown_tool_message("nope") == (
        "Error executing tool nope: not_found: unknown tool; tools/list names the tools."
    )
    assert unknown_prompt_message("nope") == (
        "not_found: unknown prompt nope; prompts/list names the prompts."
    )
    assert prompt_arguments_message("p", ["b", "a"]) == (
        "invalid_argument: prompt p takes exactly the arguments a, b."
    )


def test_the_library_says_full_or_read_only_by_its_own_code() -> None:
    from pwc_local.common.shelf import LibraryError
    from pwc_local.store.library_db import unwritable_error

    full = unwritable_error("the disk is full", "the library x cannot be written")
    quota = unwritable_error("the disk quota is used up", "m")
    mount = unwritable_error("it is on a read-only file system", "the library x cannot be")
    assert (full.code, quota.code, mount.code) == ("disk_full", "disk_full", "library_read_only")
    assert isinstance(full, LibraryError) and isinstance(mount, LibraryError)
    assert coded_text(full) == "disk_full: the library x cannot be written"


# -- nobody writes a code's text by hand --------------------------------------------------


def _hand_written(source: str, codes: set[str]) -> list[str]:
    """String pieces of `source` (docstrings aside) that spell `<code>: ` or `{…code}: `."""
    # At the start of a text or after another `...: ` (a CLI line's `failed  X: code: `).
    spelled = re.compile(r"(?:^|: )(?:" + "|".join(sorted(codes)) + r"): ")
    tree = ast.parse(source)
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and spelled.search(node.value):
                found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            for before, after in zip(node.values, node.values[1:], strict=False):
                if (
                    isinstance(before, ast.FormattedValue)
                    and ast.unparse(before.value).endswith("code")
                    and isinstance(after, ast.Constant)
                    and str(after.value).startswith(": ")
                ):
                    found.append(ast.unparse(node))
    return found


def test_the_scan_finds_a_hand_written_code() -> None:
    codes = {"not_found", "invalid_argument"}
    assert _hand_written('x = "not_found: gone"', codes)
    assert _hand_written('x = f"failed {ref}: invalid_argument: too long"', codes)
    assert _hand_written('x = f"{exc.code}: {exc.public_message()}"', codes)
    assert not _hand_written('"""`not_found: ...` in a docstring is prose."""', codes)
    assert not _hand_written('x = "Paper not found: 1234"', codes)
    assert not _hand_written('x = "Paper title is ambiguous: A (1)"', {"ambiguous"})


def test_no_module_but_the_composers_writes_code_text() -> None:
    codes = {cls.code for cls in _every_coded_class()}
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in COMPOSERS
        and (found := _hand_written(path.read_text(encoding="utf-8"), codes))
    }
    assert offenders == {}


def test_the_readme_stays_under_450_lines() -> None:
    # A user's document (issue 28): the contributor's material lives in CONTRIBUTING.md.
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < 450, f"README.md has {lines} lines; say it shorter or move it"
