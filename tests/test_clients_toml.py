"""Codex `config.toml`: only our `[mcp_servers.NAME]` tables change."""

from __future__ import annotations

import sys

import pytest

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit
from pwc_local.clients.tomltables import TomlText, loads, render_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PREFIX = ("mcp_servers",)
ENTRY = {
    "command": "C:\\Users\\Zoë\\pipx\\pwc-mcp-local.exe",
    "args": ["-m", 'pwc_"local"'],
    "env": {"PWC_API_URL": "http://127.0.0.1:9/api/v1", "ODD KEY": "tab\there\x7f"},
}

CONFIG = """# Codex settings
model = "o3"
approval_policy = "on-request"

[mcp_servers.other]
command = "npx"
args = [
  "[this line is not a header]",
  '''[nor this]''',
]

[mcp_servers.other.env]
TOKEN = "x"

# profiles below
[profiles.fast]
model = "o4-mini"
"""


def test_rendered_table_parses_back_to_the_entry():
    text = render_table((*PREFIX, "pwc-local"), ENTRY)
    assert tomllib.loads(text) == {"mcp_servers": {"pwc-local": ENTRY}}
    assert text.startswith("[mcp_servers.pwc-local]\n")
    assert "\n[mcp_servers.pwc-local.env]\n" in text


def test_append_then_remove_restores_the_original_bytes():
    added = TomlText(CONFIG).set_table(PREFIX, "pwc-local", ENTRY)
    assert added.startswith(CONFIG)
    assert tomllib.loads(added)["mcp_servers"]["pwc-local"] == ENTRY
    assert TomlText(added).remove_table(PREFIX, "pwc-local") == CONFIG


def test_replacing_keeps_surrounding_text_and_removes_stale_subtables():
    text = (
        '[mcp_servers.pwc-local]\ncommand = "old"\n\n'
        '[mcp_servers.pwc-local.env]\nOLD = "1"\n\n'
        '# about the next one\n[mcp_servers.next]\ncommand = "n"\n'
    )
    changed = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "new", "args": []})
    assert changed == (
        '[mcp_servers.pwc-local]\ncommand = "new"\nargs = []\n\n'
        '# about the next one\n[mcp_servers.next]\ncommand = "n"\n'
    )


def test_a_fresh_file():
    added = TomlText("").set_table(PREFIX, "pwc-local", ENTRY)
    assert tomllib.loads(added) == {"mcp_servers": {"pwc-local": ENTRY}}
    assert TomlText(added).remove_table(PREFIX, "pwc-local") == ""


def test_crlf_files_keep_crlf():
    text = 'model = "o3"\r\n'
    added = TomlText(text, newline="\r\n").set_table(PREFIX, "x", {"command": "c"})
    assert "\n" not in added.replace("\r\n", "")
    assert TomlText(added, newline="\r\n").remove_table(PREFIX, "x") == text


def test_headers_inside_multiline_strings_are_not_tables():
    text = 'note = """\n[mcp_servers.pwc-local]\ncommand = "fake"\n"""\n'
    added = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "real"})
    assert added.startswith(text)
    assert tomllib.loads(added)["note"] == '[mcp_servers.pwc-local]\ncommand = "fake"\n'


def test_unicode_line_separators_inside_strings_do_not_start_tables():
    # TOML lines end at \n only; U+2028 and U+0085 are ordinary characters in a string.
    text = '[mcp_servers.pwc-local]\ncommand = "old"\nnote = "a\u2028[b]\x85[c]"\n'
    replaced = TomlText(text).set_table(PREFIX, "pwc-local", {"command": "new"})
    assert tomllib.loads(replaced) == {"mcp_servers": {"pwc-local": {"command": "new"}}}


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers = { pwc-local = { command = "x" } }\n',
        '[mcp_servers]\npwc-local.command = "x"\n',
    ],
)
def test_forms_we_cannot_rewrite_are_refused(text: str):
    with pytest.raises(UnsafeEdit, match="edit the file by hand"):
        TomlText(text).set_table(PREFIX, "pwc-local", {"command": "y"})


def test_syntax_errors_carry_line_and_column():
    with pytest.raises(ConfigSyntaxError) as caught:
        loads('model = "o3"\n[mcp_servers.x]\ncommand = \n')
    assert (caught.value.line, caught.value.column) == (3, 11)
    with pytest.raises(ConfigSyntaxError) as caught:
        loads('model = "unterminated')
    assert caught.value.line == 1
