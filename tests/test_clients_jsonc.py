"""The JSON/JSONC reader and in-place editor behind every JSON client format."""

from __future__ import annotations

import json

import pytest

from pwc_local.clients.errors import ConfigSyntaxError, UnsafeEdit
from pwc_local.clients.jsonc import JsonText, loads

ENTRY = {"command": "/opt/pwc/bin/pwc-mcp-local", "args": []}
PATH = ("mcpServers", "pwc-local")


def roundtrip(text: str, *, comments: bool = False, path: tuple[str, ...] = PATH) -> str:
    """Add ENTRY at `path`, check it is there, remove it again, return the result."""
    newline = "\r\n" if "\r\n" in text else "\n"
    added = JsonText(text, comments=comments, newline=newline).set(path, ENTRY)
    assert JsonText(added, comments=comments).get(path) == ENTRY
    return JsonText(added, comments=comments, newline=newline).remove(path)


# -- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "reason"),
    [
        ('{\n  "a": 1,\n  "b" 2\n}', 3, 7, "expected ':'"),
        ('{\n  "a": [1, 2\n}', 3, 1, "expected ',' or ']'"),
        ('{"a": 1,}', 1, 8, "trailing comma"),
        ('{"a": 1 // note\n}', 1, 9, "comments are not allowed"),
        ('{"a": "line\nbreak"}', 1, 7, "string"),
        ('{"a": 1} extra', 1, 10, "after the end"),
        ("[1, 2]", 1, 1, "top level must be a JSON object"),
        ('{"a": tru}', 1, 7, "unexpected character"),
        ('{"a": 1', 1, 8, "end of file"),
        ("{/* open", 1, 2, "comments are not allowed"),
    ],
)
def test_syntax_errors_give_line_and_column(text: str, line: int, column: int, reason: str):
    with pytest.raises(ConfigSyntaxError) as caught:
        JsonText(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert reason in caught.value.reason


def test_jsonc_accepts_comments_and_trailing_commas_but_not_unterminated_comments():
    text = '// top\n{\n  "a": [1, 2,], /* inline */\n  "b": {"c": true,},\n}\n'
    assert loads(text, comments=True) == {"a": [1, 2], "b": {"c": True}}
    with pytest.raises(ConfigSyntaxError, match="unterminated"):
        loads('{"a": 1 /* never closed\n}', comments=True)


def test_values_match_the_standard_parser():
    text = json.dumps(
        {"s": 'é \\ " \u0001 \ud83d\ude00', "n": [-0.5e3, 0, 12], "t": [True, False, None]}
    )
    assert loads(text) == json.loads(text)


def test_absurd_nesting_is_an_error_not_a_crash():
    with pytest.raises(ConfigSyntaxError, match="nested deeper"):
        loads('{"a": ' + "[" * 5000 + "]" * 5000 + "}")


def test_empty_or_comment_only_documents_are_empty_objects():
    assert JsonText("").value == {}
    assert JsonText("  \n").value == {}
    assert JsonText("// nothing yet\n", comments=True).value == {}


# -- edits keep every other byte ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "mcpServers": {\n    "other": {"command": "a"}\n  }\n}\n',
        '{\n    "theme": "dark",\n    "mcpServers": {\n        "x": {"command": "y"},\n'
        '        "z": {"command": "w"}\n    }\n}\n',
        '{\n\t"numbers": [1, 2],\n\t"mcpServers": {\n\t\t"x": {}\n\t}\n}',
        '{"compact": true, "mcpServers": {"x": {"command": "y"}}}',
        '{\r\n  "mcpServers": {\r\n    "x": {"command": "y"}\r\n  }\r\n}\r\n',
    ],
)
def test_add_then_remove_restores_the_original_bytes(text: str):
    assert roundtrip(text) == text


COMMENTS = (
    "// Zed settings",
    "// my favourite",
    "/* block\n     comment */",
    "// why x",
    "// trailing comma habit",
    "// last one",
    "// nothing here yet",
)


@pytest.mark.parametrize(
    "text",
    [
        '// Zed settings\n{\n  "theme": "One Dark", // my favourite\n  /* block\n     comment */\n'
        '  "context_servers": {\n    "other": {\n      "command": "x", // why x\n    },'
        " // trailing comma habit\n  },\n}\n",
        '{\n  "context_servers": {\n    "other": {"command": "x"} // last one\n  }\n}\n',
        '{\n  "context_servers": {\n    // nothing here yet\n  }\n}\n',
    ],
)
def test_comments_survive_add_and_remove(text: str):
    path = ("context_servers", "pwc-local")
    added = JsonText(text, comments=True).set(path, ENTRY)
    for comment in COMMENTS:
        assert (comment in text) == (comment in added)
    assert roundtrip(text, comments=True, path=path) == text


def test_adding_after_a_line_comment_does_not_end_up_inside_it():
    text = '{\n  "servers": {\n    "x": 1 // keep\n  }\n}'
    added = JsonText(text, comments=True).set(("servers", "new"), 2)
    assert '"x": 1, // keep' in added
    assert loads(added, comments=True) == {"servers": {"x": 1, "new": 2}}


def test_missing_container_is_created_with_the_file_indentation():
    text = '{\n    "theme": "dark"\n}\n'
    added = JsonText(text).set(PATH, ENTRY)
    assert added.startswith('{\n    "theme": "dark",\n    "mcpServers": {\n        "pwc-local": {')
    assert json.loads(added) == {"theme": "dark", "mcpServers": {"pwc-local": ENTRY}}


def test_replacing_an_entry_touches_only_its_value():
    text = '{\n  "mcpServers": {\n    "pwc-local": {"command": "old"},\n    "b": {}\n  }\n}\n'
    changed = JsonText(text).set(PATH, ENTRY)
    before, after = text.split('{"command": "old"}')
    assert changed.startswith(before) and changed.endswith(after)


def test_fresh_document():
    assert json.loads(JsonText("").set(PATH, ENTRY)) == {"mcpServers": {"pwc-local": ENTRY}}
    kept = JsonText("// header\n", comments=True).set(PATH, ENTRY)
    assert kept.startswith("// header\n{")


def test_removing_the_only_member_leaves_an_empty_object():
    text = '{\n  "mcpServers": {\n    "pwc-local": {"command": "x"}\n  }\n}\n'
    assert JsonText(text).remove(PATH) == '{\n  "mcpServers": {}\n}\n'


def test_removing_an_absent_member_changes_nothing():
    text = '{"mcpServers": {"x": 1}}'
    assert JsonText(text).remove(PATH) == text
    assert JsonText('{"a": 1}').remove(PATH) == '{"a": 1}'


# -- shapes we refuse to touch -----------------------------------------------------------


def test_a_container_that_is_not_an_object_is_refused():
    with pytest.raises(UnsafeEdit, match="'mcpServers' is not a JSON object"):
        JsonText('{"mcpServers": ["x"]}').set(PATH, ENTRY)


def test_duplicate_keys_are_refused_for_removal():
    text = '{"mcpServers": {"pwc-local": 1, "pwc-local": 2}}'
    assert JsonText(text).get(PATH) == 2  # the last one counts, as in JSON.parse
    with pytest.raises(UnsafeEdit, match="appears 2 times"):
        JsonText(text).remove(PATH)
