/**
 * A load balancer's readiness probe, as the tests of issue 29 use it: /readyz polled every 50 ms
 * until its first 200, every answer kept; a demo-model run sent right after; and what every
 * answer before the first 200 must be (no server yet, or 503 NOT_STARTED with Retry-After).
 */
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { MainProcess } from "./main-process.ts";

/** How often the probe asks, as a strict load balancer would. */
export const POLL_MS = 50;
/**
 * Bound on a child's start, module loading included: a fresh PGlite DATA_DIR took 39 s to
 * /readyz at load 15 (issue 29). A bound on the test, not on what it checks.
 */
export const START_BOUND_MS = 180_000;

/**
 * The URL of a standalone server in a child process, from the line it logs when its port is
 * bound, before its start (listen() binds first): from then on its /readyz answers. Rejected: a
 * port picked free beforehand and passed in PORT, which another process on the machine can take
 * in between (a probe then asks someone else's server).
 */
export async function boundUrl(child: MainProcess): Promise<string> {
  const line = await child.waitForLine((l) => /^port \d+ bound; starting/.test(l.msg), START_BOUND_MS);
  return `http://127.0.0.1:${line.port as number}`;
}

export interface Probe {
  status: number | "refused";
  code?: string;
  retryAfter?: string | null;
  error?: string;
}

export async function probe(url: string): Promise<Probe> {
  try {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { code?: string; error?: string };
    return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after"), error: body.error };
  } catch {
    return { status: "refused" };
  }
}

/** Polls /readyz every POLL_MS until the first 200 (or `gaveUp` settles); every answer before it. */
export async function untilReady(url: string, gaveUp: Promise<unknown>): Promise<Probe[]> {
  const seen: Probe[] = [];
  let over = false;
  void gaveUp.finally(() => (over = true));
  const deadline = performance.now() + START_BOUND_MS;
  while (!over && performance.now() < deadline) {
    const p = await probe(url);
    seen.push(p);
    if (p.status === 200) return seen;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`no /readyz 200 within ${START_BOUND_MS} ms; last answers: ${JSON.stringify(seen.slice(-3))}`);
}

/** A demo-model run on a new thread: its status, and its whole stream when it was accepted. */
export async function sendRun(runUrl: string): Promise<{ status: number; text: string }> {
  const res = await fetch(runUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ threadId: `rd-${randomUUID()}`, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hello" }], tools: [], context: [], state: {} }),
  });
  return { status: res.status, text: await res.text() };
}

/** A demo-model run is accepted and runs to its end; then SIGTERM ends the process with code 0. */
export async function expectServesThenStops(child: MainProcess, url: string): Promise<void> {
  const run = await sendRun(`${url}/api/agents/default/run`);
  expect(run.status, child.output()).toBe(200);
  expect(run.text).toContain("RUN_FINISHED");
  expect(await child.kill("SIGTERM")).toMatchObject({ code: 0 });
}

/**
 * What every answer before the first 200 must be: no server yet, or a 503 with Retry-After and
 * its reason, NOT_STARTED (with its sentence) while the start runs. Once started, a starved
 * process may answer DATABASE_UNAVAILABLE for a ping that missed the probe's 2 s bound
 * (READY_TIMEOUT_MS): not ready, truthfully, for a probe that would have timed out too. A 200
 * before the start finished is what the first run after it catches (NOT_STARTED).
 */
export function expectNotStartedBefore(seen: Probe[]): void {
  for (const p of seen.slice(0, -1)) {
    if (p.status === "refused") continue;
    expect(p.status, JSON.stringify(p)).toBe(503);
    expect(p.retryAfter, JSON.stringify(p)).toMatch(/^\d+$/);
    expect(["NOT_STARTED", "DATABASE_UNAVAILABLE"], JSON.stringify(p)).toContain(p.code);
    if (p.code === "NOT_STARTED") {
      expect(p.retryAfter).toBe("1");
      expect(p.error).toMatch(/^Threadline is starting .*Try again in a moment\.$/);
    }
  }
}
