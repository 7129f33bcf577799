"""install/install.sh run for real against a temporary home directory.

Only pipx is replaced (it would download packages): the stand-in records its
arguments and "installs" by linking the already installed `pwc-mcp-local` into
`PIPX_BIN_DIR`, as pipx links its scripts. Everything after that is real: the
script runs `pwc-mcp-local install CLIENT` and `pwc-mcp-local doctor --offline`,
which starts the server for its self-test. `PATH` holds only the stand-ins, so the
script can rely on nothing but the shell's built-ins and what it installs.

The doctor runs for real in the first run of the first test. Elsewhere
(`Sandbox(..., real_doctor=False)`, or `STUB_DOCTOR=1` before a run) the
`pwc-mcp-local` that pipx "installs" is a wrapper that runs the real one for
`install` and only records a `doctor` call: each real doctor starts an MCP client
and two servers, about 5 s of CPU.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installed import EXECUTABLE

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(os.name != "posix", reason="POSIX shell script"),
]

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "install" / "install.sh"
INSTALLED = EXECUTABLE  # the suite runs where the project is installed (tests/installed.py)

# One stand-in program; it behaves as pipx or as python3 depending on its name.
STANDIN = """#!{python}
import json, os, shutil, sys

REAL_PYTHON = {python!r}
INSTALLED = {installed!r}
# The console script pipx would link, except that `doctor` is only recorded.
DOCTOR_STANDIN = f'''#!{{REAL_PYTHON}}
import json, os, sys
if sys.argv[1:2] == ["doctor"]:
    with open(os.environ["STUB_LOG"], "a") as log:
        log.write(json.dumps(["pwc-mcp-local", "doctor"]) + "\\\\n")
    print("stand-in doctor: All good.")
    sys.exit(0)
from pwc_local.cli import main
sys.exit(main())
'''
name = os.path.basename(sys.argv[0])
args = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps([name, *args]) + "\\n")


def pipx(args):
    bin_dir = os.environ["PIPX_BIN_DIR"]
    if args == ["--version"]:
        print("1.7.1")
        return 0
    if args == ["environment", "--value", "PIPX_BIN_DIR"]:
        print(bin_dir)
        return 0
    if args[:2] == ["install", "--force"] and len(args) == 3:
        os.makedirs(bin_dir, exist_ok=True)
        link = os.path.join(bin_dir, "pwc-mcp-local")
        if os.path.lexists(link):
            os.unlink(link)
        if os.environ.get("STUB_DOCTOR") == "1":
            with open(link, "w") as wrapper:
                wrapper.write(DOCTOR_STANDIN)
            os.chmod(link, 0o755)
        else:
            os.symlink(INSTALLED, link)
        return 0
    print("stand-in pipx: unexpected arguments", args, file=sys.stderr)
    return 2


if name == "pipx":
    sys.exit(pipx(args))
# An "externally managed" system Python (PEP 668), as on Debian 12, when asked to be.
managed = os.environ.get("STUB_EXTERNALLY_MANAGED") == "1" and name == "python3"
if args[:1] == ["-c"] and "EXTERNALLY-MANAGED" in args[1]:
    sys.exit(0 if managed else 1)
if managed and args[:3] == ["-m", "pip", "install"]:
    print("error: externally-managed-environment", file=sys.stderr)
    sys.exit(1)
if args[:2] == ["-m", "venv"] and len(args) == 3:
    # A virtual environment: its python is this same stand-in.
    os.makedirs(os.path.join(args[2], "bin"), exist_ok=True)
    shutil.copy(__file__, os.path.join(args[2], "bin", "python"))
    sys.exit(0)
if name == "python" and args == ["-m", "pip", "install", "--quiet", "pipx"]:
    shutil.copy(__file__, os.path.join(os.path.dirname(sys.argv[0]), "pipx"))
    sys.exit(0)
marker = os.environ["STUB_PIPX_MARKER"]
if args == ["-m", "pip", "install", "--user", "pipx"]:
    open(marker, "w").close()
    sys.exit(0)
if args[:2] == ["-m", "pipx"]:
    if not os.path.exists(marker):
        print("No module named pipx", file=sys.stderr)
        sys.exit(1)
    sys.exit(pipx(args[2:]))
os.execv(REAL_PYTHON, [REAL_PYTHON, *args])
"""


class Sandbox:
    def __init__(
        self, tmp_path: Path, tools: tuple[str, ...], *, real_doctor: bool = True, **env: str
    ) -> None:
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.tools = tmp_path / "tools"
        self.tools.mkdir()
        self.log = tmp_path / "calls.log"
        self.bin_dir = self.home / ".local" / "bin"
        source = STANDIN.format(python=sys.executable, installed=str(INSTALLED))
        for tool in tools:
            path = self.tools / tool
            path.write_text(source)
            path.chmod(0o755)
        self.env = {
            "HOME": str(self.home),
            "PATH": str(self.tools),
            "PIPX_BIN_DIR": str(self.bin_dir),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "STUB_LOG": str(self.log),
            "STUB_PIPX_MARKER": str(tmp_path / "pipx-installed"),
            "STUB_DOCTOR": "0" if real_doctor else "1",
            **env,
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["/bin/sh", str(SCRIPT), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    @property
    def desktop_config(self) -> Path:
        return self.home / ".config" / "Claude" / "claude_desktop_config.json"


def test_installs_registers_and_checks_and_is_safe_to_run_twice(tmp_path: Path):
    box = Sandbox(tmp_path, ("pipx",))
    first = box.run("--from", str(ROOT), "claude-desktop")
    assert first.returncode == 0, first.stdout + first.stderr
    entry = json.loads(box.desktop_config.read_text())["mcpServers"]["pwc-local"]
    assert entry == {"command": str(box.bin_dir / "pwc-mcp-local"), "args": []}
    # doctor --offline ran: the self-test started the server, the catalog was skipped.
    assert "self-test" in first.stdout and "skip  catalog" in first.stdout
    assert "All good." in first.stdout
    # doctor made the cache directory before any server did: it is private all the same.
    assert (box.home / ".cache" / "pwc-mcp-local").stat().st_mode & 0o777 == 0o700
    written = box.desktop_config.read_bytes()

    box.env["STUB_DOCTOR"] = "1"  # the doctor has been seen for real; now only its call
    second = box.run("--from", str(ROOT), "claude-desktop")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to do" in second.stdout
    assert box.desktop_config.read_bytes() == written
    installs = [call for call in box.calls() if "install" in call]
    assert installs == [["pipx", "install", "--force", str(ROOT)]] * 2
    assert box.calls()[-1] == ["pwc-mcp-local", "doctor"]


def test_a_different_entry_says_how_to_replace_it_and_doctor_still_runs(tmp_path: Path):
    box = Sandbox(tmp_path, ("pipx",), real_doctor=False)
    assert box.run("--from", str(ROOT), "claude-desktop").returncode == 0
    written = box.desktop_config.read_bytes()
    other = box.run(
        "--from", str(ROOT), "claude-desktop", "--env", "PWC_API_URL=http://127.0.0.1:9/api/v1"
    )
    assert other.returncode == 1, other.stdout + other.stderr
    assert box.desktop_config.read_bytes() == written
    assert (
        f"install.sh: the claude-desktop entry was not written (above: why); to replace a "
        f"different entry, run: sh {SCRIPT} --from {ROOT} claude-desktop --force --env "
        "PWC_API_URL=http://127.0.0.1:9/api/v1"
    ) in other.stderr
    assert box.calls()[-1] == ["pwc-mcp-local", "doctor"]  # checked all the same


def test_installs_pipx_with_the_users_python_when_missing(tmp_path: Path):
    box = Sandbox(tmp_path, ("python3",), real_doctor=False)
    result = box.run(
        "--from", str(ROOT), "cursor", "--env", "PWC_API_URL=http://127.0.0.1:9/api/v1"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    calls = [call for call in box.calls() if call[1:2] == ["-m"]]
    assert ["python3", "-m", "pip", "install", "--user", "pipx"] in calls
    assert ["python3", "-m", "pipx", "install", "--force", str(ROOT)] in calls
    assert calls.index(["python3", "-m", "pip", "install", "--user", "pipx"]) < calls.index(
        ["python3", "-m", "pipx", "install", "--force", str(ROOT)]
    )
    cursor = json.loads((box.home / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["pwc-local"]["env"] == {"PWC_API_URL": "http://127.0.0.1:9/api/v1"}
    assert box.calls()[-1] == ["pwc-mcp-local", "doctor"]


def test_externally_managed_python_gets_a_private_pipx_venv(tmp_path: Path):
    box = Sandbox(tmp_path, ("python3",), real_doctor=False, STUB_EXTERNALLY_MANAGED="1")
    venv = box.home / ".local" / "share" / "pwc-mcp-local" / "pipx-venv"

    first = box.run("--from", str(ROOT), "claude-desktop")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "externally managed" in first.stderr and str(venv) in first.stderr
    assert (venv / "bin" / "pipx").is_file()
    assert box.desktop_config.exists()
    second = box.run("--from", str(ROOT), "claude-desktop")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to do" in second.stdout

    calls = box.calls()
    flat = [arg for call in calls for arg in call]
    assert "--break-system-packages" not in flat
    assert ["python3", "-m", "pip", "install", "--user", "pipx"] not in calls
    # One environment, made once, and its pipx installs the package both times.
    assert calls.count(["python3", "-m", "venv", str(venv)]) == 1
    assert calls.count(["python", "-m", "pip", "install", "--quiet", "pipx"]) == 1
    assert calls.count(["pipx", "install", "--force", str(ROOT)]) == 2
    assert calls.count(["pwc-mcp-local", "doctor"]) == 2


def test_without_pipx_or_python_it_stops_with_advice(tmp_path: Path):
    box = Sandbox(tmp_path, ())
    result = box.run("claude-desktop")
    assert result.returncode == 1
    assert "no Python 3.10+" in result.stderr
    assert not box.desktop_config.exists()


def test_without_a_client_it_installs_and_checks_only(tmp_path: Path):
    box = Sandbox(tmp_path, ("pipx",), real_doctor=False)
    result = box.run("--from", str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "register later with" in result.stderr
    assert not box.desktop_config.exists()
    assert box.calls()[-1] == ["pwc-mcp-local", "doctor"]


def test_unknown_option(tmp_path: Path):
    result = Sandbox(tmp_path, ("pipx",)).run("--frm", "x")
    assert result.returncode == 1
    assert "unknown option --frm" in result.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_shellcheck_is_clean():
    result = subprocess.run(
        ["shellcheck", "--shell=sh", str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout
