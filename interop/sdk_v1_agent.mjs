// @ts-check
/**
 * A v1 agent on the official ACP TypeScript SDK 2.4.0 (its stable entry point, protocol 1),
 * for acp-core's v1 interop tests (tests/test_interop_sdk_v1.py).
 *
 *   node sdk_v1_agent.mjs [--trace FILE] [--expect FILE]
 *
 * Every prompt runs one scripted turn in v1 shapes: two id-less reply chunks, a `tool_call`,
 * a `session/request_permission` for it, then (allowed) `tool_call_update`s to completed and
 * a closing chunk, ending `end_turn`; (rejected) the tool call failed, `end_turn`; (the
 * client sent `session/cancel` and answered the request `cancelled`, as v1 asks) the tool
 * call failed, `cancelled`. `session/load` (advertised: `loadSession: true`) replays a
 * session's history as user and agent chunks, then answers `{}`.
 *
 * `--expect FILE` writes, after every turn, what was said: `{sessionId: [{prompt, reply,
 * stopReason, toolCalls: {id: {title, status}}}]}`, from what this agent sent, built here
 * independently of acp-core. `--trace FILE` records the traffic as this agent saw it.
 */

import { writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { tap, writeTrace } from "./wire.mjs";

const args = options(process.argv.slice(2));

/**
 * @typedef {{prompt: string, reply: string, stopReason: string | null,
 *   toolCalls: Record<string, {title: string, status: string}>}} Turn
 * @typedef {{id: string, turns: Turn[], cancelled: boolean}} Session
 */
/** @type {Map<string, Session>} */
const sessions = new Map();

const app = acp
  .agent({ name: "acp-core-interop-v1-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
    authMethods: [],
    agentInfo: { name: "acp-core-interop-v1-agent", version: "0" },
  }))
  .onRequest("session/new", () => {
    const id = `ts-v1-sess-${sessions.size + 1}`;
    sessions.set(id, { id, turns: [], cancelled: false });
    return { sessionId: id };
  })
  .onRequest("session/load", async ({ params, client }) => {
    const session = known(params.sessionId);
    const send = (/** @type {acp.SessionUpdate} */ update) => client.notify("session/update", { sessionId: session.id, update });
    for (const turn of session.turns) {
      await send({ sessionUpdate: "user_message_chunk", content: { type: "text", text: turn.prompt } });
      await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: turn.reply } });
    }
    return {};
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const session = known(params.sessionId);
    session.cancelled = false;
    const n = session.turns.length + 1;
    const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
    /** @type {Turn} */
    const turn = { prompt: text, reply: "", stopReason: null, toolCalls: {} };
    session.turns.push(turn);
    const send = async (/** @type {acp.SessionUpdate} */ update) => {
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") turn.reply += update.content.text;
      if (update.sessionUpdate === "tool_call") turn.toolCalls[update.toolCallId] = { title: update.title, status: update.status ?? "pending" };
      if (update.sessionUpdate === "tool_call_update" && update.status) turn.toolCalls[update.toolCallId].status = update.status;
      await client.notify("session/update", { sessionId: session.id, update });
    };
    const toolCallId = `ts-call-${n}`;
    await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `Turn ${n}: ` } });
    await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "I will echo." } });
    await send({ sessionUpdate: "tool_call", toolCallId, title: "Echo", kind: "execute", status: "pending", rawInput: { text } });
    const answer = await client.request("session/request_permission", {
      sessionId: session.id,
      toolCall: { toolCallId, title: "Echo", status: "pending" },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    let stopReason = "end_turn";
    if (answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow" && !session.cancelled) {
      await send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
      await send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed", content: [{ type: "content", content: { type: "text", text } }] });
      await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: " Done." } });
    } else {
      await send({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
      if (session.cancelled || answer.outcome.outcome === "cancelled") stopReason = "cancelled";
    }
    turn.stopReason = stopReason;
    if (args.expect) writeFileSync(args.expect, JSON.stringify(expectations(), null, 2));
    return { stopReason: /** @type {acp.StopReason} */ (stopReason) };
  })
  .onNotification("session/cancel", ({ params }) => {
    const session = sessions.get(params.sessionId);
    if (session !== undefined) session.cancelled = true;
  });

function expectations() {
  return Object.fromEntries([...sessions.values()].map((s) => [s.id, s.turns]));
}

/** @param {string} id */
function known(id) {
  const session = sessions.get(id);
  if (session === undefined) throw acp.RequestError.invalidParams({ sessionId: id }, "unknown session");
  return session;
}

/** @param {string[]} argv @returns {Record<string, string>} */
function options(argv) {
  /** @type {Record<string, string>} */
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || argv[i + 1] === undefined) {
      process.stderr.write(`sdk_v1_agent.mjs: bad option ${argv[i]}\n`);
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

/** @type {import("./wire.mjs").Entry[]} */
const trace = [];
const connection = app.connect(
  tap(
    acp.ndJsonStream(
      /** @type {WritableStream<Uint8Array>} */ (Writable.toWeb(process.stdout)),
      /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(process.stdin)),
    ),
    { me: "agent", peer: "client", trace },
  ),
);
await connection.closed; // the client ended our input
if (args.trace) writeTrace(args.trace, trace);
