"""The package layering CONTRIBUTING.md draws, checked on every import, lazy ones included.

    cli.py, commands/ -> server/ -> present/, runtime.py -> queries/, store/ -> common/ -> upstream/

The root modules `contract`, `config`, `failures`, `safe_text`, `private_files` and the
package's `__init__` may be imported from anywhere. Read from the source with `ast`, so an
import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pwc_local"

# What each part may import (besides itself and the root modules below).
ALLOWED: dict[str, set[str]] = {
    "upstream": set(),
    "common": {"upstream"},
    "queries": {"common", "upstream"},
    "store": {"common", "upstream"},
    "runtime": {"queries", "store", "common", "upstream"},
    # The presentation of results: query answers in, records and text out (types only).
    "present": {"queries", "common", "upstream"},
    # server/launch.py sets logging up itself, late, off the way to the first answer.
    "server": {"present", "runtime", "queries", "store", "common", "upstream", "logs"},
    "clients": {"store"},
    "doctor": {"clients", "store", "upstream"},
    "logs": set(),
    "commands": {
        "server",
        "present",
        "runtime",
        "queries",
        "store",
        "common",
        "upstream",
        "clients",
        "doctor",
        "logs",
    },
    "cli": {"commands", "server", "logs"},
    # The console script: serving straight to server/launch.py, the rest to cli.py.
    "entry": {"cli", "server"},
    "__main__": {"entry"},
}
ROOT_MODULES = {"contract", "config", "failures", "safe_text", "private_files", "__init__"}


def _part(module: str) -> str:
    """`pwc_local.store.cache` -> `store`; `pwc_local.config` -> `config`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module(path: Path) -> str:
    dotted = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return dotted.removesuffix(".__init__")


MODULES = {_module(path) for path in PACKAGE.rglob("*.py")}


def _imports() -> dict[str, set[str]]:
    """The pwc_local modules each module imports (`from x import y` counts `x`, and
    `x.y` when that is a module)."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        module = _module(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            found[module].update(name for name in names if name in MODULES)
    return found


IMPORTS = _imports()


def test_every_part_imports_only_what_lies_below_it() -> None:
    crossings = sorted(
        f"{module} imports {target}"
        for module, targets in IMPORTS.items()
        for target in targets
        if (part := _part(module)) != (other := _part(target))
        and other not in ROOT_MODULES
        and other not in ALLOWED.get(part, set())
    )
    assert crossings == []


@pytest.mark.parametrize("root", ["contract", "failures", "safe_text", "private_files"])
def test_the_root_modules_import_no_part(root: str) -> None:
    """`contract` must stay readable without the SDK (the bundle build imports it)."""
    targets = {_part(target) for target in IMPORTS[f"pwc_local.{root}"]}
    assert targets <= {"__init__", "failures", "safe_text"}


def test_no_module_cycles() -> None:
    """No module reaches itself through imports, lazy ones included."""
    graph = {module: IMPORTS.get(module, set()) for module in MODULES}
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in graph[module]:
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []
