/** An observer that also calls `onEnd` after each run end this instance commits (the webhook worker's wake-up). */
import type { EngineObserver } from "./observer.ts";

export function wakeOnRunEnd(observer: EngineObserver, onEnd: () => void): EngineObserver {
  return {
    runExecuting: (run, opts) => observer.runExecuting(run, opts),
    runEnded(run, end) {
      observer.runEnded(run, end);
      onEnd();
    },
    runQueued: (run) => observer.runQueued(run),
    recovery: (run, outcome) => observer.recovery(run, outcome),
    heartbeatFailed: () => observer.heartbeatFailed(),
  };
}
