/** The benchmarks' measure of a read: its wall time and the event loop's longest block meanwhile. */

/**
 * Runs `fn`, measuring its wall time and the longest event-loop block while it ran: a 1 ms timer
 * re-armed on every tick records how late it fired. Rejected: perf_hooks.monitorEventLoopDelay,
 * which records nothing for a block that ends after its last sample (it read 0 ms for the
 * one-shot row, a single block of a second).
 */
export async function measure(fn: () => Promise<string>): Promise<{ ms: number; maxBlockMs: number; detail: string }> {
  let maxBlockMs = 0;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    maxBlockMs = Math.max(maxBlockMs, now - last - 1);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  const started = performance.now();
  const detail = await fn();
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 5)); // the probe's next tick records a block that just ended
  clearTimeout(timer);
  return { ms, maxBlockMs, detail };
}
