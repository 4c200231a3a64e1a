/**
 * Answers as large as a thread, encoded and written a slice at a time with a turn of the event
 * loop between slices: the thread view's JSON (GET /api/threads/:id) and a reload's shared
 * snapshot bytes. Measured on a thread of 30 MB of input (docs/internals.md, "Reading a large
 * thread"): res.json's one JSON.stringify and its one Buffer.from were 60-90 ms and 35-50 ms of
 * the loop each at low load, as long again as the conversation grows, during which no other
 * request, run or lease heartbeat of the process moved. Rejected: streaming the stored JSON text
 * without parsing it (the answer is the fold of parts and patches, and of events after them,
 * not one stored text).
 */
import type { Response } from "express";
import { jsonPieces } from "../../protocol/json-pieces.ts";
import { yieldToLoop } from "../store/pages.ts";
import { SSE_DRAIN_TIMEOUT_MS } from "./sse-response.ts";

/**
 * Characters gathered into one slice before it is encoded or written and the loop turns: 256 Ki,
 * a millisecond or two of encoding, and a hundred turns for 30 MB. One piece (a message of up to
 * the body's 4 MiB) may make a slice larger.
 */
export const SLICE_CHARS = 256 * 1024;

function* slices(pieces: Iterable<string>): Generator<string, void, undefined> {
  let pending = "";
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= SLICE_CHARS) {
      yield pending;
      pending = "";
    }
  }
  if (pending.length > 0) yield pending;
}

/** The pieces' UTF-8 bytes in one buffer, encoded in place a slice at a time (no second copy to join them). */
export async function encodeInSlices(pieces: Iterable<string>): Promise<Uint8Array> {
  const texts: string[] = [];
  let bytes = 0;
  for (const text of slices(pieces)) {
    texts.push(text);
    bytes += Buffer.byteLength(text);
    await yieldToLoop();
  }
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const [i, text] of texts.entries()) {
    if (i > 0) await yieldToLoop();
    at += out.write(text, at);
  }
  return out;
}

/**
 * `value` as res.json answers it (the same text and Content-Type), written in slices: an answer
 * of one slice goes in one write with its length; a larger one chunked, each slice once the
 * socket took the one before (a client that reads nothing holds one slice and the socket's
 * buffer, and is dropped after SSE_DRAIN_TIMEOUT_MS, as a stream is).
 */
export async function sendJson(res: Response, value: unknown): Promise<void> {
  res.set("Content-Type", "application/json; charset=utf-8");
  const all = slices(jsonPieces(value));
  const first = all.next();
  // A turn after every slice, the first too: two slices built back to back were one block of
  // twice the size, and the second is only needed to tell a one-slice answer from a longer one.
  if (!first.done) await yieldToLoop();
  const second = first.done ? first : all.next();
  if (second.done) {
    const text = first.done ? "" : first.value;
    res.set("Content-Length", String(Buffer.byteLength(text)));
    res.end(text);
    return;
  }
  for (const text of [first.value!, second.value]) if (!(await write(res, text))) return;
  for (const text of all) if (!(await write(res, text))) return;
  res.end();
}

/**
 * Writes one slice and waits for the socket to take it or for the next turn; false once the client
 * is gone. As bytes: a string written is measured (Buffer.byteLength, for the chunk's length) and
 * then encoded, two passes over it, where Buffer.from is one (measured on 30 MB, at load 16: 46-65
 * ms for both, 23-30 for one).
 */
async function write(res: Response, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(Buffer.from(text))) await yieldToLoop();
  else await drained(res);
  return !res.destroyed;
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => res.destroy(), SSE_DRAIN_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
