// @ts-check
/**
 * The official TypeScript SDK's WebSocket client (`experimental/ws-client`,
 * `createWebSocketStream`) driving an ACP agent served at a `ws://` URL, or its Streamable
 * HTTP client (`experimental/http-client`, `createHttpStream`) for an `http://` URL:
 * initialize, one session, one prompt per `--prompt` (default one), each read until the idle
 * that ends it.
 *
 *   node [--experimental-websocket] sdk_ws_client.mjs URL --trace T.jsonl [--prompt TEXT]...
 *
 * Node 20 has `WebSocket` only behind `--experimental-websocket` (Node 22 has it on). Prints a
 * JSON summary on stdout: the initialize result, the session id, per turn the `sessionUpdate`
 * tags in arrival order, the agent's text, the receipt and the stop reason, and every problem
 * (a rejected request, no idle in time). Exit status: 0 nothing went wrong, 1 something did,
 * 2 usage.
 */

import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { tap, writeTrace } from "./wire.mjs";

const argv = process.argv.slice(2);
const url = argv[0];
/** @type {string[]} */
const prompts = [];
let tracePath = "";
for (let i = 1; i < argv.length; i += 2) {
  if (argv[i] === "--prompt") prompts.push(argv[i + 1]);
  else if (argv[i] === "--trace") tracePath = argv[i + 1];
  else url === undefined || usage();
}
if (url === undefined || !/^(ws|http)s?:/.test(url) || tracePath === "") usage();
if (prompts.length === 0) prompts.push("hello over a socket");
const timeoutMs = 20000;

/** @type {import("./wire.mjs").Entry[]} */
const trace = [];
/** @type {string[]} */
const problems = [];
const remote = url.startsWith("http") ? createHttpStream(url) : createWebSocketStream(url);
const stream = tap(remote, { me: "client", peer: "agent", trace });
/** @type {{updates: string[], text: string, receipt: string | null, stopReason: string | null}[]} */
const turns = [];
/** @type {unknown} */
let init = null;
let sessionId = null;

try {
  await acp.client({ name: "acp-core-ws-interop" }).connectWith(stream, async (ctx) => {
    const hello = { protocolVersion: 2, info: { name: "acp-core-ws-interop", version: "0" } };
    init = await ctx.request("initialize", hello);
    const session = await ctx.buildSession("/").start();
    sessionId = session.sessionId;
    for (const prompt of prompts) {
      /** @type {(typeof turns)[number]} */
      const turn = { updates: [], text: "", receipt: null, stopReason: null };
      turns.push(turn);
      const receipt = session.prompt(prompt);
      for (;;) {
        const message = await session.nextUpdate(AbortSignal.timeout(timeoutMs));
        const update = message.update;
        turn.updates.push(`${update.sessionUpdate}${"state" in update ? `:${update.state}` : ""}`);
        if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
          turn.text += update.content.text;
        }
        if (message.kind === "stop") {
          turn.stopReason = message.stopReason ?? null;
          break;
        }
      }
      turn.receipt = (await receipt).messageId;
    }
    session.dispose();
  });
} catch (error) {
  problems.push(describe(error));
}
writeTrace(tracePath, trace);
process.stdout.write(JSON.stringify({ init, sessionId, turns, problems }) + "\n");
process.exit(problems.length === 0 ? 0 : 1);

/** An Error, or the ErrorEvent a failed WebSocket reports, as one line. @param {unknown} error */
function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  if (typeof error === "object" && error !== null && "message" in error) {
    return `${error.constructor.name}: ${String(error.message)}`;
  }
  return String(error);
}

function usage() {
  process.stderr.write("usage: sdk_ws_client.mjs ws://HOST:PORT/acp|http://HOST:PORT/acp --trace T [--prompt TEXT]...\n");
  process.exit(2);
}
