/**
 * Branches: a conversation people steer. A run whose messages diverge from the thread's current
 * history (CopilotKit's Regenerate sends the history without the last assistant turn; an edit
 * sends a user message under its id with new text, or a truncated history) forks the thread at
 * the divergence: its admission writes `branch.forked` (what of the current branch is kept), then
 * the client's messages after that point, and the new branch becomes the current one. Nothing is
 * deleted: the branch left behind is the log folded up to the fork, and stays readable.
 *
 * What counts as divergence, comparing the client's messages with the current branch:
 * - a user message the thread has, under the same id, with other content (an edit): the fork
 *   keeps what came before that message;
 * - a user or assistant message of the branch, after the last message the client still has, that
 *   the client no longer sends (Regenerate, a truncated history): the fork keeps everything up to
 *   the client's last known message.
 * Not divergence: a client that sends only new messages (no id the thread knows: a continuation,
 * as for any client that does not keep history), a client that lacks tool results, reasoning or
 * activity messages (some clients do not keep them), and a client's own copy of an assistant
 * message (rebuilt from the stream, it may differ in form from the recorded one, which is kept).
 * Rejected: comparing whole messages, which forked on every run of a client whose copy of an
 * assistant message differs in form only.
 */
import type { Message } from "@ag-ui/core";

/** The thread's first branch; every later one is named after the run that forked it. */
export const MAIN_BRANCH = "main";

export interface ForkPlan {
  /** The last message of the current branch the new branch keeps; null: none. */
  keepThrough: string | null;
}

/** Where the client's history leaves the current branch, or null when it only continues it. */
export function planFork(branch: readonly Message[], incoming: readonly Message[]): ForkPlan | null {
  const position = new Map(branch.map((m, i) => [m.id, i]));
  let lastKnown = -1;
  for (const m of incoming) {
    const at = position.get(m.id);
    if (at === undefined) continue;
    const mine = branch[at]!;
    if (mine.role === "user" && m.role === "user" && textOf(mine.content) !== textOf(m.content)) {
      return { keepThrough: at === 0 ? null : branch[at - 1]!.id };
    }
    lastKnown = Math.max(lastKnown, at);
  }
  if (lastKnown < 0) return null;
  const sent = new Set(incoming.map((m) => m.id));
  const dropped = branch.slice(lastKnown + 1).some((m) => (m.role === "user" || m.role === "assistant") && !sent.has(m.id));
  return dropped ? { keepThrough: branch[lastKnown]!.id } : null;
}

/** The branch as a fork keeps it: its messages up to and including `keepThrough`. */
export function keptBy<T extends { id: string }>(branch: readonly T[], keepThrough: string | null): T[] {
  if (keepThrough === null) return [];
  const at = branch.findIndex((m) => m.id === keepThrough);
  return at < 0 ? [...branch] : branch.slice(0, at + 1);
}

function textOf(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}
