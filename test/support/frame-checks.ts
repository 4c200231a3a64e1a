/**
 * What the foreign-agent tests read off a stream's frames, and their one bounded poll: one owner,
 * where agent-runner, its double-texting file, remote-agent and foreign-ingest each had a copy.
 */
import type { SseFrame } from "./sse-client.ts";

/** The run's terminal frames (RUN_FINISHED or RUN_ERROR): a correct stream has exactly one. */
export const terminals = (frames: SseFrame[]) => frames.filter((f) => f.event.type === "RUN_ERROR" || f.event.type === "RUN_FINISHED");

/** The text the frames carry, their TEXT_MESSAGE_CONTENT deltas joined. */
export const textOf = (frames: SseFrame[]) =>
  frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => f.event.delta as string).join("");

/**
 * Bounded wait for what only a poll can see (what a remote recorded, a count inside a runner, a
 * status): no event announces it. Fails after `ms` with the last value read.
 */
export async function eventually<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
