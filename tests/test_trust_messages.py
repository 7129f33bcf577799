"""Messages carry no planted bytes and blame the right thing (issue 28, "Trust").

* A terminal escape in a caller's reference (or a catalog name) never comes back in
  an error sentence: `failures.coded_text`, the one place a `code: sentence` is
  composed, passes the sentence through `safe_text.one_line`.
* `PWC_API_URL` with a control character (what httpx refuses as `InvalidURL`)
  fails the settings check, naming the setting, wherever settings are checked.
* `install --env NAME=VALUE` with a value the server refuses names `--env`, not
  "environment".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.installed import InstalledServer, error_of

ESCAPE = "\x1b]0;PWNED\x07"
BAD_URL = 'http://127.0.0.1:9/a"b\nc'


def _clean(text: str) -> bool:
    return "\x1b" not in text and "\x07" not in text and "\x9b" not in text


def test_an_escape_in_a_benchmark_name_never_reaches_the_terminal(
    cli: Callable[..., Result],
) -> None:
    added = cli("watch", "add", "benchmark", ESCAPE)
    # Whatever `watch add` decides, it prints no escape ...
    assert _clean(added.output), added.output
    called = cli("call", "get_benchmark", f"benchmark=imagenet{ESCAPE}")
    # ... and the not-found line of `call` has the text without it.
    assert called.exit_code == 1, called.output
    assert "not_found" in called.output and "PWNED" not in called.output
    assert _clean(called.output), repr(called.output)


@pytest.mark.anyio
async def test_the_task_not_found_message_over_mcp_has_no_escape(
    installed_server: InstalledServer,
) -> None:
    async with installed_server.session() as session:
        text = await error_of(session, "get_task", task=f"no-such-task{ESCAPE}\x9b2J")
    assert text.split(": ", 1)[1].startswith("not_found: Task not found: no-such-task"), text
    assert _clean(text), repr(text)


def test_coded_text_strips_escapes_from_any_error_sentence() -> None:
    from pwc_local.failures import coded_text
    from pwc_local.upstream.errors import NotFound

    text = coded_text(NotFound(f"Benchmark not found: a{ESCAPE}b\nc  d"))
    assert text == "not_found: Benchmark not found: ab c  d"


# -- PWC_API_URL that httpx would refuse --------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        BAD_URL,
        "http://example.com/a\tb",
        "http://exa\x7fmple.com/",
        "http://a b.example/",
        "http://1.2.3.999/",
        "http://\u2764.example/",
    ],
)
def test_an_api_url_httpx_refuses_fails_the_settings_check(url: str) -> None:
    import httpx

    from pwc_local.config import ConfigError, load_settings

    if " " not in url:  # httpx takes a space; the catalog's URL never has one
        with pytest.raises(httpx.InvalidURL):
            httpx.URL(url)
    with pytest.raises(ConfigError, match="invalid api_url from environment PWC_API_URL"):
        load_settings(environ={"PWC_API_URL": url})


@pytest.mark.e2e
def test_serve_refuses_an_api_url_with_a_newline(tmp_path: Path) -> None:
    server = InstalledServer(tmp_path, BAD_URL)
    done = server.command("serve", input="")
    assert done.returncode == 2, done.stderr
    assert "invalid api_url from environment PWC_API_URL" in done.stderr
    assert done.stdout == ""


def test_install_refuses_an_api_url_with_a_newline(cli: Callable[..., Result]) -> None:
    result = cli("install", "print", "--env", f"PWC_API_URL={BAD_URL}")
    assert result.exit_code == 2, result.output
    assert "--env PWC_API_URL" in result.output
    assert "control character" in result.output


@pytest.mark.e2e  # doctor's self-test starts the server
def test_doctor_reports_an_api_url_with_a_newline(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PWC_API_URL", BAD_URL)
    result = cli("doctor", "--offline", "--json")
    assert "invalid api_url from environment PWC_API_URL" in result.output, result.output


# -- install --env blames --env --------------------------------------------------------------


def test_install_env_value_out_of_range_blames_the_env_option(
    cli: Callable[..., Result],
) -> None:
    result = cli("install", "print", "--env", "PWC_MCP_LOCAL_TIMEOUT=9999")
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "invalid timeout from --env PWC_MCP_LOCAL_TIMEOUT: '9999'" in flat, flat
    assert "from environment" not in flat
