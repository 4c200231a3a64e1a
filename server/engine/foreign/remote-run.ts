/**
 * The run of a remote agent (remoteAgent): in place of the engine's loop of model requests and
 * tools (run-loop.ts), one POST of RunAgentInput to the remote, whose stream ingest.ts logs. Ends
 * as the loop's runs do: an answer leaves the thread WAITING for input, an interrupt WAITING for
 * its answer (the next run forwards the answer as `resume`), a failure is the run's one RUN_ERROR.
 */
import type { Interrupt, Message, ResumeEntry, RunAgentInput } from "@ag-ui/core";
import type { RemoteEndpoint } from "../../agents/remote-endpoint.ts";
import { RunAborted, RunFailure } from "../errors.ts";
import type { RunContext } from "../run-context.ts";
import { type RunOutcome, unresolvedToolCalls } from "../run-loop.ts";
import { DEFAULT_FOREIGN_BOUNDS } from "./bounds.ts";
import { type ForeignCodes, ingestForeignRun, REMOTE_CODES } from "./ingest.ts";
import type { ForeignEvents } from "./source.ts";
import { remoteEvents } from "./remote-stream.ts";

export function runRemote(ctx: RunContext, endpoint: RemoteEndpoint): Promise<RunOutcome> {
  // The POST carries the run's trace context: the remote's run joins this run's trace.
  return runForeign(ctx, (input, signal, _bounds, traceHeaders) => remoteEvents(endpoint, input, signal, traceHeaders), REMOTE_CODES);
}

/** A foreign agent's run: `events` is its stream for the input built from the log (remoteInput). */
export async function runForeign(ctx: RunContext, events: ForeignEvents, codes: ForeignCodes): Promise<RunOutcome> {
  try {
    if (ctx.signal.aborted) throw new RunAborted(ctx.abortReason() ?? "cancelled");
    const input = remoteInput(ctx);
    const end = await ingestForeignRun(ctx, events(input, ctx.signal, ctx.foreignBounds ?? DEFAULT_FOREIGN_BOUNDS, ctx.probe.traceHeaders()), codes);
    await ctx.writer.flush();
    if (end.kind === "interrupted") return await waitFor(ctx, end.interrupts, end.added, codes);
    ctx.messages.push(...end.added);
    // Calls the remote made to the client's tools and left without a result: the thread waits for
    // the client's results, as after the engine's own model calls a frontend tool (run-loop.ts).
    const pending = unresolvedToolCalls(ctx.messages).filter((c) => ctx.frontendTools.some((t) => t.name === c.function.name));
    if (pending.length > 0) return { kind: "waiting", reason: "frontend_tool", pendingToolCallIds: pending.map((c) => c.id) };
    return { kind: "waiting", reason: "input", pendingToolCallIds: [] };
  } catch (err) {
    if (err instanceof RunAborted) return { kind: "aborted", reason: err.reason };
    const reason = ctx.abortReason();
    if (reason) return { kind: "aborted", reason };
    if (err instanceof RunFailure) return { kind: "failed", code: err.code, message: err.message };
    ctx.logger.error({ err }, "foreign run failed on an unexpected error");
    return { kind: "failed", code: "INTERNAL_ERROR", message: `The run failed on an internal error: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * What the remote is sent: the thread's conversation on the client's branch (the log's, so a
 * follow-up carries every earlier turn whatever the client sent), the state, the client's tools,
 * context and forwardedProps, and the answers to the remote's interrupts this run carries.
 * Activity messages stay home: they are this server's rendering of progress, not conversation.
 */
export function remoteInput(ctx: RunContext): RunAgentInput {
  const resume: ResumeEntry[] = [];
  for (const rec of ctx.interrupts.values()) {
    const r = rec.resolution;
    // A subagent's remote gets the answers to its own questions only (subagent-task.ts).
    if (r?.runId !== ctx.runId || rec.request.subagentRunId !== ctx.subagentRunId) continue;
    resume.push({ interruptId: r.interruptId, status: r.status, ...(r.payload !== undefined && { payload: r.payload }) });
  }
  return {
    threadId: ctx.threadId,
    // A subagent's remote runs the child run, whose parent is the run that handed it the task.
    runId: ctx.subagentRunId ?? ctx.runId,
    ...(ctx.subagentRunId !== undefined && { parentRunId: ctx.runId }),
    state: ctx.state ?? {},
    messages: ctx.messages.filter((m: Message) => m.role !== "activity").map(withoutAttribution),
    tools: ctx.frontendTools,
    context: ctx.context,
    forwardedProps: ctx.forwardedProps ?? {},
    ...(resume.length > 0 && { resume }),
  };
}

/** The remote runs the child itself: whose message it is, is this server's attribution. */
function withoutAttribution(m: Message): Message {
  if (m.subagentRunId === undefined) return m;
  const { subagentRunId: _child, ...plain } = m;
  return plain as Message;
}

/**
 * The remote's interrupts as the log's (interrupt.requested, kind "input"), so clients render and
 * answer them as any other, and admission checks the answers (resume.ts). The remote's interrupt
 * ids are kept: the answer goes back to it under them. A remote interrupt about no tool call is
 * recorded against its own id as the call (the log's record needs one).
 */
async function waitFor(ctx: RunContext, interrupts: Interrupt[], added: Message[], codes: ForeignCodes): Promise<RunOutcome> {
  if (interrupts.length === 0) throw new RunFailure(codes.malformed, `${codes.name} ended its run with an interrupt outcome that names no interrupt. Fix the agent, then send your message again.`);
  const parent = [...added].reverse().find((m) => m.role === "assistant")?.id ?? ctx.messages.findLast((m) => m.role === "assistant")?.id;
  // Every id checked before any is written: an outcome that fails on its second interrupt must
  // not leave its first asked (pendingInterrupts) on a thread whose run failed.
  const ids = new Set<string>();
  for (const i of interrupts) {
    if (ctx.interrupts.has(i.id) || ids.has(i.id)) {
      throw new RunFailure(codes.malformed, `${codes.name} asked interrupt "${i.id}" again; every interrupt needs a new id. Fix the agent, then send your message again.`);
    }
    ids.add(i.id);
  }
  for (const i of interrupts) {
    const toolCallId = i.toolCallId ?? i.id;
    ctx.writer.emit({
      type: "interrupt.requested",
      data: {
        runId: ctx.runId,
        interruptId: i.id,
        kind: "input",
        toolCallId,
        toolName: "remote",
        parentMessageId: parent ?? toolCallId,
        reason: i.reason,
        ...(i.message !== undefined && { message: i.message }),
        ...(i.metadata !== undefined && { payload: i.metadata }),
        ...(i.responseSchema !== undefined && { responseSchema: i.responseSchema as Record<string, unknown> }),
        ...(i.expiresAt !== undefined && { expiresAt: i.expiresAt }),
      },
    });
  }
  await ctx.writer.flush();
  ctx.messages.push(...added);
  return { kind: "waiting", reason: "interrupt", pendingToolCallIds: [], interruptIds: interrupts.map((i) => i.id) };
}
