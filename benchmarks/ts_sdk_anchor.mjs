// The TypeScript SDK's validated path over NDJSON bytes: the anchor run.py compares the
// client connection with (issue 24).
//
// Usage: node benchmarks/ts_sdk_anchor.mjs NDJSON_FILE SDK_DIR [ROUNDS]
//
// Owns: timing the official TypeScript SDK (@agentclientprotocol/sdk, its experimental v2
// entry point, as installed under interop/node_modules) on the same bytes acp-core's
// `bytes_connection` phase reads. Must not know: acp-core.
//
// Per round, over the whole file held in memory as 64 KiB reads: UTF-8 decoding and line
// splitting, `JSON.parse` of each line, the SDK's own validation of a received
// `session/update` (`zUpdateSessionNotification.parse`, what its SessionUpdateRouter runs
// on every notification), then what its ActiveSession keeps: the per-update bookkeeping of
// `routeActiveSessionUpdate` (config options, background work, cancellable tool calls and
// terminals) and the message accumulation of `readTextUntilIdle` (a full `agent_message`
// replaces a message's content, a chunk appends), extended to every role so it keeps as
// many messages as acp-core does. Those two are internal to the SDK's ActiveSession (not
// callable without a live connection), so their logic is restated here with the SDK's
// exported guards. Prints one JSON object: best and median microseconds per event (wall
// and process CPU), events, and how many lines the validator refused.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [file, sdkDir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 5);
const load = (rel) => import(pathToFileURL(join(sdkDir, rel)).href);
const validate = await load("dist/v2/schema/zod.gen.js");
const guards = await load("dist/v2/schema/guards.gen.js");
const sdkVersion = JSON.parse(readFileSync(join(sdkDir, "package.json"), "utf8")).version;
const schema = validate.zUpdateSessionNotification;

const data = readFileSync(file);
const READ = 64 * 1024;
const reads = [];
for (let i = 0; i < data.length; i += READ) reads.push(data.subarray(i, i + READ));

function messageRole(update) {
  const g = guards.SessionUpdate;
  if (g.isAgentMessage(update) || g.isAgentMessageChunk(update)) return "agent";
  if (g.isUserMessage?.(update) || g.isUserMessageChunk?.(update)) return "user";
  if (g.isAgentThought?.(update) || g.isAgentThoughtChunk?.(update)) return "thought";
  return null;
}

function isChunk(update) {
  return typeof update.sessionUpdate === "string" && update.sessionUpdate.endsWith("_chunk");
}

function run() {
  const decoder = new TextDecoder();
  const state = {
    messages: new Map(),
    order: [],
    configOptions: undefined,
    background: undefined,
    cancellableToolCalls: new Set(),
    cancellableTerminals: new Set(),
  };
  let pending = "";
  let events = 0;
  let refused = 0;
  for (const chunk of reads) {
    const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n");
    pending = lines.pop();
    for (const line of lines) {
      if (!line) continue;
      const message = JSON.parse(line);
      let notification;
      try {
        notification = schema.parse(message.params);
      } catch {
        refused += 1;
        continue;
      }
      events += 1;
      const { update } = notification;
      const g = guards.SessionUpdate;
      if (g.isConfigOptionUpdate(update)) {
        state.configOptions = update.configOptions;
      } else if (g.isStateUpdate(update)) {
        state.background =
          !guards.StateUpdate.isCustom(update) && Array.isArray(update.background)
            ? update.background
            : undefined;
      } else if (g.isToolCallUpdate(update)) {
        if (update.capabilities?.canCancel) state.cancellableToolCalls.add(update.toolCallId);
        else if (update.capabilities !== undefined) state.cancellableToolCalls.delete(update.toolCallId);
      } else if (g.isTerminalUpdate(update)) {
        if (update.capabilities?.canCancel) state.cancellableTerminals.add(update.terminalId);
        else if (update.capabilities !== undefined) state.cancellableTerminals.delete(update.terminalId);
      }
      if (messageRole(update) !== null) {
        let content = state.messages.get(update.messageId);
        if (!content) {
          content = [];
          state.order.push(update.messageId);
          state.messages.set(update.messageId, content);
        }
        if (isChunk(update)) content.push(update.content);
        else if (update.content !== undefined) state.messages.set(update.messageId, update.content ?? []);
      }
    }
  }
  return { events, refused, state };
}

run(); // warm-up (JIT), not timed
const wall = [];
const cpu = [];
let last;
for (let r = 0; r < rounds; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  last = run();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  wall.push(ms * 1000);
  cpu.push(c.user + c.system);
}
const perEvent = (xs) => xs.map((x) => x / Math.max(last.events, 1));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  JSON.stringify({
    sdk: `@agentclientprotocol/sdk ${sdkVersion}`,
    node: process.version,
    events: last.events,
    refused: last.refused,
    messages: last.state.order.length,
    rounds,
    us_per_event: Math.min(...perEvent(wall)),
    us_per_event_median: median(perEvent(wall)),
    us_per_event_cpu: Math.min(...perEvent(cpu)),
  }),
);
