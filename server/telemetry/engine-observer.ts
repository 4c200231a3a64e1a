/**
 * The engine's observer (engine/observer.ts) on Prometheus metrics and OpenTelemetry spans.
 *
 * Spans go through `@opentelemetry/api` alone: without an SDK the application registers, its
 * tracer is a no-op and a span costs a few allocations. With one, a run is a span tree in the
 * GenAI conventions' names: `invoke_agent <agent>` for the run's execution here, with a
 * `chat <model>` span per model request and an `execute_tool <tool>` span per tool call under
 * it, each parented explicitly on the run's span (a tracer provider without a context manager
 * still gets the tree); with a context manager, what a tool or a model client does inside its
 * call nests under that call too.
 *
 * A run posted with a W3C traceparent (kept in its run.accepted, protocol/trace-context.ts) has
 * its span under that remote parent, and the model request and a remote agent's POST carry the
 * context on (trace-context.ts). Since the parent is read from the log, a run recovered on
 * another instance is a second span under the same parent (`threadline.run.recovered`): one
 * trace for the whole run, each instance's part its own span. Rejected: one span across
 * instances, which cannot be: a span ends in the process that started it. A run posted without
 * one starts in the active context (a new trace, or the HTTP span an instrumentation opened).
 */
import { context, type Span, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { Metrics } from "../metrics.ts";
import { boundedLabel, codeLabel, OTHER, providerAndModel } from "../metrics/labels.ts";
import type { CallEnd, CallProbe, EngineObserver, RunEnd, RunFacts, RunProbe, TokenTotals } from "../engine/observer.ts";
import { logFieldsOf, runParent, traceHeadersOf } from "./trace-context.ts";

export function engineObserver(metrics: Metrics, tracer: Tracer): EngineObserver {
  const labels = {
    agent: boundedLabel(200),
    model: boundedLabel(100),
    tool: boundedLabel(500),
    runCode: codeLabel(),
    modelCode: codeLabel(),
    toolCode: codeLabel(),
  };
  return {
    runExecuting(run, { recovered }) {
      return new RunTelemetry(metrics, tracer, labels, run, recovered);
    },
    runEnded(run, end) {
      const agent = labels.agent(run.agentId);
      metrics.runsFinished.inc({ agent, outcome: end.outcome });
      if (end.outcome === "failed") metrics.runsFailed.inc({ agent, code: labels.runCode(end.errorCode ?? "INTERNAL_ERROR") });
    },
    runQueued(run) {
      metrics.runsQueued.inc({ agent: labels.agent(run.agentId) });
    },
    recovery(run, outcome) {
      metrics.runRecoveries.inc({ agent: labels.agent(run.agentId), outcome });
    },
    heartbeatFailed() {
      metrics.heartbeatFailures.inc();
    },
  };
}

type Labels = { agent: Label; model: Label; tool: Label; runCode: Label; modelCode: Label; toolCode: Label };
type Label = (value: string) => string;

class RunTelemetry implements RunProbe {
  readonly #span: Span;
  readonly #agent: string;

  constructor(
    private readonly metrics: Metrics,
    private readonly tracer: Tracer,
    private readonly labels: Labels,
    run: RunFacts,
    recovered: boolean,
  ) {
    this.#agent = labels.agent(run.agentId);
    metrics.runsInFlight.inc({ agent: this.#agent });
    this.#span = tracer.startSpan(`invoke_agent ${run.agentId}`, {
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": run.agentId,
        "gen_ai.agent.name": run.agentId,
        "gen_ai.conversation.id": run.threadId,
        "threadline.run.id": run.runId,
        "threadline.tenant.id": run.tenantId,
        "threadline.run.recovered": recovered,
        ...(run.requestId !== undefined && { "threadline.request.id": run.requestId }),
      },
    }, runParent(run.traceContext));
  }

  within<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(trace.setSpan(context.active(), this.#span), fn);
  }

  logFields(): Record<string, string> {
    return logFieldsOf(this.#span);
  }

  traceHeaders(): Record<string, string> {
    return traceHeadersOf(this.#span);
  }

  modelCall(modelId: string) {
    const { provider, model } = providerAndModel(modelId);
    const l = { provider: this.labels.model(provider), model: this.labels.model(model) };
    const span = this.#child(`chat ${model}`, { "gen_ai.operation.name": "chat", "gen_ai.provider.name": provider, "gen_ai.request.model": model });
    const started = performance.now();
    const tokens: TokenTotals = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const { metrics, labels } = this;
    return {
      ...callProbe(span, (end) => {
        metrics.modelDuration.observe({ ...l, outcome: end.outcome === "error" ? "error" : end.outcome === "ok" ? "ok" : "aborted" }, seconds(started));
        if (end.outcome === "error") metrics.modelErrors.inc({ ...l, code: labels.modelCode(end.code) });
        span.setAttributes({ "gen_ai.usage.input_tokens": tokens.inputTokens, "gen_ai.usage.output_tokens": tokens.outputTokens });
      }),
      firstToken() {
        metrics.modelFirstToken.observe(l, seconds(started));
        span.addEvent("first_token");
      },
      usage(add: TokenTotals) {
        tokens.inputTokens += add.inputTokens;
        tokens.outputTokens += add.outputTokens;
        tokens.totalTokens += add.totalTokens;
        metrics.modelTokens.inc({ ...l, kind: "input" }, add.inputTokens);
        metrics.modelTokens.inc({ ...l, kind: "output" }, add.outputTokens);
      },
    };
  }

  toolCall(tool: string | undefined, toolCallId: string): CallProbe {
    const label = tool === undefined ? OTHER : this.labels.tool(tool);
    const span = this.#child(`execute_tool ${tool ?? "unknown"}`, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.call.id": toolCallId,
      ...(tool !== undefined && { "gen_ai.tool.name": tool }),
    });
    const started = performance.now();
    const { metrics, labels } = this;
    return callProbe(span, (end) => {
      metrics.toolDuration.observe({ tool: label, outcome: end.outcome }, seconds(started));
      if (end.outcome === "error") metrics.toolErrors.inc({ tool: label, code: labels.toolCode(end.code) });
    });
  }

  stopped(how: { end: RunEnd } | { left: string }): void {
    this.metrics.runsInFlight.dec({ agent: this.#agent });
    if ("left" in how) {
      this.metrics.runsLeft.inc({ reason: how.left });
      this.#span.setAttribute("threadline.run.left", how.left);
    } else {
      const { outcome, errorCode, durationMs, tokens } = how.end;
      this.metrics.runDuration.observe({ agent: this.#agent, outcome }, durationMs / 1000);
      this.#span.setAttributes({
        "threadline.run.outcome": outcome,
        "gen_ai.usage.input_tokens": tokens.inputTokens,
        "gen_ai.usage.output_tokens": tokens.outputTokens,
      });
      if (errorCode !== undefined) failSpan(this.#span, errorCode);
    }
    this.#span.end();
  }

  #child(name: string, attributes: Record<string, string | number | boolean>): Span {
    return this.tracer.startSpan(name, { attributes }, trace.setSpan(context.active(), this.#span));
  }
}

/** A call's span and its first end: the metrics `onEnd` records, the span's status, its end. */
function callProbe(span: Span, onEnd: (end: CallEnd) => void): CallProbe {
  let ended = false;
  return {
    within: (fn) => context.with(trace.setSpan(context.active(), span), fn),
    traceHeaders: () => traceHeadersOf(span),
    ended(end) {
      if (ended) return;
      ended = true;
      onEnd(end);
      span.setAttribute("threadline.outcome", end.outcome);
      if (end.outcome === "error") failSpan(span, end.code);
      span.end();
    },
  };
}

function failSpan(span: Span, code: string): void {
  span.setAttribute("error.type", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}
