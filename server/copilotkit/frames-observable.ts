/**
 * A run's or a connect's frames as the Observable a CopilotKit runtime subscribes to: pulled one
 * at a time and stopped on unsubscribe (the runtime unsubscribes when its client leaves; the run
 * goes on). A refusal before the first frame becomes one RUN_ERROR carrying the code and sentence
 * the HTTP routes answer with, so the browser shows why; a fault after it errors the stream, as
 * the SSE routes close theirs. One owner for both runners (runner.ts for Threadline's agents,
 * app-runner.ts for an app's own runtime), which had each spelled it out.
 *
 * `rx` is the rxjs the runtime itself uses (runtime-packages.ts), passed in rather than imported:
 * rxjs comes with the optional `@copilotkit/runtime` peer, never with this package.
 */
import type { Logger } from "pino";
import type * as Rxjs from "rxjs";
import type { Frame } from "../../protocol/frames.ts";
import { describeError } from "../http/errors.ts";

export interface FramesFailure {
  logger: Logger;
  /** The log line's message for a fault (after the first frame, or not a refusal). */
  message: string;
  /** Fields the log line carries besides the error. */
  context?: Record<string, unknown>;
  /** The RUN_ERROR's metadata (the request id, where the runner knows it). */
  metadata?: Record<string, unknown>;
}

export function framesObservable(
  rx: Pick<typeof Rxjs, "Observable">,
  open: (signal: AbortSignal) => Promise<AsyncIterable<Frame> | undefined>,
  failure: FramesFailure,
): Rxjs.Observable<unknown> {
  return new rx.Observable<unknown>((subscriber) => {
    const aborter = new AbortController();
    let started = false;
    (async () => {
      const frames = await open(aborter.signal);
      if (!frames) return;
      for await (const frame of frames) {
        if (subscriber.closed) break;
        started = true;
        subscriber.next(frame.event);
      }
    })().then(
      () => subscriber.complete(),
      (err: unknown) => {
        if (aborter.signal.aborted) return subscriber.complete();
        const known = describeError(err);
        if (started || !known || known.status >= 500) failure.logger.error({ err, ...failure.context }, failure.message);
        if (started) return subscriber.error(err);
        subscriber.next({
          type: "RUN_ERROR",
          code: known?.code ?? "INTERNAL_ERROR",
          message: known?.message ?? "The server failed on this request. It has been logged; try again, and report it if it persists.",
          ...(failure.metadata !== undefined && { metadata: failure.metadata }),
        });
        subscriber.complete();
      },
    );
    return () => aborter.abort();
  });
}
