/**
 * Hand-built workflow event logs for the protocol tests. Every event goes through the real
 * vocabulary schema (defaults applied, typos rejected), gets the next seq and a commit time 7 ms
 * after the previous one, exactly as the store would hand it back.
 */
import type { Message, Tool } from "@ag-ui/core";
import {
  WorkflowEventSchema,
  isStreamEvent,
  runIdOf,
  type StoredEvent,
  type WorkflowEvent,
} from "../../protocol/events.ts";

export const T0 = 1_760_000_000_000;

type ToolCallSpec = { id: string; name: string; args: string };

export class Log {
  readonly events: StoredEvent[] = [];
  private seq = 0;
  private at = T0;

  constructor(readonly threadId = "thread-1") {}

  add(e: WorkflowEvent): this {
    const parsed = WorkflowEventSchema.parse(e);
    this.seq += 1;
    this.at += 7;
    this.events.push({ ...parsed, threadId: this.threadId, seq: this.seq, runId: runIdOf(parsed), at: this.at } as StoredEvent);
    return this;
  }

  created(agentId = "default"): this {
    return this.add({ type: "thread.created", data: { agentId } });
  }

  /** run.accepted, its new input messages, the merged state if any, then workflow.started. */
  run(
    runId: string,
    input: { messages?: Message[]; tools?: Tool[]; state?: unknown; start?: boolean; fork?: { from: string; keepThrough: string | null } } = {},
  ): this {
    this.add({ type: "run.accepted", data: { runId, tools: input.tools ?? [], context: [] } });
    if (input.fork) {
      const { from, keepThrough } = input.fork;
      this.add({ type: "branch.forked", data: { runId, branchId: runId, fromBranchId: from, keepThrough } });
    }
    for (const message of input.messages ?? []) this.add({ type: "message.appended", data: { runId, source: "input", message } });
    if (input.state !== undefined) this.add({ type: "state.set", data: { runId, state: input.state } });
    return input.start === false ? this : this.add({ type: "workflow.started", data: { runId } });
  }

  task(runId: string, taskId: string, name: string, toolCallId?: string): this {
    const kind = toolCallId ? "tool" : "llm";
    return this.add({ type: "task.created", data: { runId, taskId, kind, name, ...(toolCallId && { toolCallId }) } });
  }

  taskDone(runId: string, taskId: string): this {
    return this.add({ type: "task.completed", data: { runId, taskId } });
  }

  taskFailed(runId: string, taskId: string, code = "TOOL_ERROR", message = "the tool threw"): this {
    return this.add({ type: "task.failed", data: { runId, taskId, error: { code, message } } });
  }

  /** Streams a text message; `end: false` leaves it open. */
  text(runId: string, messageId: string, chunks: string[], opts: { end?: boolean } = {}): this {
    this.add({ type: "text.started", data: { runId, messageId } });
    for (const delta of chunks) this.add({ type: "text.delta", data: { runId, messageId, delta } });
    return opts.end === false ? this : this.add({ type: "text.ended", data: { runId, messageId } });
  }

  reasoning(runId: string, messageId: string, chunks: string[]): this {
    this.add({ type: "reasoning.started", data: { runId, messageId } });
    for (const delta of chunks) this.add({ type: "reasoning.delta", data: { runId, messageId, delta } });
    return this.add({ type: "reasoning.ended", data: { runId, messageId } });
  }

  toolCall(runId: string, parentMessageId: string, call: ToolCallSpec, chunks = [call.args], opts: { end?: boolean } = {}): this {
    this.add({ type: "toolcall.started", data: { runId, toolCallId: call.id, name: call.name, parentMessageId } });
    for (const delta of chunks) this.add({ type: "toolcall.args", data: { runId, toolCallId: call.id, delta } });
    return opts.end === false ? this : this.add({ type: "toolcall.ended", data: { runId, toolCallId: call.id } });
  }

  assistant(runId: string, id: string, content?: string, calls: ToolCallSpec[] = []): this {
    const message = assistantMessage(id, content, calls);
    return this.add({ type: "message.appended", data: { runId, source: "agent", message } });
  }

  toolResult(runId: string, id: string, toolCallId: string, content: string): this {
    return this.add({ type: "message.appended", data: { runId, source: "agent", message: { id, role: "tool", toolCallId, content } } });
  }

  usage(runId: string, inputTokens: number, outputTokens: number, model = "demo"): this {
    return this.add({ type: "usage.recorded", data: { runId, usage: { model, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } } });
  }

  suspended(runId: string, reason: "input" | "frontend_tool" | "approval" = "input", pendingToolCallIds: string[] = []): this {
    return this.add({ type: "workflow.suspended", data: { runId, reason, pendingToolCallIds } });
  }

  completed(runId: string, result?: unknown): this {
    return this.add({ type: "workflow.completed", data: { runId, ...(result !== undefined && { result }) } });
  }

  failed(runId: string, code: string, message: string): this {
    return this.add({ type: "workflow.failed", data: { runId, error: { code, message } } });
  }

  cancelled(runId: string, reason?: string): this {
    this.add({ type: "workflow.cancelling", data: { runId } });
    return this.add({ type: "workflow.cancelled", data: { runId, ...(reason && { reason }) } });
  }

  /** The log as retention leaves it once the runs are over: stream events gone, seqs kept. */
  compacted(): StoredEvent[] {
    return this.events.filter((e) => !isStreamEvent(e));
  }

  get lastSeq(): number {
    return this.seq;
  }
}

export function user(id: string, content: string): Message {
  return { id, role: "user", content };
}

export function assistantMessage(id: string, content: string | undefined, calls: ToolCallSpec[] = []): Message {
  return {
    id,
    role: "assistant",
    ...(content !== undefined && { content }),
    ...(calls.length > 0 && {
      toolCalls: calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.args } })),
    }),
  };
}

export function toolMessage(id: string, toolCallId: string, content: string): Message {
  return { id, role: "tool", toolCallId, content };
}
