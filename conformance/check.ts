/**
 * checkAgUiServer: makes the kit's requests against one AG-UI run endpoint, then judges every
 * rule on what came back. Requests, in order: a chat turn; a second turn on the same thread
 * that resends the first (with the state the client would hold); a turn on a new thread that
 * offers a frontend tool and, if the model calls it, one carrying the result; two malformed
 * requests; and the optional probes (connect, resume, capabilities) when agentPath is given.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES, send } from "./http.ts";
import { openTarget, endpoints, type AgUiTarget } from "./target.ts";
import {
  events,
  finalState,
  KIT_PROMPTS,
  KIT_STATE,
  KIT_TOOL,
  KIT_TOOL_RESULT,
  newInput,
  replyMessages,
  userMessage,
  type KitInput,
  type KitMessage,
  type KitRun,
} from "./scenarios.ts";
import { BAD_INPUTS, badInput } from "./rules/bad-input.ts";
import { client0059, client100 } from "./rules/clients.ts";
import { frontendTool, multiTurn } from "./rules/conversation.ts";
import { sseFraming, sseResponse } from "./rules/framing.ts";
import { ids } from "./rules/ids.ts";
import { lifecycle } from "./rules/lifecycle.ts";
import { cancelProbe, capabilitiesProbe, connectProbe, interruptsProbe, resumeProbe } from "./rules/optional.ts";
import type { CheckContext, RuleSpec } from "./rules/rule.ts";
import { stateConsistency } from "./rules/state.ts";
import { eventSchema } from "./rules/schema.ts";
import { fail, type ConformanceReport, type Rule, type Verdict } from "./types.ts";

export interface CheckOptions {
  /** The run endpoint's path, resolved against the target (default: `<agentPath>/run`, else the target itself). */
  path?: string;
  /** The agent's base path (e.g. `/api/agents/default`): enables the connect, resume and capabilities probes. */
  agentPath?: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** Bound on each response, from request to its end (default 120 s). */
  timeoutMs?: number;
  /** Bound on each response's size; a longer one is cut and fails `sse-response` (default 16 MiB). */
  maxResponseBytes?: number;
  /**
   * A file or directory from which the real `@ag-ui/client` lines are looked up (default: the
   * kit's own location, which finds the application's node_modules).
   */
  resolveClientsFrom?: string;
  /**
   * Deletes one thread the kit created, called for each once every rule is judged, so that a
   * check leaves nothing in the server it checked (the CLI's --delete-url sends an HTTP DELETE).
   * A failure is reported in the report's `cleanup`, never as a rule's. Without it the threads
   * stay, marked by their ids (`agui-conformance-…`) and their messages (`[agui-conformance]`).
   */
  deleteThread?: (threadId: string) => Promise<void>;
}

/** Every rule, in the order the report lists them. */
const RULES: readonly RuleSpec[] = [
  sseResponse,
  sseFraming,
  eventSchema,
  client100,
  client0059,
  lifecycle,
  ids,
  multiTurn,
  frontendTool,
  stateConsistency,
  badInput,
  connectProbe,
  resumeProbe,
  capabilitiesProbe,
  cancelProbe,
  interruptsProbe,
];

/** The rules' names and sentences, in report order (for docs and for listing what a report covers). */
export const CONFORMANCE_RULES: ReadonlyArray<{ name: string; title: string }> = RULES.map(({ name, title }) => ({ name, title }));

export async function checkAgUiServer(target: AgUiTarget, opts: CheckOptions = {}): Promise<ConformanceReport> {
  const open = await openTarget(target);
  try {
    const ctx = await gather(open.base, opts);
    const threads = [...new Set(ctx.runs.map((r) => r.input.threadId))];
    const report: ConformanceReport = { passed: [], failed: [], unsupported: [], threads };
    for (const spec of RULES) {
      let verdict: Verdict;
      try {
        verdict = await spec.check(ctx);
      } catch (err) {
        verdict = fail(`the kit could not judge this rule: ${(err as Error).message}`);
      }
      const rule: Rule = { name: spec.name, title: spec.title, ...verdict };
      report[verdict.status].push(rule);
    }
    if (opts.deleteThread) report.cleanup = await deleteThreads(threads, opts.deleteThread);
    return report;
  } finally {
    await open.close();
  }
}

async function deleteThreads(threads: string[], deleteThread: (threadId: string) => Promise<void>): Promise<NonNullable<ConformanceReport["cleanup"]>> {
  const cleanup: NonNullable<ConformanceReport["cleanup"]> = { deleted: [], failed: [] };
  for (const threadId of threads) {
    try {
      await deleteThread(threadId);
      cleanup.deleted.push(threadId);
    } catch (err) {
      cleanup.failed.push({ threadId, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return cleanup;
}

async function gather(base: URL, opts: CheckOptions): Promise<CheckContext> {
  const ep = endpoints(base, opts);
  const headers = opts.headers ?? {};
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const post = (body: string) =>
    send(ep.run, { headers: { ...headers, "Content-Type": "application/json", Accept: "text/event-stream" }, body, timeoutMs, maxBytes: maxResponseBytes });
  const runs: KitRun[] = [];
  const run = async (scenario: KitRun["scenario"], input: KitInput) => {
    const r: KitRun = { scenario, input, exchange: await post(JSON.stringify(input)) };
    runs.push(r);
    return r;
  };
  const ok = (r: KitRun) => r.exchange.status >= 200 && r.exchange.status < 300;

  const threadId = `agui-conformance-${randomUUID()}`;
  const first = userMessage(KIT_PROMPTS.chat);
  const chat = await run("chat", newInput(threadId, [first]));
  const reply = replyMessages(chat);
  if (ok(chat) && reply.length > 0) {
    await run("multi-turn", newInput(threadId, [first, ...reply, userMessage(KIT_PROMPTS.followUp)], [], finalState(chat)));
  }

  const toolThread = `agui-conformance-tool-${randomUUID()}`;
  const ask = userMessage(KIT_PROMPTS.tool);
  const toolRun = await run("frontend-tool", newInput(toolThread, [ask], [KIT_TOOL], KIT_STATE));
  const toolReply = replyMessages(toolRun);
  const answered = new Set(toolReply.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  const results: KitMessage[] = toolReply
    .flatMap((m) => m.toolCalls ?? [])
    .filter((c) => c.function.name === KIT_TOOL.name && !answered.has(c.id))
    .map((c) => ({ id: `tool-${randomUUID()}`, role: "tool", toolCallId: c.id, content: KIT_TOOL_RESULT }));
  const finished = events(toolRun).some((e) => e.type === "RUN_FINISHED");
  if (ok(toolRun) && finished && results.length > 0) {
    await run("tool-result", newInput(toolThread, [ask, ...toolReply, ...results], [KIT_TOOL], finalState(toolRun)));
  }

  const badInput = [];
  for (const bad of BAD_INPUTS) badInput.push({ what: bad.what, exchange: await post(bad.body) });
  return { runs, endpoints: ep, headers, timeoutMs, maxResponseBytes, badInput, resolveClientsFrom: opts.resolveClientsFrom ?? import.meta.filename };
}
