/**
 * Preloaded into the server under measurement (`node --import probe.mjs ...`): the event loop's
 * delay from the first moment the process runs JavaScript, by monitorEventLoopDelay (the figure
 * prom-client reports as nodejs_eventloop_lag_max) and by a 5 ms interval whose gaps over 100 ms
 * are kept with when they ended, so a stall can be matched to the log line around it. Plain
 * JavaScript: a TypeScript loader here would add its own transforms to the start being measured.
 * It answers one IPC message, "report", with what it saw so far.
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const gaps = [];
let last = performance.now();
const tick = setInterval(() => {
  const now = performance.now();
  if (now - last > 100) gaps.push({ endedAtMs: Math.round(now), ms: Math.round(now - last) });
  last = now;
}, 5);
tick.unref();

process.on("message", (m) => {
  if (m !== "report") return;
  process.send?.({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, atMs: Math.round(performance.now()), gaps });
});
// The IPC channel must not keep a server alive that was told to stop.
process.channel?.unref();
