// @ts-check
/**
 * An agent on the official ACP TypeScript SDK (`experimental/v2`), for acp-core's interop tests.
 *
 *   node sdk_agent.mjs [--step-delay-ms 30] [--expect FILE] [--trace FILE] [--extra-updates JSON]
 *   node sdk_agent.mjs --listen HOST:PORT   # the same agent over Streamable HTTP and WebSocket
 *
 * Every prompt runs one scripted turn over most of the update surface both acp-core and the
 * SDK know (messages, thought, plan, a named tool call with a permission request, a terminal,
 * usage, session info, commands). `session/cancel` stops the turn at its next step, withdraws
 * an open permission request (`$/cancel_request`) and ends it `cancelled`; prompts that
 * arrive mid-turn are held and inserted in order, or answered -32800 by a cancel.
 *
 * `--expect FILE` writes, after every turn, what a client's view must hold by now:
 * `{sessionId: document}` in the shape of acp-core's snapshot (docs/snapshot.md), built here
 * from what this agent sent, independently of acp-core. `--trace FILE` records the traffic
 * as this agent saw it. `--extra-updates JSON` (a list) sends those updates right after each
 * turn's user message, unchecked and left out of the expectations (to prove the client's
 * detectors work).
 */

import { writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { tap, writeTrace } from "./wire.mjs";

const args = options(process.argv.slice(2));
const delayMs = Number(args["step-delay-ms"] ?? 30);

/**
 * @typedef {object} Session
 * @property {string} id
 * @property {string} cwd
 * @property {number} turns
 * @property {{abort: AbortController} | null} turn  the running turn
 * @property {{go: () => void, refuse: (e: unknown) => void}[]} held  prompts waiting their turn
 * @property {View} view  what a client's view must hold
 */
/** @type {Map<string, Session>} */
const sessions = new Map();

class Cancelled extends Error {}

const app = acp
  .agent({ name: "acp-core-interop-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: 2,
    info: { name: "acp-core-interop-agent", version: "0" },
    capabilities: {},
  }))
  .onRequest("session/new", ({ params }) => {
    const id = `sdk-sess-${sessions.size + 1}`;
    sessions.set(id, { id, cwd: params.cwd, turns: 0, turn: null, held: [], view: newView(id) });
    return { sessionId: id };
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const session = known(params.sessionId);
    if (session.turn !== null) {
      // Held until the running turn is over (the 2026-11 draft lets an agent hold prompts).
      await new Promise((go, refuse) => session.held.push({ go: () => go(undefined), refuse }));
    }
    const abort = new AbortController();
    session.turn = { abort };
    session.turns += 1;
    const n = session.turns;
    const send = sender(session, client);
    const messageId = `sdk-user-${n}`;
    await send({ sessionUpdate: "user_message", messageId, content: params.prompt });
    await send({ sessionUpdate: "state_update", state: "running" });
    for (const update of JSON.parse(args["extra-updates"] ?? "[]")) {
      await client.notify("session/update", { sessionId: session.id, update });
    }
    void turn(session, n, send, client, abort.signal).finally(() => {
      session.turn = null;
      if (args.expect) writeFileSync(args.expect, JSON.stringify(expectations(), null, 2));
      session.held.shift()?.go();
    });
    return { messageId };
  })
  .onNotification("session/cancel", ({ params }) => {
    const session = sessions.get(params.sessionId);
    if (session === undefined) return;
    session.turn?.abort.abort();
    for (const held of session.held.splice(0)) held.refuse(acp.RequestError.requestCancelled());
  });

// -- the scripted turn ------------------------------------------------------------------------

/**
 * @param {Session} session
 * @param {number} n
 * @param {(u: acp.SessionUpdate) => Promise<void>} send
 * @param {acp.AgentContext} client
 * @param {AbortSignal} signal
 */
async function turn(session, n, send, client, signal) {
  const step = async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (signal.aborted) throw new Cancelled();
  };
  const toolCallId = `sdk-call-${n}`;
  const terminalId = `sdk-term-${n}`;
  const planId = `sdk-plan-${n}`;
  let tool = "none"; // none | started | terminal
  try {
    await step();
    await send({ sessionUpdate: "session_info_update", title: `Interop turn ${n}`, updatedAt: "2026-11-01T12:00:00Z" });
    await send({ sessionUpdate: "agent_thought_chunk", messageId: `sdk-thought-${n}`, content: { type: "text", text: "Planning one command." } });
    await step();
    await send({ sessionUpdate: "agent_message_chunk", messageId: `sdk-agent-${n}`, content: { type: "text", text: "I will run " } });
    await send({ sessionUpdate: "agent_message_chunk", messageId: `sdk-agent-${n}`, content: { type: "text", text: "one command." } });
    await send(plan(planId, "in_progress"));
    await step();
    await send({
      sessionUpdate: "tool_call_update", toolCallId, name: "run_command", title: "Run echo",
      kind: "execute", status: "pending", rawInput: { command: "echo interop" },
      locations: [{ path: `${session.cwd}/README.md`, line: 3 }],
    });
    tool = "started";
    await send({ sessionUpdate: "state_update", state: "requires_action" });
    const outcome = await ask(session, client, toolCallId, signal);
    if (signal.aborted) throw new Cancelled();
    await send({ sessionUpdate: "state_update", state: "running" });
    if (outcome !== "allow") {
      await send({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", rawOutput: { refused: true } });
      await send({ sessionUpdate: "agent_message_chunk", messageId: `sdk-agent-${n}-end`, content: { type: "text", text: "Not allowed." } });
      await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      return;
    }
    await send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    await send({ sessionUpdate: "terminal_update", terminalId, command: "echo interop", cwd: session.cwd });
    tool = "terminal";
    await send({ sessionUpdate: "tool_call_content_chunk", toolCallId, content: { type: "terminal", terminalId } });
    for (const line of ["interop 1\n", "interop 2\n", "interop 3\n"]) {
      await step();
      await send({ sessionUpdate: "terminal_output_chunk", terminalId, data: Buffer.from(line).toString("base64") });
    }
    await send({ sessionUpdate: "terminal_update", terminalId, exitStatus: { exitCode: 0 } });
    tool = "done";
    await send({ sessionUpdate: "tool_call_content_chunk", toolCallId, content: { type: "content", content: { type: "text", text: "Printed three lines." } } });
    await send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed", rawOutput: { exitCode: 0 } });
    await send({ sessionUpdate: "usage_update", used: 1200 * n, size: 200000, cost: { amount: 0.25 * n, currency: "USD" } });
    await send({ sessionUpdate: "available_commands_update", availableCommands: [{ type: "command", name: "echo", description: "Echo a line" }] });
    await send(plan(planId, "completed"));
    await send({ sessionUpdate: "agent_message_chunk", messageId: `sdk-agent-${n}-end`, content: { type: "text", text: "Done." } });
    await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    if (tool === "terminal") {
      await send({ sessionUpdate: "terminal_update", terminalId, exitStatus: { exitCode: null, signal: "SIGTERM" } });
    }
    if (tool !== "none" && tool !== "done") {
      await send({ sessionUpdate: "tool_call_update", toolCallId, status: "cancelled" });
    }
    await send({ sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" });
  }
}

/**
 * Ask permission for the tool call; a cancel withdraws the request (`$/cancel_request`).
 * @returns {Promise<string>} the kind of answer: allow, reject or cancelled
 */
async function ask(/** @type {Session} */ session, /** @type {acp.AgentContext} */ client, /** @type {string} */ toolCallId, /** @type {AbortSignal} */ signal) {
  const current = session.view.toolCalls[toolCallId];
  try {
    const answer = await client.request(
      "session/request_permission",
      {
        sessionId: session.id,
        title: "Run `echo interop`?",
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
        subject: {
          type: "tool_call",
          // current values only, so that applying the subject changes nothing
          toolCall: { toolCallId, title: current.title, kind: current.kind, status: current.status },
        },
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    if (answer.outcome.outcome !== "selected") return "cancelled";
    return answer.outcome.optionId === "allow" ? "allow" : "reject";
  } catch (error) {
    if (signal.aborted) throw new Cancelled();
    throw error;
  }
}

/** @param {string} planId @param {"in_progress" | "completed"} status @returns {acp.SessionUpdate} */
function plan(planId, status) {
  return {
    sessionUpdate: "plan_update",
    plan: {
      type: "items", planId,
      entries: [
        { content: "Run the command", priority: "high", status },
        { content: "Report", priority: "low", status: status === "completed" ? "completed" : "pending" },
      ],
    },
  };
}

// -- sending, and the model of what the client must hold ---------------------------------------

/**
 * @param {Session} session
 * @param {acp.AgentContext} client
 * @returns {(u: acp.SessionUpdate) => Promise<void>}
 */
function sender(session, client) {
  return async (update) => {
    apply(session.view, update);
    await client.notify("session/update", { sessionId: session.id, update });
  };
}

/**
 * @typedef {object} View  acp-core's snapshot shape, for the fields this agent sends
 * @property {string} sessionId
 * @property {{state: string, stopReason?: string}} foreground
 * @property {{kind: string, id: string}[]} timeline
 * @property {Record<string, {role: string, content: unknown[]}>} messages
 * @property {Record<string, any>} toolCalls
 * @property {Record<string, any>} terminals
 * @property {Record<string, unknown>} plans
 * @property {{title?: string, updatedAt?: string}} info
 * @property {any} [usage]
 * @property {unknown[]} [availableCommands]
 */

/** @param {string} sessionId @returns {View} */
function newView(sessionId) {
  return { sessionId, foreground: { state: "idle" }, timeline: [], messages: {}, toolCalls: {}, terminals: {}, plans: {}, info: {} };
}

const ROLES = { user_message: "user", agent_message_chunk: "agent", agent_thought_chunk: "thought" };

/** What an update does to a client's view, per the v2 drafts (only the kinds sent above). */
function apply(/** @type {View} */ view, /** @type {any} */ u) {
  const seen = (/** @type {string} */ kind, /** @type {string} */ id) => {
    if (!view.timeline.some((e) => e.kind === kind && e.id === id)) view.timeline.push({ kind, id });
  };
  switch (u.sessionUpdate) {
    case "user_message":
    case "agent_message_chunk":
    case "agent_thought_chunk": {
      seen("message", u.messageId);
      const role = ROLES[/** @type {keyof typeof ROLES} */ (u.sessionUpdate)];
      const message = (view.messages[u.messageId] ??= { role, content: [] });
      if (u.sessionUpdate === "user_message") message.content = [...u.content];
      else message.content.push(u.content);
      break;
    }
    case "state_update":
      view.foreground = { ...view.foreground, state: u.state };
      if (u.stopReason !== undefined) view.foreground.stopReason = u.stopReason;
      break;
    case "plan_update":
      seen("plan", u.plan.planId);
      view.plans[u.plan.planId] = u.plan;
      break;
    case "tool_call_update": {
      seen("toolCall", u.toolCallId);
      const call = (view.toolCalls[u.toolCallId] ??= { kind: "other", status: "pending", content: [], locations: [] });
      for (const key of ["name", "title", "kind", "status", "rawInput", "rawOutput", "locations", "content"]) {
        if (key in u) call[key] = u[key];
      }
      break;
    }
    case "tool_call_content_chunk":
      view.toolCalls[u.toolCallId].content.push(u.content);
      break;
    case "terminal_update": {
      const terminal = (view.terminals[u.terminalId] ??= { output: "" });
      for (const key of ["command", "cwd", "exitStatus"]) if (key in u) terminal[key] = u[key];
      break;
    }
    case "terminal_output_chunk": {
      const terminal = view.terminals[u.terminalId];
      const bytes = Buffer.concat([Buffer.from(terminal.output, "base64"), Buffer.from(u.data, "base64")]);
      terminal.output = bytes.toString("base64");
      break;
    }
    case "usage_update":
      view.usage = { ...(view.usage?.cost ? { cost: view.usage.cost } : {}), used: u.used, size: u.size, ...(u.cost ? { cost: u.cost } : {}) };
      break;
    case "session_info_update":
      if ("title" in u) view.info.title = u.title;
      if ("updatedAt" in u) view.info.updatedAt = u.updatedAt;
      break;
    case "available_commands_update":
      view.availableCommands = u.availableCommands;
      break;
    default:
      throw new Error(`the model does not know ${u.sessionUpdate}`);
  }
}

function expectations() {
  return Object.fromEntries([...sessions.values()].map((s) => [s.id, s.view]));
}

// -- small helpers ----------------------------------------------------------------------------

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
      process.stderr.write(`sdk_agent.mjs: bad option ${argv[i]}\n`);
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

// -- serving (last: the module's constants above are initialised by now) -----------------------

if (args.listen !== undefined) {
  // Streamable HTTP and WebSocket at http://HOST:PORT/acp: the SDK's AcpServer behind its
  // node adapter, the upgrade on `ws` (the SDK's own choice for its tests).
  const { createServer } = await import("node:http");
  const { WebSocketServer } = await import("ws");
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const node = await import("@agentclientprotocol/sdk/experimental/node");
  const server = new AcpServer({ agent: app });
  const handle = node.createNodeHttpHandler(server);
  const sockets = new WebSocketServer({ noServer: true });
  const upgrade = node.createNodeWebSocketUpgradeHandler(server, sockets);
  const http = createServer((req, res) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/acp") {
      res.writeHead(404).end();
      return;
    }
    handle(req, res);
  });
  http.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/acp") {
      socket.destroy();
      return;
    }
    upgrade(req, socket, head);
  });
  const at = args.listen.lastIndexOf(":");
  const host = args.listen.slice(0, at);
  http.listen(Number(args.listen.slice(at + 1)), host, () => {
    const address = /** @type {import("node:net").AddressInfo} */ (http.address());
    process.stderr.write(`listening on http://${host}:${address.port}/acp\n`);
  });
  process.stdin.resume();
  process.stdin.on("end", () => {
    void server.close().finally(() => http.close(() => process.exit(0)));
    http.closeAllConnections();
  }); // ended when our parent closes our input
} else {
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
}
