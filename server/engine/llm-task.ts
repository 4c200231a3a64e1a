/**
 * One LLM request as a durable task: task.created, the streamed deltas as stream events, then
 * the whole assistant message (and its reasoning) as durable message.appended events, usage,
 * and task.completed. The stream events make live and resumed clients see tokens as they come;
 * the durable message is what reload, recovery and the next LLM request read.
 */
import type { AssistantMessage, Message, ReasoningMessage, ToolCall } from "@ag-ui/core";
import { toolJsonSchema } from "../agents/define.ts";
import { resumesLater, RunAborted, RunFailure } from "./errors.ts";
import { ModelError } from "../models/errors.ts";
import { toModelMessages } from "../models/from-agui.ts";
import type { ModelTool } from "../models/model.ts";
import type { RunContext } from "./run-context.ts";
import { stateForModel } from "./state-context.ts";
import { ToolCallPrediction } from "./tool-call-prediction.ts";

interface OpenToolCall {
  id: string;
  /** the upstream's id, when the engine minted `id` instead (protocol/events.ts ToolCallOriginSchema) */
  providerId?: string;
  name: string;
  args: string;
  /** Writes the call's streaming arguments to state keys (AgentDefinition.predictState). */
  prediction?: ToolCallPrediction;
}

/** Every tool-call id the conversation already uses, on a call or on a result. */
function usedToolCallIds(messages: readonly Message[]): Set<string> {
  const used = new Set<string>();
  for (const m of messages) {
    if (m.role === "tool") used.add(m.toolCallId);
    else if (m.role === "assistant") for (const c of m.toolCalls ?? []) used.add(c.id);
  }
  return used;
}

/** Instructions, then the application's context, then the shared state as of this request. */
export function systemPrompt(ctx: RunContext): string {
  const parts = [ctx.agent.instructionsFor?.({ threadId: ctx.threadId, forwardedProps: ctx.forwardedProps }) ?? ctx.agent.instructions];
  if (ctx.context.length > 0) {
    const lines = ctx.context.map((c) => `- ${c.description}: ${c.value}`);
    parts.push(`Context from the application:\n${lines.join("\n")}`);
  }
  const state = stateForModel(ctx.agent, ctx.state);
  if (state !== "") parts.push(state);
  return parts.join("\n\n");
}

export function modelTools(ctx: RunContext): ModelTool[] {
  const backend = ctx.agent.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: toolJsonSchema(t) }));
  const backendNames = new Set(ctx.agent.tools.map((t) => t.name));
  // A frontend tool may not shadow a backend one: the server's own tool wins, and the client
  // never sees a call it did not expect to execute.
  const frontend = ctx.frontendTools
    .filter((t) => !backendNames.has(t.name))
    .map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: (t.parameters as Record<string, unknown> | undefined) ?? { type: "object", properties: {} },
    }));
  return [...backend, ...frontend];
}

/** Runs LLM request number `turn` of the run and returns the messages it added. */
export async function runLlmTask(ctx: RunContext, turn: number): Promise<Message[]> {
  const { runId, writer } = ctx;
  // Before the task opens: a render function that throws fails the run with its own code.
  const system = systemPrompt(ctx);
  // The turn number restarts when a recovered run resumes: the random tail keeps task ids unique.
  const taskId = `${runId}:llm:${turn}:${ctx.ids.message().slice(-8)}`;
  writer.emit({ type: "task.created", data: { runId, taskId, kind: "llm", name: `llm-request-${turn}` } });

  const messageId = ctx.ids.message();
  let text = "";
  let textOpen = false;
  let reasoning: { id: string; content: string; open: boolean } | undefined;
  /** The adapter's opaque reasoning data of this request, in order (ModelPart providerData). */
  const reasoningDetails: unknown[] = [];
  const calls = new Map<number, OpenToolCall>();
  const usedIds = usedToolCallIds(ctx.messages);

  const closeReasoning = () => {
    if (reasoning?.open) {
      reasoning.open = false;
      writer.emit({ type: "reasoning.ended", data: { runId, messageId: reasoning.id } });
    }
  };

  try {
    const stream = ctx.model.stream({
      messages: toModelMessages(ctx.messages, system),
      tools: modelTools(ctx),
      signal: ctx.signal,
    });
    for await (const d of stream) {
      switch (d.type) {
        case "reasoning-delta":
          if (d.providerData) reasoningDetails.push(...d.providerData);
          if (d.delta === "") {
            // Provider data only (a signature, an encrypted item): kept, nothing to show.
            if (d.providerData && !reasoning) reasoning = { id: ctx.ids.message(), content: "", open: false };
            break;
          }
          if (!reasoning) {
            reasoning = { id: ctx.ids.message(), content: "", open: true };
            writer.emit({ type: "reasoning.started", data: { runId, messageId: reasoning.id } });
          }
          if (!reasoning.open) break; // reasoning after the answer began: keep the first span only
          reasoning.content += d.delta;
          writer.emit({ type: "reasoning.delta", data: { runId, messageId: reasoning.id, delta: d.delta } });
          break;
        case "text-delta":
          closeReasoning();
          if (!textOpen) {
            textOpen = true;
            writer.emit({ type: "text.started", data: { runId, messageId } });
          }
          text += d.delta;
          writer.emit({ type: "text.delta", data: { runId, messageId, delta: d.delta } });
          break;
        case "tool-call-start": {
          closeReasoning();
          // The upstream's id unless the thread already has it (or it gave none): then ours.
          const fresh = d.id !== "" && !usedIds.has(d.id);
          const id = fresh ? d.id : ctx.ids.toolCall();
          const providerId = !fresh && d.id !== "" ? d.id : undefined;
          usedIds.add(id);
          const prediction = ToolCallPrediction.of(ctx, d.name);
          calls.set(d.index, { id, ...(providerId && { providerId }), name: d.name, args: "", ...(prediction && { prediction }) });
          writer.emit({
            type: "toolcall.started",
            data: { runId, toolCallId: id, name: d.name, parentMessageId: messageId, ...(providerId && { providerToolCallId: providerId }) },
          });
          break;
        }
        case "tool-call-args-delta": {
          const call = calls.get(d.index);
          if (!call) break;
          call.args += d.delta;
          writer.emit({ type: "toolcall.args", data: { runId, toolCallId: call.id, delta: d.delta } });
          call.prediction?.args(call.args);
          break;
        }
        case "usage":
          writer.emit({
            type: "usage.recorded",
            data: {
              runId,
              taskId,
              usage: { inputTokens: d.inputTokens, outputTokens: d.outputTokens, totalTokens: d.totalTokens },
            },
          });
          break;
        // Calls end together when the response does (below), after their predicted state settled.
        case "tool-call-end":
        case "finish":
          break;
      }
    }
  } catch (err) {
    const reason = ctx.abortReason();
    // Lease or store lost, or shutdown: the run resumes later and asks the model again; nothing is kept.
    if (reason && resumesLater(reason)) {
      for (const call of calls.values()) call.prediction?.stop();
      throw new RunAborted(reason);
    }
    // The calls are dropped from the conversation below, so what they predicted goes too.
    for (const call of calls.values()) call.prediction?.withdraw();
    // Cancelled or failed mid-answer: the text clients already saw stays in the conversation, so a
    // reload shows the partial message that a client watching live ended with.
    closeReasoning();
    if (textOpen) writer.emit({ type: "text.ended", data: { runId, messageId } });
    if (reasoning) {
      const r: ReasoningMessage = { id: reasoning.id, role: "reasoning", content: reasoning.content, ...encrypted(reasoningDetails) };
      writer.emit({ type: "message.appended", data: { runId, source: "agent", message: r } });
    }
    if (text !== "") {
      const partial: AssistantMessage = { id: messageId, role: "assistant", content: text };
      writer.emit({ type: "message.appended", data: { runId, source: "agent", message: partial } });
    }
    if (reason) throw new RunAborted(reason);
    const code = err instanceof ModelError ? err.code : "LLM_ERROR";
    const message = err instanceof Error ? err.message : String(err);
    writer.emit({ type: "task.failed", data: { runId, taskId, error: { code, message } } });
    throw new RunFailure(code, `The model request failed: ${message}`, { cause: err });
  }

  closeReasoning();
  if (textOpen) writer.emit({ type: "text.ended", data: { runId, messageId } });
  for (const call of calls.values()) {
    call.prediction?.finish(call.args); // the final value lands before TOOL_CALL_END
    writer.emit({ type: "toolcall.ended", data: { runId, toolCallId: call.id } });
  }

  const added: Message[] = [];
  if (reasoning) {
    const r: ReasoningMessage = { id: reasoning.id, role: "reasoning", content: reasoning.content, ...encrypted(reasoningDetails) };
    added.push(r);
  }
  const toolCalls: ToolCall[] = [...calls.values()].map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: c.args },
    ...(c.providerId && { metadata: { providerToolCallId: c.providerId } }),
  }));
  // No text beside tool calls: no `content`, as every client that watched the stream built it
  // (TOOL_CALL_START creates the message without one), so a reload shows the same message.
  const assistant: AssistantMessage = { id: messageId, role: "assistant", ...((text !== "" || toolCalls.length === 0) && { content: text }) };
  if (toolCalls.length > 0) assistant.toolCalls = toolCalls;
  added.push(assistant);
  for (const message of added) {
    writer.emit({ type: "message.appended", data: { runId, source: "agent", message } });
  }
  writer.emit({ type: "task.completed", data: { runId, taskId } });
  await writer.flush();
  ctx.messages.push(...added);
  return added;
}

/**
 * The provider's reasoning items as the reasoning message's `encryptedValue` (AG-UI's field for
 * reasoning only the provider can read): stored with the conversation, so the next request can
 * carry them back (models/from-agui.ts), also after a restart or on another instance.
 */
function encrypted(details: unknown[]): { encryptedValue?: string } {
  return details.length > 0 ? { encryptedValue: JSON.stringify(details) } : {};
}
