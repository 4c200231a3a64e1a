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
export async function* untilAborted<T>(parts: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const iterator = parts[Symbol.asyncIterator]();
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason ?? new Error("aborted"));
  });
  aborted.catch(() => {}); // observed by the race below; never unhandled
  signal.addEventListener("abort", onAbort, { once: true });
  let done = false;
  try {
    while (true) {
      // An abort that came while the part was in use wins over a part the model has ready.
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      const next = iterator.next();
      // A pull the abort overtook may still fail later, when nobody waits for it.
      next.catch(() => {});
      const result = await Promise.race([next, aborted]);
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!done) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}
