/**
 * Ids the client relies on to put a conversation together: RUN_STARTED and RUN_FINISHED echo the
 * request's threadId and runId; a message or tool call id is never one the conversation already
 * has (a reused id appends to the old message or call, in both clients); a TOOL_CALL_RESULT
 * answers a call the conversation knows. (Neither client checks these; a UI shows the damage.)
 */
import { fail, pass } from "../types.ts";
import { streamed, type RuleSpec } from "./rule.ts";

export const ids: RuleSpec = {
  name: "ids",
  title:
    "threadId and runId echo the request; message and tool call ids are new to the conversation; TOOL_CALL_RESULT names a known tool call.",
  check(ctx) {
    const runs = streamed(ctx);
    if (runs.length === 0) return fail("no run answered with a stream to read");
    for (const run of runs) {
      const known = new Set(run.input.messages.map((m) => m.id));
      const calls = new Set(run.input.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
      const opened = new Set<string>();
      for (const f of run.exchange.frames) {
        const e = f.event;
        if (!e) continue;
        const at = { scenario: run.scenario, frame: f.block.raw };
        if (e.type === "RUN_STARTED" || e.type === "RUN_FINISHED") {
          if (e.threadId !== run.input.threadId) return fail(`${e.type}.threadId is ${JSON.stringify(e.threadId)}, the request's is "${run.input.threadId}"`, at);
          if (e.runId !== run.input.runId) return fail(`${e.type}.runId is ${JSON.stringify(e.runId)}, the request's is "${run.input.runId}"`, at);
        }
        if (e.type === "TEXT_MESSAGE_START" || e.type === "REASONING_MESSAGE_START") {
          const id = String(e.messageId);
          if (known.has(id)) return fail(`${e.type} reuses message id ${id}, which the conversation already has`, at);
          opened.add(id);
        }
        if (e.type === "TOOL_CALL_START") {
          const id = String(e.toolCallId);
          if (calls.has(id)) return fail(`TOOL_CALL_START reuses tool call id ${id}`, at);
          calls.add(id);
        }
        if (e.type === "TOOL_CALL_RESULT") {
          if (!calls.has(String(e.toolCallId))) return fail(`TOOL_CALL_RESULT for tool call ${String(e.toolCallId)}, which no message or TOOL_CALL_START of this conversation made`, at);
          const id = String(e.messageId);
          if (known.has(id) || opened.has(id)) return fail(`TOOL_CALL_RESULT.messageId ${id} is the id of another message: a result mints its own`, at);
          known.add(id);
        }
      }
      // Ids of this run's messages are known to the next run only through its input.
      for (const id of opened) known.add(id);
    }
    return pass("ids echoed and consistent");
  },
};
