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
 *
 * A stale copy is not a branch: a history that drops messages of the branch (not an edit) and
 * also brings a user message the branch does not have is a client that missed what others added
 * (a second tab, another device) and is now saying something new after it. Forking there would
 * hide the newer exchange from everyone, silently; the run is refused instead (STALE_HISTORY),
 * unless the client says the fork is deliberate. Regenerate and edit bring no new user message,
 * so they still fork by their shape alone. Rejected: refusing every history that lacks the
 * newest messages, which would refuse Regenerate and the edit of an earlier message.
 */
import type { Message } from "@ag-ui/core";

/** The thread's first branch; every later one is named after the run that forked it. */
export const MAIN_BRANCH = "main";

export interface ForkPlan {
  /** The last message of the current branch the new branch keeps; null: none. */
  keepThrough: string | null;
  /** True when a user message of the branch comes back with other text (an edit), not only dropped. */
  edit: boolean;
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
      return { keepThrough: at === 0 ? null : branch[at - 1]!.id, edit: true };
    }
    lastKnown = Math.max(lastKnown, at);
  }
  if (lastKnown < 0) return null;
  const sent = new Set(incoming.map((m) => m.id));
  const dropped = branch.slice(lastKnown + 1).some((m) => (m.role === "user" || m.role === "assistant") && !sent.has(m.id));
  return dropped ? { keepThrough: branch[lastKnown]!.id, edit: false } : null;
}

/**
 * Whether `plan` (planFork of these messages) comes from a stale copy of the branch: it only drops
 * messages, and the client adds a user message the branch does not have.
 */
export function isStaleCopy(plan: ForkPlan, branch: readonly Message[], incoming: readonly Message[]): boolean {
  if (plan.edit) return false;
  const known = new Set(branch.map((m) => m.id));
  return incoming.some((m) => m.role === "user" && !known.has(m.id));
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
