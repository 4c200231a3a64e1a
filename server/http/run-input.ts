/**
 * Validation at the edge: a RunAgentInput as @ag-ui/core's own schema defines it, plus the
 * rules this server adds (non-empty ids, unique message ids, media parts that can be read:
 * media-parts.ts). Nothing is written before this passes, and a failure names every reason with
 * its path.
 */
import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { parseTraceContext, type TraceContext } from "../../protocol/trace-context.ts";
import { PROTOCOL_VERSION_MAX_CHARS } from "../../protocol/versions.ts";
import { DoubleTextingPolicySchema, type DoubleTextingPolicy } from "../agents/define.ts";
import { SYSTEM_PROMPT_MAX_CHARS } from "../agents/coding-agent.ts";
import { zodIssues, type Issue } from "./errors.ts";
import { idProblem } from "./ids.ts";
import { upgradeLegacyParts } from "./legacy-parts.ts";
import { mediaPartIssues } from "./media-parts.ts";

const ThreadlineOptionsSchema = z
  .object({
    doubleTexting: DoubleTextingPolicySchema.optional(),
    onDisconnect: z.enum(["continue", "cancel"]).optional(),
    /** this history leaves the thread's current branch on purpose: fork it, even with a new message */
    fork: z.boolean().optional(),
    /** the coding agent's workspace under WORKSPACE_ROOT (checked when a tool uses it) */
    workingDirectory: z.string().min(1).max(4096).optional(),
    /** replaces the system prompt of an agent that allows it (the coding agent) */
    systemPrompt: z.string().max(SYSTEM_PROMPT_MAX_CHARS).optional(),
  })
  .optional();

export interface RunOptions {
  doubleTexting?: DoubleTextingPolicy;
  cancelOnDisconnect: boolean;
  /** the client branches off deliberately (protocol/branches.ts: no STALE_HISTORY refusal) */
  fork: boolean;
  /** The W3C trace context the run joins (traceContextOf), absent when none came or it was malformed. */
  traceContext?: TraceContext;
}

export type ParsedRun = { ok: true; input: RunAgentInput; options: RunOptions } | { ok: false; issues: Issue[] };

function idIssues(input: RunAgentInput): Issue[] {
  const issues: Issue[] = [];
  for (const key of ["threadId", "runId"] as const) {
    const problem = idProblem(input[key]);
    if (problem) issues.push({ path: key, message: problem });
  }
  if (input.protocolVersion !== undefined && input.protocolVersion.length > PROTOCOL_VERSION_MAX_CHARS) {
    issues.push({ path: "protocolVersion", message: `must be at most ${PROTOCOL_VERSION_MAX_CHARS} characters (a version such as "1.0")` });
  }
  const seen = new Set<string>();
  input.messages.forEach((m, i) => {
    if (m.id.trim() === "") issues.push({ path: `messages.${i}.id`, message: "must not be empty" });
    if (seen.has(m.id)) issues.push({ path: `messages.${i}.id`, message: `duplicate message id "${m.id}"` });
    seen.add(m.id);
  });
  return issues;
}

/**
 * Per-request options travel in `forwardedProps.threadline` (what CopilotKit's `properties`
 * become) or in headers, for clients that cannot set forwardedProps.
 */
export function parseRunRequest(body: unknown, headers: { get(name: string): string | undefined }): ParsedRun {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ path: "(root)", message: "expected a JSON object (an AG-UI RunAgentInput)" }] };
  }
  const parsed = RunAgentInputSchema.safeParse(upgradeLegacyParts(body));
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error.issues) };
  const input = parsed.data as RunAgentInput;
  const issues = [...idIssues(input), ...mediaPartIssues(input)];

  const fp = input.forwardedProps as { threadline?: unknown } | undefined;
  const fromBody = ThreadlineOptionsSchema.safeParse(fp && typeof fp === "object" ? fp.threadline : undefined);
  if (!fromBody.success) {
    issues.push(...zodIssues(fromBody.error.issues).map((i) => ({ ...i, path: `forwardedProps.threadline.${i.path}` })));
  }
  const headerPolicy = headers.get("x-threadline-double-texting");
  const policy = DoubleTextingPolicySchema.optional().safeParse(headerPolicy || undefined);
  if (!policy.success) {
    issues.push({ path: "header x-threadline-double-texting", message: 'must be "reject", "enqueue" or "interrupt"' });
  }
  const headerDisconnect = headers.get("x-threadline-on-disconnect");
  if (headerDisconnect && headerDisconnect !== "cancel" && headerDisconnect !== "continue") {
    issues.push({ path: "header x-threadline-on-disconnect", message: 'must be "continue" or "cancel"' });
  }
  if (issues.length > 0) return { ok: false, issues };

  const opts = fromBody.success ? fromBody.data : undefined;
  return {
    ok: true,
    input,
    options: {
      doubleTexting: (policy.success ? policy.data : undefined) ?? opts?.doubleTexting,
      cancelOnDisconnect: (headerDisconnect ?? opts?.onDisconnect) === "cancel",
      fork: opts?.fork === true,
      ...present(traceContextOf(headers, fp)),
    },
  };
}

/**
 * The headers `traceparent` and `tracestate`, as W3C Trace Context carries them over HTTP (what
 * an instrumented client sends by itself); else `forwardedProps.threadline.traceparent` and
 * `.tracestate`, for a client that cannot set headers (a browser behind a proxy that drops them):
 * under `threadline`, where this server's per-run options are, not at the top of forwardedProps,
 * which is the application's to fill and which a remote agent is sent as it is. A malformed one
 * is ignored, not refused (protocol/trace-context.ts), and the headers win when both come.
 */
function traceContextOf(headers: { get(name: string): string | undefined }, fp: { threadline?: unknown } | undefined): TraceContext | undefined {
  const fromHeader = parseTraceContext(headers.get("traceparent"), headers.get("tracestate"));
  if (fromHeader) return fromHeader;
  const tl = fp && typeof fp === "object" ? fp.threadline : undefined;
  if (!tl || typeof tl !== "object") return undefined;
  const { traceparent, tracestate } = tl as { traceparent?: unknown; tracestate?: unknown };
  return parseTraceContext(traceparent, tracestate);
}

function present(traceContext: TraceContext | undefined): { traceContext?: TraceContext } {
  return traceContext ? { traceContext } : {};
}
