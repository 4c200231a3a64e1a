/**
 * A tool's `followUp` (ToolDefinition): once every call of the model's last answer has its
 * result, the agent itself calls the client's tool the succeeded calls name, in one assistant
 * message of its own, and the run then waits for the client's result as it does for a call the
 * model made. The AG-UI dojo's predictive-state agents do this: `write_document_local` is
 * followed by the page's `confirm_changes` (arguments `{}`), so the user is always asked.
 * Rejected: asking the model for the call in its instructions, which a model (and the dojo's
 * recorded fixtures) may skip, leaving the proposal unconfirmed.
 *
 * Decided from the conversation, as the rest of the loop is (run-loop.ts): a run recovered
 * between the tool's result and the follow-up appends it then. A follow-up whose tool the client
 * did not offer is not made (nothing could answer it); the model goes on as without one.
 */
import type { AssistantMessage, Message, ToolCall } from "@ag-ui/core";
import type { RunContext } from "./run-context.ts";

/** The assistant message whose calls the tool messages at the end of the conversation answer. */
function answeredAssistant(messages: Message[]): AssistantMessage | undefined {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === "tool") i--;
  if (i === messages.length - 1) return undefined; // no tool result last: nothing to follow
  const m = messages[i];
  return m?.role === "assistant" && (m.toolCalls?.length ?? 0) > 0 ? m : undefined;
}

/** The follow-up calls due now (none when the last answer's calls are not all resolved). */
export function dueFollowUps(ctx: RunContext): ToolCall[] {
  const assistant = answeredAssistant(ctx.messages);
  if (!assistant) return [];
  const results = new Map(ctx.messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m] as const] : [])));
  const calls = assistant.toolCalls!;
  if (!calls.every((c) => results.has(c.id))) return [];
  const offered = new Set(ctx.frontendTools.map((t) => t.name));
  const due: ToolCall[] = [];
  for (const call of calls) {
    const followUp = ctx.agent.tools.find((t) => t.name === call.function.name)?.followUp;
    if (!followUp || results.get(call.id)!.error !== undefined || !offered.has(followUp.tool)) continue;
    due.push({
      id: ctx.ids.toolCall(),
      type: "function",
      function: { name: followUp.tool, arguments: JSON.stringify(followUp.arguments ?? {}) },
    });
  }
  return due;
}

/** Appends the agent's own call(s) as one assistant message; clients get TOOL_CALL_START/ARGS/END. */
export async function appendFollowUps(ctx: RunContext, calls: ToolCall[]): Promise<void> {
  const message: AssistantMessage = { id: ctx.ids.message(), role: "assistant", toolCalls: calls };
  ctx.writer.emit({ type: "message.appended", data: { runId: ctx.runId, source: "agent", message } });
  await ctx.writer.flush();
  ctx.messages.push(message);
}
