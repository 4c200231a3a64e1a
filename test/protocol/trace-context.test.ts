/**
 * The edge's reading of W3C traceparent (protocol/trace-context.ts), held against the SDK's own
 * W3CTraceContextPropagator (@opentelemetry/core, which the tests have through the SDK; the
 * server does not depend on it) on headers built near the spec's edges: versions, ids of zeros,
 * uppercase hex, short fields, a later version's extra fields, whitespace. And what is kept: the
 * version-00 form, a tracestate only with a valid traceparent and only within its bound.
 */
import { context, defaultTextMapGetter, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTraceContext, TRACESTATE_MAX_CHARS } from "../../protocol/trace-context.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

const hexOf = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
const field = (n: number) => fc.oneof(hexOf(n), fc.constant("0".repeat(n)), hexOf(n).map((s) => s.toUpperCase()), hexOf(n - 1), hexOf(n + 1));

describe("traceparent at the edge", () => {
  it("is valid exactly when the SDK's propagator extracts it, with the same ids and flags", () => {
    const sdk = new W3CTraceContextPropagator();
    const header = fc
      .tuple(fc.constantFrom("00", "01", "cc", "fe", "ff", "0g"), field(32), field(16), fc.oneof(hexOf(2), fc.constant("1")), fc.constantFrom("", "-", "-what-follows", "x"), fc.constantFrom("", " "))
      .map(([v, t, p, f, rest, ws]) => `${ws}${v}-${t}-${p}-${f}${rest}${ws}`);
    fc.assert(
      fc.property(header, (traceparent) => {
        const theirs = trace.getSpanContext(sdk.extract(context.active(), { traceparent }, defaultTextMapGetter));
        const ours = parseTraceContext(traceparent, undefined);
        expect(ours !== undefined, traceparent).toBe(theirs !== undefined);
        if (ours && theirs) {
          const flags = Number.parseInt(ours.traceparent.slice(53), 16);
          expect(ours.traceparent).toBe(`00-${theirs.traceId}-${theirs.spanId}-${ours.traceparent.slice(53)}`);
          expect(flags & 1).toBe(theirs.traceFlags & 1);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("keeps the version-00 form, and the tracestate only beside a valid traceparent, within its bound", () => {
    expect(parseTraceContext(`00-${TRACE}-${PARENT}-01`, " a=1,b=2 ")).toEqual({ traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: "a=1,b=2" });
    // A later version is read by its first four fields and kept as 00 (the spec's rule).
    expect(parseTraceContext(`cc-${TRACE}-${PARENT}-01-more`, undefined)).toEqual({ traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(parseTraceContext(`00-${TRACE}-${"0".repeat(16)}-01`, "a=1")).toBeUndefined();
    expect(parseTraceContext(undefined, "a=1")).toBeUndefined();
    expect(parseTraceContext(`00-${TRACE}-${PARENT}-01`, `a=${"x".repeat(TRACESTATE_MAX_CHARS)}`)).toEqual({ traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(parseTraceContext(`00-${TRACE}-${PARENT}-01`, "a=1\nb=2")).toEqual({ traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(parseTraceContext(`00-${TRACE}-${PARENT}-01`, "")).toEqual({ traceparent: `00-${TRACE}-${PARENT}-01` });
  });
});
