/**
 * W3C Trace Context in and out of a run's spans, through @opentelemetry/api alone.
 *
 * In: the traceparent run.accepted keeps (protocol/trace-context.ts, checked at the edge) as a
 * remote span context, the parent of the run's span. Out: a span's context as `traceparent` and
 * `tracestate` headers, then whatever the application's registered propagators add (baggage,
 * B3) through the API's `propagation.inject`.
 *
 * W3C is written by hand here because the SDK's W3CTraceContextPropagator lives in
 * @opentelemetry/core, which this package does not depend on (only its tests have it, through
 * the SDK). Rejected: only `propagation.extract`/`inject`, the application's propagators, which
 * are no-ops without a registered SDK: a server without one would then drop the caller's trace
 * instead of passing it on, and no log line would name it. With no SDK, the API's tracer gives
 * a run the caller's own span context (a non-recording span), so the model and a remote agent
 * are sent the caller's traceparent unchanged, as the spec asks of a hop that does not trace.
 */
import { type Context, context, createTraceState, isSpanContextValid, propagation, type Span, trace, TraceFlags } from "@opentelemetry/api";
import type { TraceContext } from "../../protocol/trace-context.ts";

/** The context a run's span starts in: the active one, with the run's remote parent when it has one. */
export function runParent(traceContext: TraceContext | undefined): Context {
  const active = context.active();
  if (!traceContext) return active;
  const [, traceId, spanId, flags] = traceContext.traceparent.split("-") as [string, string, string, string];
  return trace.setSpanContext(active, {
    traceId,
    spanId,
    // Only the sampled bit is defined; the others are the spec's to assign later.
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(traceContext.tracestate !== undefined && { traceState: createTraceState(traceContext.tracestate) }),
  });
}

/** The headers that make `span` the parent of whatever receives the request. */
export function traceHeadersOf(span: Span): Record<string, string> {
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return {};
  const headers: Record<string, string> = { traceparent: `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags & TraceFlags.SAMPLED}` };
  const state = sc.traceState?.serialize();
  if (state) headers.tracestate = state;
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return headers;
}

/** What the run's log lines name: the names OpenTelemetry's log data model and pino's instrumentation use. */
export function logFieldsOf(span: Span): Record<string, string> {
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}
