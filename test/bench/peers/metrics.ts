/**
 * The table's rows: every figure the drivers produce, with its unit, which direction is better
 * (that picks the best peer), and the hot-path goal Threadline on Postgres is held to. A goal is
 * a predicate over the figure, the floor's and the best peer's, because some goals are relative.
 */
export interface Context {
  floor: number | undefined;
  peer: number | undefined;
}

export interface MetricDef {
  key: string;
  label: string;
  unit: string;
  better: "lower" | "higher" | "none";
  goal?: { text: string; met(value: number, ctx: Context): boolean };
}

const atMost = (limit: number, unit = "ms") => ({ text: `≤ ${limit} ${unit}`, met: (v: number) => v <= limit });
const zero = { text: "0", met: (v: number) => v === 0 };
const all = { text: "100 %", met: (v: number) => v >= 100 };

/**
 * Issue 23's stalls: the worst token and the tokens held more than 20 ms beyond the upstream's
 * write, with what could hold them: the system's garbage collections (all systems) and the lock
 * waits in its database schema (Threadline on Postgres). The goal is on the causes: no collection
 * or lock wait over 20 ms; a token can also wait its turn for a core on a busy machine.
 */
function stallRows(key: string, what: string): MetricDef[] {
  return [
    { key: `${key}.max`, label: `${what}: token latency max`, unit: "ms", better: "lower" },
    { key: `${key}.over20`, label: `${what}: tokens held > 20 ms`, unit: "tokens", better: "lower" },
    { key: `${key}.gcCount`, label: `${what}: server GC pauses`, unit: "count", better: "lower" },
    { key: `${key}.gcMax`, label: `${what}: server GC pause max`, unit: "ms", better: "lower", goal: atMost(20) },
    { key: `${key}.lockWaits`, label: `${what}: lock waits seen in the schema (sampled every ≥ 5 ms)`, unit: "count", better: "none" },
    { key: `${key}.lockMax`, label: `${what}: longest lock wait seen (its statement's time)`, unit: "ms", better: "lower", goal: atMost(20) },
  ];
}

function concurrentRows(key: string, runs: number, tokens: number, intervalMs: number): MetricDef[] {
  const what = `${runs} concurrent runs (${tokens} tokens at ${intervalMs} ms)`;
  return [
    { key: `${key}.p50`, label: `${what}: token latency p50`, unit: "ms", better: "lower" },
    { key: `${key}.p99`, label: `${what}: token latency p99`, unit: "ms", better: "lower", goal: atMost(250) },
    { key: `${key}.errors`, label: `${what}: errors`, unit: "runs", better: "none", goal: zero },
    { key: `${key}.within1s`, label: `${what}: RUN_STARTED within 1 s`, unit: "%", better: "higher", goal: all },
    { key: `${key}.startedMax`, label: `${what}: slowest RUN_STARTED`, unit: "ms", better: "lower" },
    { key: `${key}.tokensPerSec`, label: `${what}: tokens delivered per second`, unit: "tok/s", better: "higher" },
    ...stallRows(key, what),
  ];
}

export interface Sizes {
  admissionRuns: number;
  single: { tokens: number; intervalMs: number };
  c200: { runs: number; tokens: number; intervalMs: number };
  c500: { runs: number; tokens: number; intervalMs: number } | undefined;
  replay: { tokens: number; times: number };
  idleStreams: number;
  cancels: number;
}

export function metricRows(s: Sizes): MetricDef[] {
  const rows: MetricDef[] = [
    { key: "admit.p50", label: "POST → RUN_STARTED p50", unit: "ms", better: "lower", goal: atMost(10) },
    { key: "admit.p95", label: "POST → RUN_STARTED p95", unit: "ms", better: "lower", goal: atMost(30) },
    { key: "admit.errors", label: `POST → RUN_STARTED: errors (of ${s.admissionRuns})`, unit: "runs", better: "none", goal: zero },
    {
      key: "token.p50",
      label: `token latency, upstream write → client (${s.single.tokens} tokens at ${s.single.intervalMs} ms) p50`,
      unit: "ms",
      better: "lower",
      goal: { text: "≤ 3 ms and ≤ 1.2x peer", met: (v, c) => v <= 3 && (c.peer === undefined || v <= 1.2 * c.peer) },
    },
    {
      key: "token.p99",
      label: `token latency, upstream write → client (${s.single.tokens} tokens at ${s.single.intervalMs} ms) p99`,
      unit: "ms",
      better: "lower",
      goal: { text: "≤ 15 ms and ≤ 1.2x peer", met: (v, c) => v <= 15 && (c.peer === undefined || v <= 1.2 * c.peer) },
    },
    ...stallRows("token", `one stream (${s.single.tokens} tokens at ${s.single.intervalMs} ms)`),
    ...concurrentRows("c200", s.c200.runs, s.c200.tokens, s.c200.intervalMs),
    {
      key: "c200.cpuPer1k",
      label: `server CPU per 1k tokens (in the ${s.c200.runs}-run scenario)`,
      unit: "ms",
      better: "lower",
      goal: { text: "≤ 1.3x floor", met: (v, c) => c.floor !== undefined && v <= 1.3 * c.floor },
    },
  ];
  if (s.c500) {
    rows.push(...concurrentRows("c500", s.c500.runs, s.c500.tokens, s.c500.intervalMs));
    rows.push({ key: "c500.cpuPer1k", label: `server CPU per 1k tokens (in the ${s.c500.runs}-run scenario)`, unit: "ms", better: "lower" });
  }
  const k = `${(s.replay.tokens / 1000).toLocaleString("en-US")}k`;
  rows.push(
    { key: "catchup.p95", label: `catch-up: full replay of a finished ${k}-token run (connect), p95`, unit: "ms", better: "lower", goal: atMost(150) },
    { key: "reload.thread.p95", label: `reload of a ${k}-token thread: GET /api/threads/:id, p95`, unit: "ms", better: "lower", goal: atMost(50) },
    { key: "reload.connect.p95", label: `reload of a ${k}-token thread: connect without cursor, p95`, unit: "ms", better: "lower", goal: atMost(50) },
    { key: "catchup.errors", label: "catch-up and reload: errors", unit: "count", better: "none", goal: zero },
    { key: "idle.kib", label: `memory per idle stream (RSS, ${s.idleStreams} connect streams)`, unit: "KiB", better: "lower" },
    { key: "idle.heapKib", label: "memory per idle stream (JS heap)", unit: "KiB", better: "lower" },
    { key: "idle.perGiB", label: "idle streams per GiB (RSS)", unit: "streams", better: "higher", goal: { text: "≥ 40,000", met: (v) => v >= 40_000 } },
    { key: "idle.errors", label: "idle streams: errors", unit: "count", better: "none", goal: zero },
    { key: "cancel.p95", label: `cancel → upstream closed p95 (${s.cancels} cancels)`, unit: "ms", better: "lower", goal: atMost(100) },
    { key: "cancel.errors", label: "cancel: errors", unit: "count", better: "none", goal: zero },
  );
  return rows;
}
