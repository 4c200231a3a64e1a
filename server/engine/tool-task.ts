/**
 * One backend tool execution as a durable task. Its result is a tool message in the log: once it
 * is there the tool is never run again, whatever happens to this process (recovery reads the
 * log and resumes after the last recorded result).
 *
 * A tool that throws, or is called with arguments its schema rejects, or does not exist, yields
 * an error result for the LLM to read and correct: never a crash of the run.
 */
import type { ContentPart, ToolCall, ToolMessage } from "@ag-ui/core";
import fjp, { type Operation } from "fast-json-patch";
import type { ToolContext, ToolDefinition } from "../agents/define.ts";
import { InterruptRaised, RunAborted } from "./errors.ts";
import type { CallProbe } from "./observer.ts";
import { storableJsonMember, toStorableText } from "../store/storable-text.ts";
import { toolResultContent } from "./tool-content.ts";
import { runSubagentCall } from "./subagent-task.ts";
import type { SubagentArgs } from "../agents/subagent.ts";
import { askInterrupt, checkApproval, endWaiting, type InterruptTrace } from "./tool-interrupts.ts";
import type { EventOf } from "../../protocol/events.ts";
import type { ApprovalDecision } from "../../protocol/interrupts.ts";
import type { RunContext } from "./run-context.ts";

type JsonPatch = EventOf<"state.patched">["data"]["patch"];

const { applyPatch, deepClone } = fjp;


function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** A call that yields an error result for the model to read and correct. */
interface ToolFailure {
  ok: false;
  code: string;
  message: string;
  /** Kept next to the error in the content (a denial's decision). */
  detail?: Record<string, unknown>;
}

/** What a call yields: its content, or an error result. */
export type ToolOutcome = { ok: true; content: string | ContentPart[] } | ToolFailure;

async function recordResult(
  ctx: RunContext,
  call: ToolCall,
  taskId: string,
  outcome: ToolOutcome,
  probe?: CallProbe,
): Promise<ToolMessage> {
  const { runId, writer } = ctx;
  const message: ToolMessage = {
    id: ctx.ids.message(),
    role: "tool",
    toolCallId: call.id,
    content: outcome.ok ? outcome.content : JSON.stringify({ ...outcome.detail, error: outcome.message }),
  };
  if (!outcome.ok) message.error = outcome.message;
  writer.emit({ type: "message.appended", data: { runId, source: "agent", message } });
  writer.emit(
    outcome.ok
      ? { type: "task.completed", data: { runId, taskId } }
      : { type: "task.failed", data: { runId, taskId, error: { code: outcome.code, message: outcome.message } } },
  );
  await writer.flush();
  probe?.ended(outcome.ok ? { outcome: "ok" } : outcome.code === "DENIED" ? { outcome: "denied" } : { outcome: "error", code: outcome.code });
  ctx.messages.push(message);
  return message;
}

function toolContext(ctx: RunContext, call: ToolCall, trace: InterruptTrace, probe: CallProbe): ToolContext {
  const { runId, writer } = ctx;
  const activityId = `activity-${call.id}`;
  // A tool that goes on after a cancel (it has not awaited anything abortable yet) must not
  // write into a run that is ending: its next write throws instead.
  const live = () => {
    const reason = ctx.abortReason();
    if (reason) throw new RunAborted(reason);
  };
  return {
    threadId: ctx.threadId,
    tenantId: ctx.tenantId,
    runId,
    toolCallId: call.id,
    signal: ctx.signal,
    forwardedProps: ctx.forwardedProps,
    traceHeaders: () => probe.traceHeaders(),
    state: {
      get: () => deepClone(ctx.state),
      async patch(ops: Operation[]) {
        live();
        // Validate against the current state first: a bad patch fails the tool, not the log.
        ctx.state = applyPatch(deepClone(ctx.state), ops, true, false).newDocument;
        // fast-json-patch validated the ops above; the log's zod type is the same RFC 6902 shape.
        await writer.commit({ type: "state.patched", data: { runId, patch: ops as JsonPatch } });
      },
      async set(state: unknown) {
        live();
        ctx.state = deepClone(state);
        await writer.commit({ type: "state.set", data: { runId, state } });
      },
    },
    async progress(content, activityType = "tool-progress") {
      live();
      await writer.commit({
        type: "activity.snapshot",
        data: { runId, messageId: activityId, activityType, content: { toolCallId: call.id, ...content } },
      });
    },
    complete(result?: unknown) {
      ctx.completion = result === undefined ? {} : { result };
    },
    async terminal(data, stream = "stdout") {
      live();
      // Command output is decoded bytes and may hold NUL; a tool's own text may hold anything.
      writer.emit({ type: "terminal.output", data: { runId, toolCallId: call.id, stream, data: toStorableText(data) } });
    },
    async artifact(artifact) {
      live();
      // A diff quotes the file's old content, which the model did not write and may hold a NUL.
      const diff = artifact.diff === undefined ? {} : { diff: toStorableText(artifact.diff) };
      await writer.commit({ type: "artifact.written", data: { runId, toolCallId: call.id, ...artifact, ...diff } });
    },
    interrupt(ask) {
      live();
      return askInterrupt(ctx, call, trace, ask);
    },
    memory: ctx.memory,
  };
}

/** Executes one tool call (backend or unknown) and records its result. */
export async function runToolTask(ctx: RunContext, call: ToolCall): Promise<ToolMessage> {
  const { runId, writer } = ctx;
  const taskId = `${runId}:tool:${call.id}`;
  const tool: ToolDefinition | undefined = ctx.agent.tools.find((t) => t.name === call.function.name);
  writer.emit({
    type: "task.created",
    data: { runId, taskId, kind: "tool", name: `tool-${call.function.name}-${call.id}`, toolCallId: call.id },
  });
  await writer.flush();
  // A cancel that landed while task.created was committing: the tool must not start, since a
  // tool that subscribes to the signal after it fired would never hear it.
  if (ctx.signal.aborted) throw new RunAborted(ctx.abortReason() ?? "cancelled");

  const probe = ctx.probe.toolCall(tool?.name, call.id);
  try {
    return await probe.within(() => runCall(ctx, call, tool, taskId, probe));
  } catch (err) {
    // Not a result: the run stops, or waits for the user (a result records its own end first).
    probe.ended(err instanceof InterruptRaised ? { outcome: "waiting" } : err instanceof RunAborted ? { outcome: "aborted" } : { outcome: "error", code: "INTERNAL_ERROR" });
    throw err;
  }
}

/** The call's result: an error for an unknown tool or bad arguments, a denial, or what the tool returned. */
async function runCall(ctx: RunContext, call: ToolCall, tool: ToolDefinition | undefined, taskId: string, probe: CallProbe): Promise<ToolMessage> {
  if (!tool) {
    return recordResult(ctx, call, taskId, {
      ok: false,
      code: "UNKNOWN_TOOL",
      message: `There is no tool named "${call.function.name}". Use one of the tools you were given.`,
    }, probe);
  }

  const input = parseArguments(tool, call);
  if (!input.ok) return recordResult(ctx, call, taskId, input, probe);

  const approval = await checkApproval(ctx, call, tool, input.data, taskId);
  if (approval.denied) {
    return recordResult(ctx, call, taskId, { ok: false, code: "DENIED", message: approval.message, detail: { approval: "denied" } }, probe);
  }
  if (tool.subagent) {
    const record = (outcome: ToolOutcome) => recordResult(ctx, call, taskId, outcome, probe);
    return runSubagentCall(ctx, call, tool, tool.subagent, approval.args as SubagentArgs, taskId, record);
  }
  return executeTool(ctx, call, tool, approval.args, taskId, approval.decision, probe);
}

/**
 * The result of an approved call says what the user decided, and with edits the arguments it
 * ran with: the model reads that the user changed them (it proposed others), and the
 * conversation keeps the decision, so a reload shows it. Rejected: rewriting the assistant
 * message's tool call arguments, which would make the log say the model proposed what the user
 * wrote. A tool's media result keeps its parts, the decision as a text part before them.
 */
function withDecision(content: string | ContentPart[], decision: ApprovalDecision | undefined, args: unknown): string | ContentPart[] {
  if (decision === undefined) return content;
  const head = { approval: decision, ...(decision === "edited" && { arguments: args }) };
  if (Array.isArray(content)) return [{ type: "text", text: JSON.stringify(head, storableJsonMember) }, ...content];
  let result: unknown = content;
  try {
    result = JSON.parse(content);
  } catch {
    // text, not JSON: kept as the string it is
  }
  return JSON.stringify({ ...head, result }, storableJsonMember);
}

/** The call's arguments as the tool's input, or the error result that tells the model how to fix them. */
function parseArguments(tool: ToolDefinition, call: ToolCall): { ok: true; data: unknown } | ToolFailure {
  let raw: unknown;
  try {
    // Escapes in the model's JSON can still spell a NUL or half a pair (`"\u0000"`, `"\ud83d"`):
    // the tool gets them replaced by the log's rule, so whatever it writes from them can be stored.
    raw = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments, storableJsonMember);
  } catch {
    return {
      ok: false,
      code: "INVALID_ARGUMENTS",
      message: `The arguments of ${tool.name} are not valid JSON. Send a JSON object that matches its schema.`,
    };
  }
  const parsed = tool.inputSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      code: "INVALID_ARGUMENTS",
      message: `The arguments of ${tool.name} do not match its schema: ${describeIssues(parsed.error.issues)}.`,
    };
  }
  return { ok: true, data: parsed.data };
}

/**
 * Runs the tool and records what it returned or threw. An abort of the run and an interrupt the
 * tool raised are not results: they end the task here and the run stops (or waits) above.
 */
async function executeTool(
  ctx: RunContext,
  call: ToolCall,
  tool: ToolDefinition,
  input: unknown,
  taskId: string,
  decision: ApprovalDecision | undefined,
  probe: CallProbe,
): Promise<ToolMessage> {
  const { runId } = ctx;
  const trace: InterruptTrace = { asks: 0 };
  try {
    const value = await tool.execute(input, toolContext(ctx, call, trace, probe));
    // A tool that caught the interrupt and returned anyway still waits: the ask is in the log.
    if (trace.raised) throw trace.raised;
    return await recordResult(ctx, call, taskId, { ok: true, content: withDecision(toolResultContent(value), decision, input) }, probe);
  } catch (err) {
    const reason = ctx.abortReason();
    if (reason === "cancelled") markCancelled(ctx, tool);
    if (reason) throw new RunAborted(reason);
    if (trace.raised) return endWaiting(ctx, taskId, trace.raised);
    // The error may quote what the tool read (a file, a command's stderr): the log's rule applies.
    const message = toStorableText(err instanceof Error ? err.message : String(err));
    ctx.logger.warn({ err, tool: tool.name, runId }, "tool failed; its error goes back to the model");
    return recordResult(ctx, call, taskId, { ok: false, code: "TOOL_ERROR", message: `${tool.name} failed: ${message}` }, probe);
  }
}

/**
 * A cancel stopped the tool: the state says so (ToolDefinition.onCancelState), in the events the
 * run flushes before its workflow.cancelled. Only for a cancel: a run stopped by a lost lease or a
 * shutdown is resumed elsewhere and runs the tool again. A patch that does not apply is logged and
 * left out: the run still ends cancelled.
 */
function markCancelled(ctx: RunContext, tool: ToolDefinition): void {
  if (!tool.onCancelState) return;
  try {
    const ops = tool.onCancelState(deepClone(ctx.state));
    if (ops.length === 0) return;
    ctx.state = applyPatch(deepClone(ctx.state), ops, true, false).newDocument;
    ctx.writer.emit({ type: "state.patched", data: { runId: ctx.runId, patch: ops as JsonPatch } });
  } catch (err) {
    ctx.logger.warn({ err, tool: tool.name, runId: ctx.runId }, "onCancelState failed; the state stays as the tool left it");
  }
}

/** Records a result for a call that was skipped because the user sent a newer message. */
export async function skipToolCall(ctx: RunContext, call: ToolCall): Promise<ToolMessage> {
  const taskId = `${ctx.runId}:tool:${call.id}`;
  ctx.writer.emit({
    type: "task.created",
    data: { runId: ctx.runId, taskId, kind: "tool", name: `tool-${call.function.name}-${call.id}`, toolCallId: call.id },
  });
  return recordResult(ctx, call, taskId, {
    ok: false,
    code: "SKIPPED",
    message: "Skipped: the user sent a new message before this tool ran. Answer that message instead.",
  });
}
