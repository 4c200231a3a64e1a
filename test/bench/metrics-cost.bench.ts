/**
 * The cost per event of Threadline's Prometheus metrics: `npx tsx test/bench/metrics-cost.bench.ts`.
 *
 * What a live token costs in metric updates, on the server's own registry (createMetrics), one
 * stream per run as in bench:peers' concurrent scenarios:
 * - per frame written to a stream (server/http/sse-response.ts): framesSent.inc, bufferedFrames
 *   inc, bufferedBytes inc(bytes) in #send; bufferedFrames dec, bufferedBytes dec in #flushed;
 * - per live event per stream (server/http/stream-lag.ts): streamLag's "handover" child .observe;
 * - per flush (server/threadline.ts, the writer's onFlush): appendBatch.observe(events),
 *   commitDuration.observe({ outcome }, s). Counted here once per FLUSH_EVERY events, and also
 *   at one flush per event (the bound: a token that arrives alone is a flush of its own).
 *
 * Measured against the same loop without them: each loop encodes the token's SSE frame (the
 * server's encodeFrame, work every token does anyway), so the ratio says what the metrics add
 * to the least per-token work. Rounds alternate baseline / with metrics; figures are medians
 * over rounds of CPU ns per event, and the spread. Then each update alone, to say which costs. Not a test: nothing asserts a time.
 */
import type { Frame } from "../../protocol/project.ts";
import { encodeFrame } from "../../protocol/sse.ts";
import { createMetrics } from "../../server/metrics.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const EVENTS = 200_000;
const FLUSH_EVERY = Number(process.env.BENCH_FLUSH_EVERY ?? 4);

const metrics = createMetrics();
const handover = metrics.streamLag.labels("handover");

const frame = (i: number): Frame =>
  ({ id: `run-1:${i}`, event: { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: ` ~${(1764000000000 + i).toFixed(3)}` } }) as unknown as Frame;
const frames = Array.from({ length: 1024 }, (_, i) => frame(i));

let sink = 0;

function baseline(n: number): void {
  for (let i = 0; i < n; i++) sink += encodeFrame(frames[i & 1023]!).length;
}

function withMetrics(n: number, flushEvery: number): void {
  for (let i = 0; i < n; i++) {
    const chunk = encodeFrame(frames[i & 1023]!);
    const bytes = Buffer.byteLength(chunk);
    // sse-response.ts: write() and #send()
    metrics.framesSent.inc();
    metrics.bufferedFrames.inc();
    metrics.bufferedBytes.inc(bytes);
    // stream-lag.ts
    handover.observe(0.0012);
    // sse-response.ts: #flushed(), the socket took the bytes
    metrics.bufferedFrames.dec();
    metrics.bufferedBytes.dec(bytes);
    // threadline.ts: the writer's onFlush
    if (i % flushEvery === 0) {
      metrics.appendBatch.observe(flushEvery);
      metrics.commitDuration.observe({ outcome: "ok" }, 0.003);
    }
    sink += bytes;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** CPU time, not wall time: on a shared machine the loop is descheduled, and that is not its cost. */
const nsPerEvent = (fn: () => void) => {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return ((d.user + d.system) * 1000) / EVENTS;
};

// Warm-up: JIT both loops.
baseline(EVENTS);
withMetrics(EVENTS, FLUSH_EVERY);
withMetrics(EVENTS, 1);

const base: number[] = [];
const perFlush: number[] = [];
const perEvent: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  base.push(nsPerEvent(() => baseline(EVENTS)));
  perFlush.push(nsPerEvent(() => withMetrics(EVENTS, FLUSH_EVERY)));
  perEvent.push(nsPerEvent(() => withMetrics(EVENTS, 1)));
}
const b = median(base);
const row = (label: string, xs: number[]) => {
  const m = median(xs);
  const added = xs.map((x, i) => x - base[i]!);
  return `| ${label} | ${m.toFixed(0)} | ${(m - b).toFixed(0)} (${Math.min(...added).toFixed(0)}–${Math.max(...added).toFixed(0)}) | ${(m / b).toFixed(2)}x |`;
};
console.log(`\nmetrics-cost: ${EVENTS.toLocaleString("en-US")} events per loop, ${ROUNDS} rounds alternating, Node ${process.version}\n`);
console.log("| loop | ns per event (median) | added by the metrics, ns per event (median; range over rounds, paired) | ÷ baseline |");
console.log("|---|---:|---:|---:|");
console.log(`| baseline: encodeFrame only | ${b.toFixed(0)} | — | 1.00x |`);
console.log(row(`+ metrics, a flush per ${FLUSH_EVERY} events`, perFlush));
console.log(row("+ metrics, a flush per event", perEvent));

// Each update alone (CPU ns per call, median of rounds): which of them the cost is.
const ops: [string, () => void][] = [
  ["Counter.inc() (framesSent)", () => metrics.framesSent.inc()],
  ["Gauge.inc() / .dec() (bufferedFrames)", () => metrics.bufferedFrames.inc()],
  ["Gauge.inc(bytes) (bufferedBytes)", () => metrics.bufferedBytes.inc(120)],
  ["Histogram child .observe(s) (streamLag, 11 buckets 0.001–5)", () => handover.observe(0.0012)],
  ["Histogram .observe(n) (appendBatch, 6 buckets 1–1024)", () => metrics.appendBatch.observe(4)],
  ["Histogram .observe({ outcome }, s) (commitDuration, 10 buckets 0.001–5)", () => metrics.commitDuration.observe({ outcome: "ok" }, 0.003)],
];
console.log("\n| one update | CPU ns per call (median) |\n|---|---:|");
for (const [name, fn] of ops) {
  const xs: number[] = [];
  for (let r = 0; r < 5; r++)
    xs.push(
      nsPerEvent(() => {
        for (let i = 0; i < EVENTS; i++) fn();
      }),
    );
  console.log(`| ${name} | ${median(xs).toFixed(0)} |`);
}
if (sink === 0) console.log("(sink)");
