/**
 * Assertions over event sequences, shared by the suites. They state the protocol's rules as the
 * kit checks them on top of what both clients already enforce (a client run that did not fail
 * has passed the client's own verifier).
 */
import { expect } from "vitest";
import type { ClientOutcome } from "../../support/agui-clients.ts";

export interface Ev {
  type: string;
  [key: string]: unknown;
}

export function types(events: readonly Ev[]): string[] {
  return events.map((e) => e.type);
}

export function ofType(events: readonly Ev[], type: string): Ev[] {
  return events.filter((e) => e.type === type);
}

export function count(events: readonly Ev[], type: string): number {
  return ofType(events, type).length;
}

/** The client accepted the whole stream (its parser, verifier and apply stage raised nothing). */
export function expectAccepted(out: ClientOutcome): void {
  expect(out.error?.message, `@ag-ui/client ${out.version} rejected the stream`).toBeUndefined();
  expect(out.failed).toBe(false);
}

/**
 * RUN_STARTED first (with the request's ids, when given), exactly one terminal event, last, and
 * of the expected kind.
 */
export function expectBracketed(
  events: readonly Ev[],
  opts: { threadId?: string; runId?: string; terminal: "RUN_FINISHED" | "RUN_ERROR" },
): void {
  const t = types(events);
  expect(t[0]).toBe("RUN_STARTED");
  expect(count(events, "RUN_STARTED")).toBe(1);
  if (opts.threadId !== undefined) expect(events[0]!.threadId).toBe(opts.threadId);
  if (opts.runId !== undefined) expect(events[0]!.runId).toBe(opts.runId);
  expect(t.at(-1)).toBe(opts.terminal);
  expect(count(events, "RUN_FINISHED") + count(events, "RUN_ERROR")).toBe(1);
}

/**
 * Every START of a text message, reasoning message or tool call has its END later, and every
 * CONTENT/ARGS of an id lies between its START and END; all of it before the terminal event.
 */
export function expectLifecyclesClosed(events: readonly Ev[]): void {
  const terminal = events.findIndex((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR");
  const end = terminal === -1 ? events.length : terminal;
  const kinds = [
    { start: "TEXT_MESSAGE_START", mid: "TEXT_MESSAGE_CONTENT", stop: "TEXT_MESSAGE_END", key: "messageId" },
    { start: "REASONING_MESSAGE_START", mid: "REASONING_MESSAGE_CONTENT", stop: "REASONING_MESSAGE_END", key: "messageId" },
    { start: "REASONING_START", mid: "", stop: "REASONING_END", key: "messageId" },
    { start: "TOOL_CALL_START", mid: "TOOL_CALL_ARGS", stop: "TOOL_CALL_END", key: "toolCallId" },
  ];
  for (const k of kinds) {
    events.forEach((e, i) => {
      if (e.type !== k.start) return;
      const id = e[k.key];
      const stopAt = events.findIndex((x, j) => j > i && x.type === k.stop && x[k.key] === id);
      expect(stopAt, `${k.start} ${String(id)} is closed`).toBeGreaterThan(i);
      expect(stopAt, `${k.stop} ${String(id)} comes before the run's end`).toBeLessThan(end);
      events.forEach((x, j) => {
        if (x.type === k.mid && x[k.key] === id) {
          expect(j).toBeGreaterThan(i);
          expect(j).toBeLessThan(stopAt);
        }
      });
    });
  }
}

/** The text streamed for one message (or all text, without an id). */
export function streamedText(events: readonly Ev[], messageId?: string): string {
  return ofType(events, "TEXT_MESSAGE_CONTENT")
    .filter((e) => messageId === undefined || e.messageId === messageId)
    .map((e) => String(e.delta))
    .join("");
}

/** What matters of a message for comparing the client's and the server's view. */
export function shape(m: { id: string; role: string; content?: unknown; toolCalls?: unknown; toolCallId?: string }) {
  return {
    id: m.id,
    role: m.role,
    ...(typeof m.content === "string" && m.content !== "" ? { content: m.content } : {}),
    ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
    ...(Array.isArray(m.toolCalls) && m.toolCalls.length > 0 ? { toolCalls: m.toolCalls } : {}),
  };
}
