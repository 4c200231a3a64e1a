/**
 * The load drivers' client: raw fetch and the tests' SSE reader, no SDK, so every system is
 * read by the same few lines. Records when the request went out, when RUN_STARTED arrived, and
 * for every token stamp in a TEXT_MESSAGE_CONTENT (or _CHUNK) the upstream write → client receive latency.
 * Every stream has a deadline; nothing waits forever.
 */
import { readSseFrames } from "../../support/sse-client.ts";
import { now } from "./child.ts";
import { stampsIn } from "./pacing.ts";

export interface StreamResult {
  status: number;
  /** Absolute ms: when the request was issued, when RUN_STARTED arrived, when the stream ended. */
  sentAt: number;
  runStartedAt: number | undefined;
  endedAt: number;
  /** The `id:` of the RUN_STARTED frame (a replay cursor), when the system sends ids. */
  runStartedId: string | undefined;
  frames: number;
  /** Upstream write → client receive, ms, one per token stamp received. */
  latencies: number[];
  finished: boolean;
  /** The message of a RUN_ERROR frame: the run failed (or was cancelled), the stream did not. */
  runError: string | undefined;
  /** A transport failure: HTTP status, network error, deadline. */
  error: string | undefined;
}

export interface StreamOptions {
  method?: "POST" | "GET";
  body?: unknown;
  deadlineMs: number;
  /** Called for every frame as it arrives (type, id, receive time). */
  onEvent?: (type: string, id: string | undefined, at: number) => void;
  /** Aborting this ends the stream on purpose: not an error. */
  signal?: AbortSignal;
}

export async function readStream(url: string, opts: StreamOptions): Promise<StreamResult> {
  const deadline = AbortSignal.timeout(opts.deadlineMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const result: StreamResult = {
    status: 0,
    sentAt: now(),
    runStartedAt: undefined,
    endedAt: 0,
    runStartedId: undefined,
    frames: 0,
    latencies: [],
    finished: false,
    runError: undefined,
    error: undefined,
  };
  try {
    const res = await fetch(url, {
      method: opts.method ?? "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal,
    });
    result.status = res.status;
    if (res.status !== 200 || !res.body) {
      result.error = `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`;
      return result;
    }
    for await (const frame of readSseFrames(res.body as AsyncIterable<Uint8Array>)) {
      const at = now();
      const { id } = frame;
      const event = frame.event as { type: string; delta?: string; message?: string };
      result.frames++;
      if (event.type === "RUN_STARTED" && result.runStartedAt === undefined) {
        result.runStartedAt = at;
        result.runStartedId = id;
      } else if ((event.type === "TEXT_MESSAGE_CONTENT" || event.type === "TEXT_MESSAGE_CHUNK") && typeof event.delta === "string") {
        // CHUNK: the AG-UI event that a client expands into START/CONTENT/END itself (Mastra's
        // bridge sends its text so); it carries the token in the same frame.
        for (const stamp of stampsIn(event.delta)) result.latencies.push(at - stamp);
      } else if (event.type === "RUN_FINISHED") {
        result.finished = true;
      } else if (event.type === "RUN_ERROR") {
        result.runError = event.message ?? "";
      }
      opts.onEvent?.(event.type, id, at);
    }
  } catch (err) {
    if (opts.signal?.aborted) {
      // Ended by the driver on purpose.
    } else if (deadline.aborted) {
      result.error = `no end within ${opts.deadlineMs} ms`;
    } else {
      result.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
  }
  result.endedAt = now();
  return result;
}

/** A promise with its resolver outside, for "the frame where X happened". */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves with the promise's value, or undefined once ms have passed. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    void promise.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}
