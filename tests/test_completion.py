"""`pwc-mcp-local completion bash|zsh|fish`: click's completion script (bash's with no
space after `name=`), reachable by a name, and working: the bash script is loaded into
a real bash, which completes a subcommand, an option of `uninstall`, a client name, tool
names and parameters, saved papers and watch targets by calling the installed command
back, as a Tab press would."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.fake_catalog import FakeCatalog
from tests.installed import EXECUTABLE, InstalledServer


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # Not `installed_server.command`: the shell's environment, less click's completion
    # variables, plus the ones a test gives; no home of its own is needed.
    environ = {k: v for k, v in os.environ.items() if not k.startswith("_PWC_")}
    return subprocess.run(
        [str(EXECUTABLE), *args],
        capture_output=True,
        text=True,
        env={**environ, **env},
        timeout=60,
        check=False,
    )


@pytest.mark.e2e
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_is_clicks_own(shell: str):
    printed = _run("completion", shell)
    assert printed.returncode == 0, printed.stderr
    assert "_PWC_MCP_LOCAL_COMPLETE" in printed.stdout
    assert printed.stdout == _run(_PWC_MCP_LOCAL_COMPLETE=f"{shell}_source").stdout


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_options_and_clients():
    script = _run("completion", "bash").stdout

    def completions(*words: str) -> list[str]:
        # What bash does on Tab: set COMP_WORDS / COMP_CWORD, call the function the
        # script registered, read COMPREPLY.
        program = f"""
{script}
COMP_WORDS=({" ".join(words)})
COMP_CWORD={len(words) - 1}
_pwc_mcp_local_completion {EXECUTABLE}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
        result = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", program],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert completions("pwc-mcp-local", "compl") == ["completion"]
    assert "--all" in completions("pwc-mcp-local", "uninstall", "--a")
    assert completions("pwc-mcp-local", "install", "claude-d") == ["claude-desktop"]


def _bash_completions(script: str, env: dict[str, str], *words: str) -> list[str]:
    """What bash offers on Tab after `words` (the last one being typed), as a user's shell."""
    program = f"""
{script}
COMP_WORDS=({" ".join(f"'{word}'" for word in words)})
COMP_CWORD={len(words) - 1}
_pwc_mcp_local_completion {EXECUTABLE} 2>/dev/null
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    environ = {k: v for k, v in env.items() if not k.startswith("_PWC_")}
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.split("\n") if line]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_tools_parameters_saved_papers_and_watch_targets(
    installed_server: InstalledServer, fake_catalog: FakeCatalog
) -> None:
    script = _run("completion", "bash").stdout
    assert "compopt -o nospace" in script  # `max_bytes=` takes its value with no space

    def tab(*words: str) -> list[str]:
        return _bash_completions(script, installed_server.env, "pwc-mcp-local", *words)

    database = installed_server.library_dir / "library.sqlite3"
    assert tab("library", "remove", "") == [] and not database.exists()  # nothing created
    assert tab("call", "get_paper_o") == ["get_paper_outline"]
    assert tab("call", "read_paper_section", "max") == ["max_bytes="]
    # bash splits `paper=1` at the `=`: a given parameter is not offered again.
    assert tab("call", "read_paper_section", "paper", "=", "1", "") == [
        "section=",
        "max_bytes=",
    ]
    added = installed_server.command("library", "add", "1706.03762")
    assert added.returncode == 0, added.stderr
    watched = installed_server.command("watch", "add", "query", "vision", "transformer")
    assert watched.returncode == 0, watched.stderr
    requests = len(fake_catalog.requests)

    assert tab("library", "remove", "") == ["1706.03762"]
    assert tab("library", "remove", "atten") == ["1706.03762"]  # a word of its title
    assert tab("library", "remove", "99") == []
    assert tab("watch", "remove", "query", "vis") == ["vision transformer"]
    assert tab("watch", "remove", "query", "vision", "tr") == ["transformer"]
    assert tab("watch", "remove", "benchmark", "") == []
    assert len(fake_catalog.requests) == requests  # no Tab asks the catalog


@pytest.mark.e2e
def test_an_unknown_shell_is_a_usage_error():
    result = _run("completion", "tcsh")
    assert result.returncode == 2
    assert "bash" in result.stderr and "zsh" in result.stderr
