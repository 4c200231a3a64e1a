/** The seam every rule implements: what the kit gathered in, one verdict out. */
import type { Exchange } from "../http.ts";
import type { Endpoints } from "../target.ts";
import type { KitRun } from "../scenarios.ts";
import type { Verdict } from "../types.ts";

export interface CheckContext {
  /** Every run the kit made, in order. */
  runs: KitRun[];
  endpoints: Endpoints;
  headers: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The answers to the kit's malformed requests, by what was wrong with them. */
  badInput: Array<{ what: string; exchange: Exchange }>;
  /** Where the real clients are looked for (CheckOptions.resolveClientsFrom). */
  resolveClientsFrom: string;
}

export interface RuleSpec {
  name: string;
  title: string;
  check(ctx: CheckContext): Verdict | Promise<Verdict>;
}

/** Runs whose response is a stream worth reading (2xx); the others already failed `sse-response`. */
export function streamed(ctx: CheckContext): KitRun[] {
  return ctx.runs.filter((r) => r.exchange.status >= 200 && r.exchange.status < 300);
}
