/**
 * A ToolContext for calling a tool directly in a test: the thread and tenant given, a run and
 * call id of its own, no state, and what the tool reports (terminal output, artifacts) handed to
 * the test's callbacks.
 */
import { randomUUID } from "node:crypto";
import type { ToolContext } from "../../server/agents/define.ts";

/** A tool test that does not give a memory gets one that says so when a tool reaches for it. */
const noMemory: ToolContext["memory"] = new Proxy({} as ToolContext["memory"], {
  get: () => () => Promise.reject(new Error("this test gave the tool no memory (testToolContext({ memory }))")),
});

export function testToolContext(opts: Partial<Pick<ToolContext, "threadId" | "tenantId" | "forwardedProps" | "signal" | "terminal" | "artifact" | "memory">> = {}): ToolContext {
  return {
    threadId: opts.threadId ?? "tool-test",
    tenantId: opts.tenantId ?? "default",
    runId: "r1",
    toolCallId: `c-${randomUUID()}`,
    signal: opts.signal ?? new AbortController().signal,
    forwardedProps: opts.forwardedProps,
    state: { get: () => ({}), patch: async () => {}, set: async () => {} },
    progress: async () => {},
    terminal: opts.terminal ?? (async () => {}),
    artifact: opts.artifact ?? (async () => {}),
    complete: () => {},
    interrupt: async () => undefined,
    memory: opts.memory ?? noMemory,
    traceHeaders: () => ({}),
  };
}
