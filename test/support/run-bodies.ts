/**
 * The RunAgentInput bodies the runner and remote tests post: a run of one user message (its id
 * derived from the run's, so a replay can be matched to it), and a connect, which carries none.
 */
import type { Message } from "@ag-ui/core";

export const userMessage = (id: string, content: string): Message => ({ id, role: "user", content });

export const runBody = (threadId: string, runId: string, text: string, forwardedProps: Record<string, unknown> = {}) => ({
  threadId,
  runId,
  messages: [userMessage(`u-${runId}`, text)],
  state: {},
  tools: [],
  context: [],
  forwardedProps,
});

export const connectBody = (threadId: string) => ({ threadId, runId: `connect-${Date.now()}`, messages: [], state: {}, tools: [], context: [], forwardedProps: {} });
