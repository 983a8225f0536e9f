// @ts-check
/**
 * A v1 client on the official ACP TypeScript SDK 2.4.0 (its stable entry point, protocol 1),
 * for acp-core's v1 interop tests (tests/test_interop_sdk_v1.py).
 *
 *   node sdk_v1_client.mjs --trace FILE [--summary FILE] [--timeout-ms 30000] -- AGENT...
 *
 * Spawns the agent and speaks v1 to it: `initialize {protocolVersion: 1}`, `session/new`, then
 * three prompts: `granted` (every permission allowed), `cancel-permission` (the first
 * permission request is held open, `session/cancel` is sent, and the request is then
 * answered `cancelled`, as v1 asks of a client) and `second` (allowed again). When the agent
 * advertises `loadSession`, a `session/load` of the session follows and its replayed history
 * is recorded. The summary says, per turn, the stop reason, the reply text and the tool
 * calls' last title and status as this SDK handed them over, and every permission request;
 * `problems` lists what went wrong (a rejected request, a timeout). Exit 0 when nothing did.
 */

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { tap, writeTrace } from "./wire.mjs";

const { options: args, command } = parse(process.argv.slice(2));
const timeoutMs = Number(args["timeout-ms"] ?? 30000);
const PROMPTS = { granted: "hello from the v1 SDK", "cancel-permission": "cancel me while you ask", second: "a second prompt" };

/**
 * @typedef {{mode: string, prompt: string, stopReason: string | null, reply: string,
 *   toolCalls: Record<string, {title: string, status: string}>, permissions: {toolCallId: string,
 *   options: string[], answer: string}[], updates: string[]}} Turn
 */
/** @type {Turn | null} */
let current = null;
/** @type {{kind: string, detail: string}[]} */
const problems = [];
/** @type {string[]} */
const loadReplay = [];
/** @type {(() => void) | null} */
let permissionAsked = null;

const agent = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve({ code, signal })));
/** @type {import("./wire.mjs").Entry[]} */
const trace = [];
const stream = tap(
  acp.ndJsonStream(
    /** @type {WritableStream<Uint8Array>} */ (Writable.toWeb(agent.stdin)),
    /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(agent.stdout)),
  ),
  { me: "client", peer: "agent", trace },
);

const app = acp
  .client({ name: "acp-core-interop-v1-client" })
  .onRequest("session/request_permission", async ({ params }) => {
    const turn = current;
    const record = { toolCallId: params.toolCall.toolCallId, options: params.options.map((o) => o.optionId), answer: "cancelled" };
    turn?.permissions.push(record);
    if (turn === null) return { outcome: { outcome: "cancelled" } };
    if (turn.mode === "cancel-permission") {
      // held open until the cancel is on the wire; then answered `cancelled` (v1's rule)
      await new Promise((resolve) => {
        permissionAsked = () => resolve(undefined);
        waiting?.();
      });
      return { outcome: { outcome: "cancelled" } };
    }
    const allow = params.options.find((o) => o.kind === "allow_once");
    if (allow === undefined) return { outcome: { outcome: "cancelled" } };
    record.answer = allow.optionId;
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onNotification("session/update", ({ params }) => {
    const update = params.update;
    if (current === null) {
      loadReplay.push(`${update.sessionUpdate}:${"content" in update && update.content && "text" in update.content ? update.content.text : ""}`);
      return;
    }
    const turn = current;
    turn.updates.push(update.sessionUpdate);
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") turn.reply += update.content.text;
    if (update.sessionUpdate === "tool_call") turn.toolCalls[update.toolCallId] = { title: update.title, status: update.status ?? "pending" };
    if (update.sessionUpdate === "tool_call_update") {
      const call = (turn.toolCalls[update.toolCallId] ??= { title: "", status: "pending" });
      if (update.title) call.title = update.title;
      if (update.status) call.status = update.status;
    }
  });

/** @type {(() => void) | null} */
let waiting = null;

/** @type {Turn[]} */
const turns = [];
/** @type {{advertised: boolean, answered: boolean | null}} */
const load = { advertised: false, answered: null };
/** @type {any} */
let initResult = null;
const started = Date.now();
try {
  await app.connectWith(stream, async (ctx) => {
    initResult = await within(
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "acp-core-interop-v1-client", version: "0" },
      }),
      "initialize",
    );
    const session = await within(ctx.request("session/new", { cwd: tmpdir(), mcpServers: [] }), "session/new");
    const sessionId = session.sessionId;
    for (const mode of /** @type {(keyof typeof PROMPTS)[]} */ (Object.keys(PROMPTS))) {
      /** @type {Turn} */
      const turn = { mode, prompt: PROMPTS[mode], stopReason: null, reply: "", toolCalls: {}, permissions: [], updates: [] };
      current = turn;
      const answer = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: turn.prompt }] });
      if (mode === "cancel-permission") {
        // wait until the permission request is open, then cancel the turn
        await within(new Promise((resolve) => {
          waiting = () => resolve(undefined);
          if (permissionAsked !== null) resolve(undefined);
        }), "a permission request");
        await ctx.notify("session/cancel", { sessionId });
        /** @type {() => void} */ (/** @type {unknown} */ (permissionAsked))();
        permissionAsked = null;
        waiting = null;
      }
      try {
        const result = await within(answer, `prompt ${mode}`);
        turn.stopReason = result.stopReason;
      } catch (error) {
        problems.push({ kind: "prompt", detail: `${mode}: ${describe(error)}` });
      }
      current = null;
      turns.push(turn);
    }
    load.advertised = initResult?.agentCapabilities?.loadSession === true;
    if (load.advertised) {
      try {
        await within(ctx.request("session/load", { sessionId, cwd: tmpdir(), mcpServers: [] }), "session/load");
        load.answered = true;
      } catch (error) {
        load.answered = false;
        problems.push({ kind: "session/load", detail: describe(error) });
      }
    }
  });
} catch (error) {
  problems.push({ kind: "connection", detail: describe(error) });
}
agent.stdin.end();
const exit = await Promise.race([exited, sleep(timeoutMs).then(() => null)]);
if (exit === null) {
  agent.kill();
  problems.push({ kind: "agent-exit", detail: "the agent did not exit after end of input" });
}
writeTrace(args.trace, trace);
const summary = {
  protocolVersion: initResult?.protocolVersion ?? null,
  agentInfo: initResult?.agentInfo ?? null,
  turns, load, loadReplay, problems, agentExit: exit, ms: Date.now() - started,
};
if (args.summary) writeFileSync(args.summary, JSON.stringify(summary, null, 2));
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(problems.length === 0 ? 0 : 1);

// -- small helpers ----------------------------------------------------------------------------

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {string} what
 * @returns {Promise<T>}
 */
function within(promise, what) {
  return Promise.race([
    promise,
    sleep(timeoutMs).then(() => {
      throw new Error(`${what}: nothing within ${timeoutMs} ms`);
    }),
  ]);
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** @param {unknown} error */
function describe(error) {
  if (error instanceof Error) return error.message;
  return JSON.stringify(error);
}

/** @param {string[]} argv */
function parse(argv) {
  const split = argv.indexOf("--");
  if (split < 0 || split === argv.length - 1) {
    process.stderr.write("usage: node sdk_v1_client.mjs --trace FILE [--summary FILE] -- AGENT...\n");
    process.exit(2);
  }
  /** @type {Record<string, string>} */
  const options = {};
  const head = argv.slice(0, split);
  for (let i = 0; i < head.length; i += 2) options[head[i].replace(/^--/, "")] = head[i + 1];
  if (!options.trace) {
    process.stderr.write("sdk_v1_client.mjs: --trace FILE is required\n");
    process.exit(2);
  }
  return { options, command: argv.slice(split + 1) };
}
