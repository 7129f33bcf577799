"""The floor of a first answer: a bare Python process that answers each JSON line.

No MCP, no imports beyond `json` and `sys`: what spawning an interpreter and
answering one line costs on this machine. `first_answer.py` sets our server's
first answers against it, and against the bare SDK server (`bare.py`).
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
