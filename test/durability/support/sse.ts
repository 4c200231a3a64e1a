/**
 * A byte-level SSE reader that can hang up anywhere: after N whole frames (between frames), or
 * after N whole frames plus a prefix of the next one (a frame cut in half). Only frames whose
 * terminating blank line arrived before the cut count as received, as in a real client. The
 * hang-up is real: the fetch is aborted, which destroys the socket mid-body. It splits on bytes
 * rather than text (so a cut can land inside a multi-byte character) and leaves the parsing of
 * each block to the shared reader.
 */
import { parseSseBlock } from "../../../protocol/sse-read.ts";
import { frameOf } from "../../support/sse-client.ts";

export interface Frame {
  id: string;
  event: { type: string; [key: string]: unknown };
}

export interface Cut {
  /** Whole frames to accept before hanging up. */
  frames: number;
  /** Also take a random prefix (at least one byte, never the whole) of the next frame. */
  partial: boolean;
  /** Hang up right after a terminal frame (RUN_FINISHED / RUN_ERROR) instead. */
  afterTerminal?: boolean;
}

export interface ReadResult {
  status: number;
  frames: Frame[];
  /** The server ended the response (no hang-up on our side). */
  ended: boolean;
  /** We hung up; `partialBytes` of a frame were dropped when cut mid-frame. */
  cut: boolean;
  partialBytes: number;
  rawLength: number;
}

export interface ReadOptions {
  body: unknown;
  headers?: Record<string, string>;
  cut?: Cut;
  /** Random source for the mid-frame cut offset. */
  random?: () => number;
}

const SEP = Buffer.from("\n\n");

export const isTerminal = (f: Frame) => f.event.type === "RUN_FINISHED" || f.event.type === "RUN_ERROR";

/** Parses one SSE block; undefined for a comment-only block (keep-alive). */
function parseBlock(raw: string): Frame | undefined {
  const frame = frameOf(parseSseBlock(raw));
  if (frame && frame.id === undefined) throw new Error(`frame without an id: ${raw}`);
  return frame as Frame | undefined;
}

export async function readSse(url: string, opts: ReadOptions): Promise<ReadResult> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...opts.headers },
    body: JSON.stringify(opts.body),
    signal: controller.signal,
  });
  const out: ReadResult = { status: res.status, frames: [], ended: false, cut: false, partialBytes: 0, rawLength: 0 };
  const { cut } = opts;
  const random = opts.random ?? Math.random;
  let pending = Buffer.alloc(0);
  const hangUp = (partialBytes = 0) => {
    out.cut = true;
    out.partialBytes = partialBytes;
    controller.abort();
  };
  const wholeFramesReached = () => cut !== undefined && !cut.afterTerminal && out.frames.length >= cut.frames;
  if (wholeFramesReached() && !cut!.partial) {
    hangUp();
    return out;
  }
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      out.rawLength += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(SEP);
        if (wholeFramesReached() && pending.length > 0) {
          // Cut inside the next frame: keep 1..(its length without the final "\n") bytes.
          const bound = end >= 0 ? end + 1 : pending.length;
          hangUp(1 + Math.floor(random() * bound));
          return out;
        }
        if (end < 0) break;
        const frame = parseBlock(pending.subarray(0, end).toString("utf8"));
        pending = pending.subarray(end + SEP.length);
        if (!frame) continue;
        out.frames.push(frame);
        if (cut?.afterTerminal && isTerminal(frame)) {
          hangUp();
          return out;
        }
        if (wholeFramesReached() && !cut!.partial) {
          hangUp();
          return out;
        }
      }
    }
    out.ended = true;
    if (pending.toString("utf8").trim() !== "") throw new Error(`stream ended inside a frame: ${pending.toString("utf8")}`);
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return out;
}

/** Reads a whole response (no hang-up). */
export async function readAll(url: string, body: unknown, headers?: Record<string, string>): Promise<ReadResult> {
  return readSse(url, { body, ...(headers && { headers }) });
}

/** The raw SSE text of a response, for feeding to the real clients. */
export async function sseBody(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.text();
}

/** mulberry32: a small seeded PRNG, so a failing schedule reproduces from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
