"""The echo agent of `stdio_agent.py`, hosted on the official Python SDK's JSON-RPC connection.

Shows how acp-core sits under a connection you already have: the SDK
(`pip install agent-client-protocol`, import `acp`) keeps the framing, request ids and
response matching; acp-core's engine keeps the protocol. The glue is `SdkChannel`, which
gives the engine-driven agent the `receive()`/`send()` it expects:

- an incoming request becomes a wire dict under a local id; the handler the SDK awaits
  returns when the engine's response for that id is sent;
- an outgoing request of the engine (`session/request_permission`) goes out through
  `send_request`; its answer comes back to the engine as a response under the engine's id;
- notifications pass straight through.

    python examples/stdio_client.py -- python examples/sdk_agent.py
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import stdio_streams
from ndjson import TraceFile
from revision_flag import add_revision_flag, chosen_revision
from stdio_agent import EchoAgent

INTERNAL_ERROR = -32603


class SdkChannel:
    """`receive()`/`send()` of wire dicts over an SDK `Connection`."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.answers: dict[str, asyncio.Future[Any]] = {}
        self.count = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.connection: Connection | None = None

    # -- the SDK calls this for every request and notification it receives ----------------

    async def handler(self, method: str, params: Any, is_notification: bool) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if is_notification:
            self.inbox.put_nowait(message)
            return None
        self.count += 1
        local_id = f"sdk-{self.count}"  # the SDK keeps the wire id to itself
        answer = asyncio.get_running_loop().create_future()
        self.answers[local_id] = answer
        self.inbox.put_nowait(message | {"id": local_id})
        response = await answer
        if "error" in response:
            error = response["error"]
            raise RequestError(error["code"], error["message"], error.get("data"))
        return response["result"]

    # -- what the agent sees ---------------------------------------------------------------

    async def receive(self) -> Any:
        return await self.inbox.get()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.connection is not None
        if "method" not in message:  # a response to a request the handler is holding
            answer = self.answers.pop(str(message.get("id")), None)
            if answer is not None:
                answer.set_result(message)
        elif "id" in message:  # our request: the SDK numbers it; we wait in the background
            task = asyncio.create_task(self.request(message))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        else:
            await self.connection.send_notification(message["method"], message.get("params"))

    async def request(self, message: dict[str, Any]) -> None:
        assert self.connection is not None
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = await self.connection.send_request(
                message["method"], message.get("params")
            )
        except RequestError as e:
            reply["error"] = {"code": e.code, "message": str(e)}
        except ConnectionError:
            return
        self.inbox.put_nowait(reply)  # the engine matches it by its own id


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", help="record the traffic as seen by the agent (JSON lines)")
    add_revision_flag(parser, "the echo agent speaks")
    args = parser.parse_args()
    revision = chosen_revision(args, "sdk agent")
    trace = None if args.trace is None else TraceFile(args.trace)

    def record(event: StreamEvent) -> None:  # the SDK reports every message it moves
        if trace is not None:
            side = "client" if event.direction is StreamDirection.INCOMING else "agent"
            trace.append({"from": side, "message": event.message})

    channel = SdkChannel()
    reader, writer = await stdio_streams()
    channel.connection = Connection(
        channel.handler, writer, reader, observers=[record], listening=False
    )
    stopped = asyncio.create_task(channel.connection.main_loop())
    agent = EchoAgent(channel, delay=0.2, revision=revision)  # type: ignore[arg-type]
    serving = asyncio.create_task(agent.serve())
    await asyncio.wait({stopped, serving}, return_when=asyncio.FIRST_COMPLETED)
    for task in (serving, *agent.workers.values()):
        task.cancel()
    await channel.connection.close()
    if trace is not None:
        trace.close()


if __name__ == "__main__":
    asyncio.run(main())
