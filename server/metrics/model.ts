/**
 * Series of model requests and tool calls: latency to the first token and to the end, errors by
 * code, tokens, and each tool's duration and errors. Counted by the engine observer.
 */
import { Counter, Histogram, type Registry } from "prom-client";

export interface ModelMetrics {
  modelFirstToken: Histogram<"provider" | "model">;
  modelDuration: Histogram<"provider" | "model" | "outcome">;
  modelErrors: Counter<"provider" | "model" | "code">;
  modelTokens: Counter<"provider" | "model" | "kind">;
  toolDuration: Histogram<"tool" | "outcome">;
  toolErrors: Counter<"tool" | "code">;
}

export function modelMetrics(registry: Registry): ModelMetrics {
  const registers = [registry];
  return {
    modelFirstToken: new Histogram({
      name: "threadline_model_time_to_first_token_seconds",
      help: "Time from a model request to its first text, reasoning or tool call, by provider and model",
      labelNames: ["provider", "model"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
      registers,
    }),
    modelDuration: new Histogram({
      name: "threadline_model_request_duration_seconds",
      help: "Time from a model request to the end of its stream, by provider, model and outcome (ok, error, aborted)",
      labelNames: ["provider", "model", "outcome"],
      buckets: [0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160],
      registers,
    }),
    modelErrors: new Counter({
      name: "threadline_model_errors_total",
      help: "Model requests that failed, by provider, model and code (UPSTREAM_HTTP_429, UPSTREAM_TIMEOUT, ...); a cancelled request is not one",
      labelNames: ["provider", "model", "code"],
      registers,
    }),
    modelTokens: new Counter({
      name: "threadline_model_tokens_total",
      help: "Tokens the model reported, by provider, model and kind (input, output)",
      labelNames: ["provider", "model", "kind"],
      registers,
    }),
    toolDuration: new Histogram({
      name: "threadline_tool_duration_seconds",
      help: "Backend tool calls from start to recorded result, by tool and outcome (ok, error, denied, waiting, aborted); tool \"other\" for a name the agent does not have",
      labelNames: ["tool", "outcome"],
      buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120],
      registers,
    }),
    toolErrors: new Counter({
      name: "threadline_tool_errors_total",
      help: "Backend tool calls whose result is an error for the model, by tool and code (TOOL_ERROR, INVALID_ARGUMENTS, UNKNOWN_TOOL)",
      labelNames: ["tool", "code"],
      registers,
    }),
  };
}
