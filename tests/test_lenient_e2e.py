"""Numeric references through raw JSON-RPC lines, as the MCP Inspector CLI sends them."""

from __future__ import annotations

from tests.stdio_peer import StdioPeer


def _call_line(request_id: int, arguments_json: str) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":'
        f'{{"name":"get_paper_info","arguments":{arguments_json}}}}}\n'
    ).encode()


def test_numbers_for_a_paper_reach_the_paper(raw_peer: StdioPeer) -> None:
    with raw_peer as peer:
        peer.initialize()
        peer.send_raw(_call_line(1, '{"paper":1706.03762}'))  # an arXiv ID as a JSON number
        peer.send_raw(_call_line(2, '{"paper":755}'))  # the numeric catalog ID
        peer.send_raw(_call_line(3, '{"paper":true}'))  # no reference at all
        answers: dict[int, dict] = {}
        while len(answers) < 3:  # in whatever order they finish
            message = peer.next_message()
            if "id" in message and "method" not in message:
                answers[message["id"]] = message["result"]
        by_arxiv, by_id, refused = answers[1], answers[2], answers[3]
        assert by_arxiv.get("isError") is not True, by_arxiv
        assert by_arxiv["structuredContent"]["paper"] == "1706.03762"
        assert by_id["structuredContent"]["paper"] == by_arxiv["structuredContent"]["paper"]
        assert refused["isError"] is True
        assert "invalid_argument: paper must be a string" in refused["content"][0]["text"]
        peer.close_stdin()
        assert peer.finish() == 0
        peer.assert_clean_transcript()
