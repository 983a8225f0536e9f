// @ts-check
/**
 * The wire tap shared by the interop programs: every JSON-RPC message that crosses an SDK
 * stream, recorded as it crossed (before the SDK parses it, after it serialises it), in the
 * trace format of acp-core's docs/trace-format.md.
 */

import { writeFileSync } from "node:fs";

/** @typedef {{from: string, message: any}} Entry */

/**
 * A stream like `inner` that records what crosses it into `trace`.
 * @param {import("@agentclientprotocol/sdk/experimental/v2").Stream} inner
 * @param {{me: string, peer: string, trace: Entry[], onEntry?: (e: Entry) => void}} how
 * @returns {import("@agentclientprotocol/sdk/experimental/v2").Stream}
 */
export function tap(inner, { me, peer, trace, onEntry }) {
  const record = (/** @type {string} */ from, /** @type {unknown} */ message) => {
    const entry = { from, message: structuredClone(message) }; // the SDK may reuse the object
    trace.push(entry);
    onEntry?.(entry);
  };
  const readable = inner.readable.pipeThrough(
    new TransformStream({
      transform(message, controller) {
        record(peer, message);
        controller.enqueue(message);
      },
    }),
  );
  const writer = inner.writable.getWriter();
  const writable = new WritableStream({
    async write(message) {
      record(me, message);
      await writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}

/** Write `trace` as JSON lines. @param {string} path @param {Entry[]} trace */
export function writeTrace(path, trace) {
  writeFileSync(path, trace.map((e) => JSON.stringify(e) + "\n").join(""));
}
