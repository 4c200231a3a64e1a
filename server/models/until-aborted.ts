/**
 * A model's stream that ends the moment the run's signal aborts, whatever the model does with the
 * signal: each pull races the model's next part against the abort, and on abort the model's
 * iterator is told to return (not awaited) and the abort's reason is thrown, as an aborted
 * request's error would be. The engine owns this bound because a run that waits on a stream after
 * its abort never settles: it keeps its thread's entry and never says "run left for recovery".
 *
 * Rejected: trusting every Model to end its stream on abort. The openai SDK 6.49's stream,
 * aborted while the rest of its body was arriving, delivered those parts and then never ended
 * (measured: the lease-lost run of the SIGSTOP takeover test hung after its last token; with the
 * SDK 7.57 it ended); a Model an application writes may ignore the signal altogether.
 */

/**
 * The pulls of a model's stream, each ended by the abort: the engine pulls through it directly
 * (engine/llm-task.ts), so a token passes no generator of its own here. The race is one promise
 * per pull whose reject the abort listener holds. Rejected: `Promise.race([next, aborted])` against
 * one promise of the whole stream, which allocated an array and two reactions per token and left
 * a reaction per token on the never-settled abort promise for the stream's whole life (docs/
 * performance.md, "The hops a token takes").
 */
export class AbortableParts<T> {
  readonly #iterator: AsyncIterator<T>;
  readonly #signal: AbortSignal;
  readonly #onAbort: () => void;
  #reject: ((reason: unknown) => void) | undefined;
  #done = false;

  constructor(parts: AsyncIterable<T>, signal: AbortSignal) {
    this.#iterator = parts[Symbol.asyncIterator]();
    this.#signal = signal;
    this.#onAbort = () => this.#reject?.(reasonOf(signal));
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** The model's next part, or the abort's reason thrown, whichever comes first. */
  next(): Promise<IteratorResult<T, unknown>> {
    // An abort that came while the part was in use wins over a part the model has ready.
    if (this.#signal.aborted) return Promise.reject(reasonOf(this.#signal));
    return new Promise<IteratorResult<T, unknown>>((resolve, reject) => {
      this.#reject = reject;
      // A pull the abort overtook may still settle later: it settles a promise already rejected,
      // which is a no-op, never an unhandled rejection.
      this.#iterator.next().then((result) => {
        if (result.done) this.#done = true;
        resolve(result);
      }, reject);
    });
  }

  /**
   * Stops listening; a stream that did not end is told to return (not awaited). What that return
   * throws is dropped: the run has already ended by its abort or its error, which is what is reported.
   */
  close(): void {
    this.#reject = undefined;
    this.#signal.removeEventListener("abort", this.#onAbort);
    if (!this.#done) void Promise.resolve(this.#iterator.return?.()).catch(() => {});
  }
}

export async function* untilAborted<T>(parts: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const pulls = new AbortableParts(parts, signal);
  try {
    for (;;) {
      const result = await pulls.next();
      if (result.done) return;
      yield result.value;
    }
  } finally {
    pulls.close();
  }
}

function reasonOf(signal: AbortSignal): unknown {
  return signal.reason ?? new Error("aborted");
}
