/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as a run carries it: the `traceparent`
 * and `tracestate` of the request that posted the run (its HTTP headers, or
 * `forwardedProps.threadline.traceparent` / `.tracestate` for a client that cannot set headers),
 * kept in the run's run.accepted so that its span joins the caller's trace on whichever instance
 * executes it, a recovered run's too.
 *
 * Checked at the edge and kept normalised: a traceparent of another version is read as the spec
 * says (its first four fields) and kept as version 00, the only one this spec defines. A
 * malformed one is ignored, not refused: the spec's receiver starts a new trace rather than fail
 * the request, and a caller's tracing must not break its runs. Its tracestate goes with it (the
 * spec: no tracestate without a valid traceparent); a tracestate past 512 characters, the length
 * the spec asks every hop to carry, is dropped and the traceparent kept. Rejected: a 400 for a
 * malformed header, which would fail runs behind a proxy that mangles one.
 */
import { z } from "zod";

/** The tracestate a run keeps at most: what the spec asks every participant to propagate. */
export const TRACESTATE_MAX_CHARS = 512;

const HEX_ZERO = /^0+$/;

/** A traceparent as kept: version 00, lowercase hex, neither id all zeros. */
export const TraceparentSchema = z
  .string()
  .regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, "a W3C traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>")
  .refine((v) => !HEX_ZERO.test(v.slice(3, 35)) && !HEX_ZERO.test(v.slice(36, 52)), "trace id and parent id must not be all zeros");

/** Printable ASCII only: list members are `key=value` of those (the spec's grammar is narrower still). */
export const TracestateSchema = z
  .string()
  .max(TRACESTATE_MAX_CHARS)
  .regex(/^[\x20-\x7e]*$/, "printable ASCII");

export const TraceContextSchema = z.object({ traceparent: TraceparentSchema, tracestate: TracestateSchema.optional() });
export type TraceContext = z.infer<typeof TraceContextSchema>;

/**
 * Version, trace id, parent id, flags; a later version may append fields after a dash. Optional
 * whitespace around it, as HTTP allows around a header's value.
 */
const TRACEPARENT = /^[ \t]*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\s\S]*)?[ \t]*$/;

/** The trace context a request carries, normalised; undefined when it carries none or a malformed one. */
export function parseTraceContext(traceparent: unknown, tracestate: unknown): TraceContext | undefined {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  // ff is forbidden; version 00 has exactly four fields (a later version may have more).
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  const kept = TraceparentSchema.safeParse(`00-${traceId}-${parentId}-${flags}`);
  if (!kept.success) return undefined;
  const state = typeof tracestate === "string" ? TracestateSchema.safeParse(tracestate.trim()) : undefined;
  return { traceparent: kept.data, ...(state?.success && state.data !== "" && { tracestate: state.data }) };
}


/** The trace id of a kept traceparent (recovery's log lines, before the run has a span). */
export function traceIdOf(context: TraceContext): string {
  return context.traceparent.slice(3, 35);
}
