"""A misbehaving ACP agent on stdio, for the example client's end-to-end tests.

    python tests/hostile_agent.py BEHAVIOUR

It answers `initialize` and `session/new` properly unless the behaviour is about them, then
misbehaves as told. Plain JSON on purpose: it must be able to say what no library would.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

OUT = sys.stdout.buffer


def write(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def send(message: Any) -> None:
    write(json.dumps(message).encode() + b"\n")


def update(session_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": body},
    }


BEFORE_INIT = {
    "exit": lambda: sys.exit(0),
    "garbage": lambda: (write(b"hello there\n\xff\xfe\n{not json\n"), sys.exit(0)),
    "silence": lambda: time.sleep(3600),
    "endless-line": lambda: (
        write(b'{"jsonrpc":"2.0","id":0,"result":"' + b"x" * 1_000_000),
        sys.exit(0),
    ),
    "null": lambda: (write(b"null\n[]\n[[1]]\n"), sys.exit(0)),
}


def main() -> None:
    behaviour = sys.argv[1]
    if behaviour in BEFORE_INIT:
        BEFORE_INIT[behaviour]()
    session = "sess_h"
    for line in sys.stdin:
        message = json.loads(line)
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            if behaviour == "init-error":
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "no"}})
            elif behaviour == "init-v1":
                send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1}})
            elif behaviour == "wrong-id":
                send({"jsonrpc": "2.0", "id": "not-yours", "result": {}})
                send({"jsonrpc": "2.0", "method": "_x/note"})
            else:
                result = {"protocolVersion": 2, "info": {"name": "h", "version": "0"}}
                send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "session/new":
            if behaviour == "new-error":
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": "auth"}})
            elif behaviour == "new-no-id":
                send({"jsonrpc": "2.0", "id": rid, "result": {}})
            else:
                send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": session}})
        elif method == "session/prompt":
            if behaviour == "reject-prompts":
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "no"}})
                continue
            if behaviour == "other-session":
                send(
                    update(
                        "sess_other",
                        {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": "m",
                            "content": {"type": "text", "text": "x"},
                        },
                    )
                )
            elif behaviour == "unknown-request":
                send({"jsonrpc": "2.0", "id": 99, "method": "fs/read", "params": {}})
                send({"jsonrpc": "2.0", "id": 98, "method": "_x/ask", "params": {}})
            elif behaviour == "foreign-permission":
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": 97,
                        "method": "session/request_permission",
                        "params": {
                            "sessionId": "sess_other",
                            "title": "t",
                            "options": [{"optionId": "a", "name": "A", "kind": "allow_once"}],
                        },
                    }
                )
            elif behaviour == "bad-update":
                send(update(session, {"sessionUpdate": "tool_call_update"}))
                send(update(session, {"sessionUpdate": "state_update", "state": 5}))
            elif behaviour == "batch":
                send([update(session, {"sessionUpdate": "state_update", "state": "running"}), 7])
            elif behaviour == "crash-mid-turn":
                send({"jsonrpc": "2.0", "id": rid, "result": {}})
                send(update(session, {"sessionUpdate": "state_update", "state": "running"}))
                sys.exit(1)
            elif behaviour == "never-idle":
                send({"jsonrpc": "2.0", "id": rid, "result": {}})
                send(
                    update(
                        session,
                        {
                            "sessionUpdate": "user_message",
                            "messageId": "u",
                            "content": message["params"]["prompt"],
                        },
                    )
                )
                send(update(session, {"sessionUpdate": "state_update", "state": "running"}))
                continue
            sys.exit(0)


if __name__ == "__main__":
    main()
