"""The paste-ready snippets in install/snippets match what `install` writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pwc_local.clients.entry import ServerEntry
from pwc_local.clients.installer import ConfigDocument
from pwc_local.clients.targets import TARGETS

SNIPPETS = Path(__file__).resolve().parent.parent / "install" / "snippets"
PLACEHOLDER = "/ABSOLUTE/PATH/TO/pwc-mcp-local"
FILES = {
    "claude-desktop": "claude-desktop.json",
    "claude-code": "claude-code.json",
    "vscode": "vscode.json",
    "cursor": "cursor.json",
    "windsurf": "windsurf.json",
    "codex": "codex.toml",
    "zed": "zed.json",
    "gemini": "gemini.json",
    "opencode": "opencode.json",
    "cline": "cline.json",
    "lmstudio": "lmstudio.json",
    "copilot": "copilot.json",
    "goose": "goose.yaml",
}


def test_there_is_a_snippet_for_every_client():
    assert set(FILES) == set(TARGETS)


@pytest.mark.parametrize("client_id", list(FILES))
def test_snippet_is_what_install_writes_into_an_empty_file(client_id: str):
    target = TARGETS[client_id]
    expected = ConfigDocument(target, None).with_entry(
        "pwc-local", target.render(ServerEntry(PLACEHOLDER))
    )
    assert (SNIPPETS / FILES[client_id]).read_text(encoding="utf-8") == expected
