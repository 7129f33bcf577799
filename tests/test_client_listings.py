"""benchmarks/client_listings.py reads each client's listing as the client prints it.

The samples are the listings Claude Code 2.1.332, Gemini CLI 0.61.0, Codex 0.171.0,
opencode 1.18.33 and Copilot CLI 1.0.102 printed in the benchmark's run (paths
shortened), so a change in a client's wording shows up here first, not as a wrong
row in docs/benchmarks.md.
"""

from __future__ import annotations

import pytest

from benchmarks.client_listings import agreement, state_in

CLAUDE = (
    "Checking MCP server health…\n\n"
    "pwc-broken: /nonexistent/bin/pwc-mcp-local  - ✘ Failed to connect — ENOENT: no such file\n"
    "pwc-local: /v/bin/pwc-mcp-local  - ✔ Connected\n"
)
GEMINI = (
    "Configured MCP servers:\n\n"
    "✗ pwc-broken: /nonexistent/bin/pwc-mcp-local  (stdio) - Disconnected\n"
    "✓ pwc-local: /v/bin/pwc-mcp-local  (stdio) - Connected\n"
)
GEMINI_UNTRUSTED = (
    "Warning: MCP servers are configured but disabled because this folder is untrusted.\n\n"
    "○ pwc-local: /v/bin/pwc-mcp-local  (stdio) - Disabled\n"
)
CODEX = (
    "Name        Command                         Args  Env  Cwd  Status   Auth\n"
    "pwc-broken  /nonexistent/bin/pwc-mcp-local  -     -    -    enabled  Unsupported\n"
    "pwc-local   /v/bin/pwc-mcp-local            -     -    -    enabled  Unsupported\n"
)
OPENCODE = (
    "┌  MCP Servers\n│\n●  ✗ pwc-broken \x1b[90mfailed\n│      ENOENT: no such file\n"
    "│      \x1b[90m/nonexistent/bin/pwc-mcp-local\n│\n●  ✓ pwc-local \x1b[90mconnected\n"
    "│      \x1b[90m/v/bin/pwc-mcp-local\n│\n└  2 server(s)\n"
)
COPILOT = (
    '{"mcpServers": {"pwc-local": {"tools": ["*"], "type": "local", '
    '"command": "/v/bin/pwc-mcp-local", "args": [], "source": "user", "enabled": true}}}'
)


@pytest.mark.parametrize(
    ("key", "listing", "good", "broken"),
    [
        ("claude-code", CLAUDE, "Connected", "Failed to connect"),
        ("gemini", GEMINI, "Connected", "Disconnected"),
        ("gemini", GEMINI_UNTRUSTED, "Disabled", "not listed"),
        ("codex", CODEX, "listed, enabled", "listed, enabled"),
        ("opencode", OPENCODE, "connected", "failed"),
        ("copilot", COPILOT, "listed, enabled", "not listed"),
    ],
)
def test_each_clients_state_is_read_from_its_listing(key, listing, good, broken):
    assert state_in(listing, "pwc-local", key) == good
    assert state_in(listing, "pwc-broken", key) == broken


def test_agreement_compares_only_where_the_client_starts_the_entry():
    assert agreement("Connected", "ok: started", True, "pwc-local") == "yes"
    assert agreement("Failed to connect", "fail: does not exist", True, "pwc-broken") == "yes"
    assert agreement("Connected", "fail: does not exist", True, "pwc-local") == "no"
    assert agreement("listed, enabled", "ok: started", False, "pwc-local").startswith("client only")
    disabled = agreement("Disabled", "ok: started (+ trust note)", True, "pwc-local")
    assert disabled == "doctor's trust note explains"
