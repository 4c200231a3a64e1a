/**
 * Turning a RunAgentInput into the log's terms. A client sends the whole conversation and the
 * whole state on every run (CopilotKit does); only what the log has not seen is new.
 */
import type { Message } from "@ag-ui/core";

/**
 * Messages whose ids the thread has not seen, in the client's order. A known id is never
 * rewritten: the log is append-only, and a client's copy of an old message (for example an
 * assistant message it rebuilt from stream events) must not overwrite the recorded one.
 * Activity messages are the client's view of tool progress, not conversation: dropped.
 */
export function newMessagesOf(known: Message[], incoming: Message[]): Message[] {
  const seen = new Set(known.map((m) => m.id));
  const fresh: Message[] = [];
  for (const m of incoming) {
    if (seen.has(m.id) || m.role === "activity") continue;
    seen.add(m.id);
    fresh.push(m);
  }
  return fresh;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The run's state merged into the thread's: the client's top-level keys win, keys only the
 * thread has are kept. Rejected alternative: replacing the thread's state with the client's,
 * which loses what the agent wrote while the client was not looking (another tab, a reload).
 */
export function mergeState(threadState: unknown, inputState: unknown): unknown {
  if (inputState === undefined || inputState === null) return threadState ?? {};
  if (isPlainObject(threadState) && isPlainObject(inputState)) return { ...threadState, ...inputState };
  return inputState;
}
