/**
 * The parent's side of the lock-wait sampler (lock-waits.ts): start sampling a schema's lock
 * waits when a scenario starts, take the figures when it ends. One scenario at a time, as the
 * benchmark runs them; a sampler that does not answer within STOP_TIMEOUT_MS gives no figures.
 */
import type { LockFigures } from "./child.ts";
import type { Child } from "./processes.ts";
import { within } from "./sse.ts";

const STOP_TIMEOUT_MS = 10_000;

export type LockWatch = () => { stop(): Promise<LockFigures | undefined> };

export function lockWatch(sampler: Child, schema: string): LockWatch {
  let pending: ((f: LockFigures | undefined) => void) | undefined;
  sampler.onMessage((msg) => {
    if (msg.type !== "locks") return;
    if (msg.error) process.stderr.write(`  lock-wait sampler: ${msg.error}\n`);
    pending?.(msg.figures);
    pending = undefined;
  });
  return () => {
    sampler.send({ type: "locks-start", schema });
    return {
      stop: () =>
        within(
          new Promise<LockFigures | undefined>((resolve) => {
            pending = resolve;
            sampler.send({ type: "locks-stop" });
          }),
          STOP_TIMEOUT_MS,
        ),
    };
  };
}
