/**
 * The load drivers: one function per scenario, each run against one system and returning its
 * figures by metric key (metrics.ts names them). Every loop is bounded in count and time; a run
 * that fails, ends early, or loses tokens counts as an error, never as a fast sample.
 */
import { randomUUID } from "node:crypto";
import { now } from "./child.ts";
import { benchPrompt, type Pacing } from "./pacing.ts";
import { deferred, readStream, within, type StreamResult } from "./sse.ts";
import type { Endpoint, System } from "./systems.ts";

export type Figures = Record<string, number>;

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ids = (prefix: string) => {
  const tag = `${prefix}-${randomUUID().slice(0, 8)}`;
  return { tag, threadId: `th-${tag}`, runId: `run-${tag}` };
};

/** A run's deadline: its pacing plus room for a system that queues. */
const deadlineFor = (tokens: number, intervalMs: number, slackMs: number) => tokens * intervalMs + slackMs;

function startRun(sys: System, pacing: Omit<Pacing, "tag">, prefix: string, opts: { slackMs?: number; onEvent?: (type: string, id: string | undefined, at: number) => void; signal?: AbortSignal } = {}) {
  const { tag, threadId, runId } = ids(prefix);
  const ep = sys.run(threadId, runId, benchPrompt({ tag, ...pacing }));
  const result = readStream(ep.url, { body: ep.body, deadlineMs: deadlineFor(pacing.tokens, pacing.intervalMs, opts.slackMs ?? 30_000), onEvent: opts.onEvent, signal: opts.signal });
  return { tag, threadId, result };
}

/** An error reason for a run that should have delivered `tokens` stamps, or undefined. */
function runError(r: StreamResult, tokens: number): string | undefined {
  if (r.error) return r.error;
  if (r.runError !== undefined) return `RUN_ERROR: ${r.runError}`;
  if (!r.finished) return "ended without RUN_FINISHED";
  if (r.latencies.length < tokens) return `lost tokens: ${r.latencies.length} of ${tokens}`;
  return undefined;
}

function noteErrors(sys: System, scenario: string, errors: string[]): void {
  if (errors.length === 0) return;
  const sample = [...new Set(errors)].slice(0, 3).join(" | ");
  process.stderr.write(`  ${sys.label}, ${scenario}: ${errors.length} error(s), e.g. ${sample}\n`);
}

/** POST → RUN_STARTED, sequential short runs on fresh threads. */
export async function admission(sys: System, runs: number): Promise<Figures> {
  const samples: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < runs; i++) {
    const { result } = startRun(sys, { tokens: 3, intervalMs: 0 }, "admit", { slackMs: 15_000 });
    const r = await result;
    const err = runError(r, 3);
    if (err || r.runStartedAt === undefined) errors.push(err ?? "no RUN_STARTED");
    else samples.push(r.runStartedAt - r.sentAt);
  }
  noteErrors(sys, "admission", errors);
  return { "admit.p50": percentile(samples, 50), "admit.p95": percentile(samples, 95), "admit.errors": errors.length };
}

/** A token held longer than this beyond the upstream's write is a stall (issue 23: collections and lock waits under it). */
export const STALL_MS = 20;

/**
 * Around a scenario: the system's CPU and collections (its probe) and, where it has them, the
 * lock waits in its schema. `key.*` figures: GC count and longest pause, lock waits seen and the
 * longest (bounds as lock-waits.ts says).
 */
async function watched<T>(sys: System, key: string, fn: () => Promise<T>): Promise<{ value: T; cpuMs: number; figures: Figures }> {
  const before = await sys.child.probe();
  const locks = sys.locks?.();
  const value = await fn();
  const lockFigures = await locks?.stop();
  const after = await sys.child.probe();
  const figures: Figures = { [`${key}.gcCount`]: after.gcCount, [`${key}.gcMax`]: after.gcMaxMs };
  if (lockFigures) {
    figures[`${key}.lockWaits`] = lockFigures.waits;
    figures[`${key}.lockMax`] = lockFigures.longestStatementMs;
    process.stderr.write(
      `  ${sys.label}, ${key}: lock waits ${lockFigures.waits}, longest seen ${lockFigures.longestSeenMs.toFixed(1)}–${lockFigures.longestStatementMs.toFixed(1)} ms, ${lockFigures.samples} samples every ${lockFigures.intervalMs.toFixed(1)} ms${lockFigures.longest ? `; longest: ${lockFigures.longest}` : ""}\n`,
    );
  }
  return { value, cpuMs: after.cpuMs - before.cpuMs, figures };
}

/** Token latency's worst and the tokens held more than STALL_MS. */
function stalls(key: string, latencies: number[]): Figures {
  if (latencies.length === 0) return {};
  let max = Number.NaN;
  let over = 0;
  for (const l of latencies) {
    if (!(l <= max)) max = l;
    if (l > STALL_MS) over++;
  }
  return { [`${key}.max`]: max, [`${key}.over20`]: over };
}

/** One stream of paced tokens: upstream write → client receive, per token. */
export async function tokenLatency(sys: System, tokens: number, intervalMs: number): Promise<Figures> {
  const { value: r, figures } = await watched(sys, "token", () => startRun(sys, { tokens, intervalMs }, "token").result);
  const err = runError(r, tokens);
  noteErrors(sys, "token latency", err ? [err] : []);
  return {
    "token.p50": percentile(r.latencies, 50),
    "token.p99": percentile(r.latencies, 99),
    ...stalls("token", r.latencies),
    ...figures,
    "token.errors": err ? 1 : 0,
  };
}

/** `runs` runs started at once; the server's CPU over the whole scenario per 1k tokens. */
export async function concurrent(sys: System, key: string, runs: number, tokens: number, intervalMs: number): Promise<Figures> {
  const { value, cpuMs, figures } = await watched(sys, key, async () => {
    const t0 = now();
    const results = await Promise.all(Array.from({ length: runs }, () => startRun(sys, { tokens, intervalMs }, key, { slackMs: 120_000 }).result));
    return { results, elapsed: now() - t0 };
  });
  const { results, elapsed } = value;
  const latencies: number[] = [];
  const errors: string[] = [];
  let within1s = 0;
  let startedMax = 0;
  for (const r of results) {
    for (const l of r.latencies) latencies.push(l);
    const err = runError(r, tokens);
    if (err) errors.push(err);
    if (r.runStartedAt !== undefined) {
      const started = r.runStartedAt - r.sentAt;
      startedMax = Math.max(startedMax, started);
      if (started <= 1000) within1s++;
    }
  }
  noteErrors(sys, `${runs} concurrent runs`, errors);
  return {
    [`${key}.p50`]: percentile(latencies, 50),
    [`${key}.p99`]: percentile(latencies, 99),
    [`${key}.errors`]: errors.length,
    [`${key}.within1s`]: (within1s / runs) * 100,
    [`${key}.startedMax`]: startedMax,
    [`${key}.tokensPerSec`]: (latencies.length / elapsed) * 1000,
    [`${key}.cpuPer1k`]: latencies.length > 0 ? (cpuMs / latencies.length) * 1000 : Number.NaN,
    ...stalls(key, latencies),
    ...figures,
  };
}

async function timed(ep: Endpoint, deadlineMs: number): Promise<{ ms: number; result: StreamResult }> {
  const result = await readStream(ep.url, { method: ep.method, body: ep.body, deadlineMs });
  return { ms: result.endedAt - result.sentAt, result };
}

async function timedJson(ep: Endpoint, deadlineMs: number): Promise<{ ms: number; error?: string }> {
  const t = now();
  try {
    const res = await fetch(ep.url, { method: ep.method ?? "GET", signal: AbortSignal.timeout(deadlineMs) });
    await res.json();
    return res.ok ? { ms: now() - t } : { ms: now() - t, error: `HTTP ${res.status}` };
  } catch (err) {
    return { ms: now() - t, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A finished run of `tokens` tokens, then `times` full replays of it (connect with the cursor of
 * its RUN_STARTED: every frame after it), then `times` reloads (GET the thread; connect without a
 * cursor). A replay that does not carry every token counts as an error.
 */
export async function replayAndReload(sys: System, tokens: number, times: number): Promise<Figures> {
  if (!sys.connect) return {};
  const { threadId, result } = startRun(sys, { tokens, intervalMs: 0 }, "replay", { slackMs: 120_000 });
  const run = await result;
  const runErr = runError(run, tokens);
  if (runErr) {
    noteErrors(sys, "replay (the 10k-token run itself)", [runErr]);
    return { "catchup.errors": times };
  }
  const cursor = run.runStartedId;
  const catchup: number[] = [];
  const reloadThread: number[] = [];
  const reloadConnect: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < times; i++) {
    const { ms, result: r } = await timed(sys.connect(threadId, cursor), 30_000);
    if (r.error || r.latencies.length < tokens) errors.push(r.error ?? `replay carried ${r.latencies.length} of ${tokens} tokens`);
    else catchup.push(ms);
  }
  if (sys.thread) {
    for (let i = 0; i < times; i++) {
      const get = await timedJson(sys.thread(threadId), 30_000);
      if (get.error) errors.push(`GET thread: ${get.error}`);
      else reloadThread.push(get.ms);
      const { ms, result: r } = await timed(sys.connect(threadId), 30_000);
      if (r.error || r.frames === 0) errors.push(r.error ?? "reload connect sent nothing");
      else reloadConnect.push(ms);
    }
  }
  noteErrors(sys, "replay/reload", errors);
  const figures: Figures = { "catchup.p95": percentile(catchup, 95), "catchup.errors": errors.length };
  if (sys.thread) {
    figures["reload.thread.p95"] = percentile(reloadThread, 95);
    figures["reload.connect.p95"] = percentile(reloadConnect, 95);
  }
  return figures;
}

/**
 * Memory per idle stream: a run that has sent its first token and then waits (the upstream holds
 * its next token for a minute), K connect streams attached to it, the server's RSS after a full
 * GC before and after, divided by K. Then the run is cancelled and every stream closed.
 */
export async function idleStreams(sys: System, k: number): Promise<Figures> {
  if (!sys.connect || !sys.cancel) return {};
  const firstToken = deferred<true>();
  const stop = new AbortController();
  const { threadId, result } = startRun(sys, { tokens: 2, intervalMs: 60_000 }, "idle", {
    onEvent: (type) => type === "TEXT_MESSAGE_CONTENT" && firstToken.resolve(true),
    signal: stop.signal,
  });
  const figures: Figures = {};
  const errors: string[] = [];
  if ((await within(firstToken.promise, 30_000)) === undefined) {
    errors.push("the slow run sent no token within 30 s");
  } else {
    const before = await sys.child.probe();
    let attached = 0;
    const allAttached = deferred<true>();
    const streams = Array.from({ length: k }, () => {
      const ep = sys.connect!(threadId);
      let counted = false;
      return readStream(ep.url, {
        body: ep.body,
        deadlineMs: 120_000,
        signal: stop.signal,
        onEvent: () => {
          if (counted) return;
          counted = true;
          if (++attached === k) allAttached.resolve(true);
        },
      });
    });
    if ((await within(allAttached.promise, 60_000)) === undefined) errors.push(`only ${attached} of ${k} connect streams attached within 60 s`);
    const after = await sys.child.probe();
    figures["idle.kib"] = (after.rss - before.rss) / attached / 1024;
    figures["idle.heapKib"] = (after.heapUsed - before.heapUsed) / attached / 1024;
    // A negative or zero delta (the heap shrank meanwhile) says nothing per stream: no figure.
    if (figures["idle.kib"]! > 0) figures["idle.perGiB"] = (1024 * 1024) / figures["idle.kib"]!;
    const c = sys.cancel(threadId);
    await fetch(c.url, { method: "POST", signal: AbortSignal.timeout(10_000) }).catch((err: unknown) => errors.push(`cancel: ${String(err)}`));
    // The streams end with the run (RUN_ERROR "cancelled" is how they should end, not an
    // error); any that do not end within 10 s are closed by the driver.
    const timer = setTimeout(() => stop.abort(), 10_000);
    for (const r of await Promise.all(streams)) if (r.error) errors.push(r.error);
    clearTimeout(timer);
  }
  stop.abort();
  await result;
  noteErrors(sys, "idle streams", errors);
  figures["idle.errors"] = errors.length;
  return figures;
}

/** Cancel → upstream closed: POST cancel once the first token arrived, until the upstream sees its request close. */
export async function cancel(sys: System, times: number, upstreamClosed: (tag: string) => Promise<number>): Promise<Figures> {
  if (!sys.cancel) return {};
  const samples: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < times; i++) {
    const firstToken = deferred<true>();
    const stop = new AbortController();
    const { tag, threadId, result } = startRun(sys, { tokens: 1000, intervalMs: 20 }, "cancel", {
      onEvent: (type) => type === "TEXT_MESSAGE_CONTENT" && firstToken.resolve(true),
      signal: stop.signal,
    });
    const closed = upstreamClosed(tag);
    if ((await within(firstToken.promise, 30_000)) === undefined) {
      errors.push("no token within 30 s");
    } else {
      const c = sys.cancel(threadId);
      const t0 = now();
      const res = await fetch(c.url, { method: "POST", signal: AbortSignal.timeout(10_000) }).catch((err: unknown) => err as Error);
      if (res instanceof Error || !res.ok) errors.push(`cancel: ${res instanceof Error ? res.message : `HTTP ${res.status}`}`);
      const at = await within(closed, 5_000);
      if (at === undefined) errors.push("the upstream request was not closed within 5 s");
      else samples.push(at - t0);
    }
    const timer = setTimeout(() => stop.abort(), 10_000);
    await result;
    clearTimeout(timer);
    stop.abort();
  }
  noteErrors(sys, "cancel", errors);
  return { "cancel.p95": percentile(samples, 95), "cancel.errors": errors.length };
}
