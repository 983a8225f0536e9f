// @ts-check
/**
 * A client on the official ACP TypeScript SDK (`experimental/v2`) that drives any stdio agent
 * through scripted turns and reports whether the SDK accepted everything unchanged.
 *
 *   node sdk_client.mjs --trace T.jsonl --summary S.json [--turns a,b,c] -- <agent command...>
 *
 * Turns (one session, in the order given; default all three):
 *   granted              the permission request is answered with the first `allow_*` option
 *   cancel-first-update  `session/cancel` right after the turn's first update
 *   cancel-permission    `session/cancel` when the permission request arrives; the request is
 *                        held open until the agent withdraws it (`$/cancel_request`), then
 *                        answered `cancelled`
 *
 * The trace holds every message as it crossed the ndjson layer, before the SDK parsed it or
 * after it serialised it, in the order this process saw them (docs/trace-format.md). Trouble is
 * collected, never thrown: a result or notification the SDK refused or dropped, one it handed
 * over altered, an error it sent on its own, a turn that did not end as its script expects.
 * Exit status: 0 nothing went wrong, 1 something did (see the summary), 2 usage.
 */

import { spawn } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { isDeepStrictEqual } from "node:util";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { tap, writeTrace } from "./wire.mjs";

const TURNS = ["granted", "cancel-first-update", "cancel-permission"];
const PROMPTS = {
  granted: "Please echo these words",
  "cancel-first-update": "Count slowly to ten: one two three four five six seven eight nine ten",
  "cancel-permission": "Ask me first, then wait",
};

/** @typedef {{kind: string, detail: string}} Problem */
/**
 * @typedef {object} Turn
 * @property {string} mode
 * @property {string} prompt
 * @property {string[]} updates  `sessionUpdate` tags in arrival order (`state_update:<state>`)
 * @property {string[]} userMessageIds
 * @property {string | null} receipt  the `messageId` of the prompt's result
 * @property {boolean} ended  an idle ended the turn
 * @property {string | null} stopReason  the idle's stop reason
 * @property {{id: acp.JsonRpcId, answer: string, withdrawn: boolean}[]} permissions
 * @property {boolean} cancelSent
 * @property {number} ms
 */

const args = parseArgs(process.argv.slice(2));
const timeoutMs = Number(args.options["timeout-ms"] ?? 20000);
/** @type {Problem[]} */
const problems = [];
/** @type {import("./wire.mjs").Entry[]} */
const trace = [];

// Quirk: the SDK reports a notification it could not parse only on console.error.
const consoleError = console.error.bind(console);
console.error = (...parts) => {
  problems.push({ kind: "sdk-logged-error", detail: parts.map(describe).join(" ") });
  consoleError(...parts);
};

/** Raw inbound messages, waiting to be matched with what the SDK handed over. */
const raw = {
  /** @type {unknown[]} */ updates: [],
  /** @type {Map<acp.JsonRpcId, unknown>} */ requests: new Map(),
  /** @type {Map<acp.JsonRpcId, unknown>} */ results: new Map(),
};

/** @type {Turn | null} */
let current = null;
/** @type {acp.ClientContext | null} */
let context = null;
/** @type {string | null} */
let sessionId = null;

const agent = spawn(args.command[0], args.command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) =>
  agent.on("exit", (code, signal) => resolve({ code, signal })),
);
const stream = tap(
  acp.ndJsonStream(
    /** @type {WritableStream<Uint8Array>} */ (Writable.toWeb(agent.stdin)),
    /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(agent.stdout)),
  ),
  { me: "client", peer: "agent", trace, onEntry: observe },
);

const app = acp.client({ name: "acp-core-interop-client" }).onRequest(
  "session/request_permission",
  async ({ params, requestId, signal }) => {
    same(`session/request_permission ${requestId} params`, raw.requests.get(requestId), params);
    const turn = current;
    const record = { id: requestId, answer: "cancelled", withdrawn: false };
    turn?.permissions.push(record);
    if (turn === null || turn.cancelSent) {
      return { outcome: { outcome: "cancelled" } }; // it belongs to cancelled work
    }
    if (turn.mode === "cancel-permission") {
      await cancel(turn);
      record.withdrawn = await aborted(signal, timeoutMs);
      if (!record.withdrawn) {
        problems.push({ kind: "not-withdrawn", detail: `request ${requestId} stayed open` });
      }
      return { outcome: { outcome: "cancelled" } };
    }
    const allow = params.options.find((o) => o.kind.startsWith("allow"));
    if (allow === undefined) return { outcome: { outcome: "cancelled" } };
    record.answer = allow.optionId;
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  },
);

/** @type {Turn[]} */
const turns = [];
const started = Date.now();
try {
  await app.connectWith(stream, async (ctx) => {
    context = ctx;
    const init = { protocolVersion: 2, info: { name: "acp-core-interop-client", version: "0" } };
    await within(ctx.request("initialize", init), "initialize");
    const cwd = mkdtempSync(join(tmpdir(), "acp-interop-"));
    const session = await within(ctx.buildSession(cwd).start(), "session/new");
    sessionId = session.sessionId;
    for (const mode of args.turns) {
      const turn = await runTurn(session, mode);
      turns.push(turn);
      if (!turn.ended) break; // no idle came: later turns would be noise
    }
    session.dispose();
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
for (const leftover of raw.updates) {
  problems.push({ kind: "not-delivered", detail: describe(leftover) });
}

writeTrace(args.options.trace, trace);
const summary = { turns, problems, agentExit: exit, ms: Date.now() - started };
if (args.options.summary) writeFileSync(args.options.summary, JSON.stringify(summary, null, 2));
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(problems.length === 0 ? 0 : 1);

// -- turns ------------------------------------------------------------------------------------

/**
 * One prompt, read until the idle that ends it; then the script's expectations.
 * @param {acp.ActiveSession} session
 * @param {string} mode
 * @returns {Promise<Turn>}
 */
async function runTurn(session, mode) {
  const prompt = PROMPTS[/** @type {keyof typeof PROMPTS} */ (mode)];
  /** @type {Turn} */
  const turn = {
    mode, prompt, updates: [], userMessageIds: [], receipt: null, ended: false, stopReason: null,
    permissions: [], cancelSent: false, ms: 0,
  };
  current = turn;
  const t0 = Date.now();
  const receipt = session.prompt(prompt).then(
    (result) => {
      turn.receipt = result.messageId;
      return result;
    },
    (error) => {
      problems.push({ kind: "prompt-rejected", detail: `${mode}: ${describe(error)}` });
      return null;
    },
  );
  let active = false; // an idle ends the turn once something of it was seen
  for (;;) {
    let message;
    try {
      message = await session.nextUpdate(AbortSignal.timeout(timeoutMs));
    } catch {
      problems.push({ kind: "no-idle", detail: `${mode}: no idle within ${timeoutMs} ms` });
      return { ...turn, ms: Date.now() - t0 };
    }
    delivered(mode, message.notification);
    const update = message.update;
    const state = "state" in update ? `:${update.state}` : "";
    turn.updates.push(`${update.sessionUpdate}${state}`);
    if (update.sessionUpdate === "user_message" && typeof update.messageId === "string") {
      turn.userMessageIds.push(update.messageId);
    }
    if (message.kind === "stop" && active) {
      turn.ended = true;
      turn.stopReason = message.stopReason ?? null;
      break;
    }
    active = true;
    if (mode === "cancel-first-update") await cancel(turn);
  }
  const result = await within(receipt, `${mode}: prompt result`);
  const id = promptRequestId(prompt);
  if (result !== null && id !== undefined) same(`prompt ${id} result`, raw.results.get(id), result);
  turn.ms = Date.now() - t0;
  expect(turn);
  return turn;
}

/** The expectations of each turn's script. @param {Turn} turn */
function expect(turn) {
  const wrong = (/** @type {string} */ detail) =>
    problems.push({ kind: "unexpected", detail: `${turn.mode}: ${detail}` });
  const stop = turn.mode === "granted" ? "end_turn" : "cancelled";
  if (turn.stopReason !== stop) wrong(`stop reason ${turn.stopReason}, expected ${stop}`);
  if (turn.userMessageIds.length !== 1) wrong(`user messages ${turn.userMessageIds}`);
  else if (turn.receipt !== turn.userMessageIds[0]) wrong(`receipt ${turn.receipt}`);
  const answers = turn.permissions.map((p) => p.answer);
  if (turn.mode === "granted" && (answers.length !== 1 || answers[0] === "cancelled")) {
    wrong(`permission answers ${answers}`);
  }
  if (turn.mode === "cancel-permission" && !(answers.length === 1 && turn.permissions[0].withdrawn)) {
    wrong(`permission requests ${JSON.stringify(turn.permissions)}`);
  }
  if (turn.mode !== "granted" && !turn.cancelSent) wrong("no cancel was sent");
}

/** @param {Turn} turn */
async function cancel(turn) {
  if (turn.cancelSent || context === null || sessionId === null) return;
  turn.cancelSent = true;
  await context.notify("session/cancel", { sessionId });
}

// -- the wire tap -----------------------------------------------------------------------------

/**
 * Keep the raw inbound messages for comparison; an error the SDK sent on its own is trouble.
 * @param {{from: string, message: any}} entry
 */
function observe({ from, message }) {
  if (from === "agent") remember(message);
  else if (message !== null && typeof message === "object" && "error" in message) {
    problems.push({ kind: "sdk-sent-error", detail: describe(message) });
  }
}

/** @param {any} message */
function remember(message) {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return;
  if (message.method === "session/update") raw.updates.push(message.params);
  else if (message.method === "session/request_permission") {
    raw.requests.set(message.id, message.params);
  } else if ("result" in message) raw.results.set(message.id, message.result);
  else if ("error" in message) {
    problems.push({ kind: "agent-error", detail: describe(message) });
  }
}

/** The id this client gave the `session/prompt` carrying `text`. @param {string} text */
function promptRequestId(text) {
  for (const entry of trace) {
    const m = /** @type {any} */ (entry.message);
    if (entry.from === "client" && m?.method === "session/prompt") {
      if (m.params.prompt.some((/** @type {any} */ b) => b.text === text)) return m.id;
    }
  }
  return undefined;
}

/**
 * Match a delivered `session/update` with the raw ones in arrival order: those skipped over
 * were dropped; one that matches none was altered (it is compared with the oldest).
 * @param {string} mode @param {unknown} notification
 */
function delivered(mode, notification) {
  const at = raw.updates.findIndex((wire) => equalJson(wire, notification));
  if (at < 0) {
    same(`session/update (${mode})`, raw.updates.shift(), notification);
    return;
  }
  for (const dropped of raw.updates.splice(0, at)) {
    problems.push({ kind: "dropped", detail: `session/update (${mode}): ${describe(dropped)}` });
  }
  raw.updates.shift();
}

/** Report unless the SDK handed over exactly what crossed the wire. */
function same(/** @type {string} */ what, /** @type {unknown} */ wire, /** @type {unknown} */ got) {
  if (!equalJson(wire, got)) {
    problems.push({
      kind: "altered",
      detail: `${what}: wire ${JSON.stringify(wire)} became ${JSON.stringify(got)}`,
    });
  }
}

/** Equal as JSON (an `undefined` member and a missing one are the same). */
function equalJson(/** @type {unknown} */ a, /** @type {unknown} */ b) {
  const json = (/** @type {unknown} */ v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return isDeepStrictEqual(json(a), json(b));
}

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
      throw new Error(`${what}: no answer within ${timeoutMs} ms`);
    }),
  ]);
}

/** True once `signal` aborts, false after `ms`. @param {AbortSignal} signal @param {number} ms */
function aborted(signal, ms) {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** @param {unknown} value */
function describe(value) {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** @param {string[]} argv */
function parseArgs(argv) {
  const split = argv.indexOf("--");
  const flags = split < 0 ? argv : argv.slice(0, split);
  /** @type {Record<string, string>} */
  const options = {};
  for (let i = 0; i < flags.length; i += 2) {
    if (!flags[i].startsWith("--") || flags[i + 1] === undefined) usage(`bad option ${flags[i]}`);
    options[flags[i].slice(2)] = flags[i + 1];
  }
  const command = split < 0 ? [] : argv.slice(split + 1);
  if (command.length === 0 || !options.trace) usage("need --trace FILE and -- <agent command>");
  const turns = (options.turns ?? TURNS.join(",")).split(",");
  for (const t of turns) if (!TURNS.includes(t)) usage(`unknown turn ${t}`);
  return { options, command, turns };
}

/** @param {string} why @returns {never} */
function usage(why) {
  process.stderr.write(`sdk_client.mjs: ${why}\n`);
  process.exit(2);
}
