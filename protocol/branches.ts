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
 *
 * A client says so in one of two ways. AG-UI's own is `parentRunId` ("parent for branching/time
 * travel within the same thread"): a run that names an earlier run of the thread and sends the
 * conversation as that run left it (or none of it: AG-UI lets a run omit what the history has),
 * plus its new messages, forks at that run (planParentFork), wherever the thread went since,
 * even on a branch left behind. A parentRunId explains a history only when the history holds
 * nothing of what came after that run on the current branch; otherwise the rules above decide,
 * stale copy included. Threadline's other way, `forwardedProps.threadline.fork`, forks by the
 * shape alone. Rejected: lifting the refusal for any run that carries a parentRunId, which
 * would let a client that tags every run with the last one it saw fork silently from a stale tab.
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

/** A fork at the run the client names in parentRunId; see planParentFork. */
export interface ParentFork {
  /** What of the current branch the new one keeps; null when nothing of it needs cutting. */
  fork: ForkPlan | null;
  /**
   * Messages of the parent run's conversation that the current branch no longer has (the run was
   * on a branch left behind, or before an edit): written again, as the log recorded them, after
   * what the fork keeps.
   */
  restore: Message[];
  /** The conversation the run starts from: what the fork keeps, then `restore`. */
  base: Message[];
}

/**
 * The fork at the parent run, given the current branch, the conversation as the parent run left
 * it (`atParent`), and the client's messages; null when the parentRunId does not explain them
 * (the client sends a message of the current branch that came after the parent run). Within the
 * parent's conversation the usual rules apply: the client may regenerate or edit from there.
 */
export function planParentFork(branch: readonly Message[], atParent: readonly Message[], incoming: readonly Message[]): ParentFork | null {
  const parentIds = new Set(atParent.map((m) => m.id));
  const after = new Set(branch.filter((m) => !parentIds.has(m.id)).map((m) => m.id));
  if (incoming.some((m) => after.has(m.id))) return null;
  const within = planFork(atParent, incoming);
  const base = within ? keptBy(atParent, within.keepThrough) : [...atParent];
  // The longest stretch the current branch shares with it, from the start: kept, not written again.
  let shared = 0;
  while (shared < base.length && shared < branch.length && sameTurn(base[shared]!, branch[shared]!)) shared++;
  const fork = shared < branch.length ? { keepThrough: shared === 0 ? null : branch[shared - 1]!.id, edit: within?.edit ?? false } : null;
  return { fork, restore: base.slice(shared), base };
}

/** The branch as a fork keeps it: its messages up to and including `keepThrough`. */
export function keptBy<T extends { id: string }>(branch: readonly T[], keepThrough: string | null): T[] {
  if (keepThrough === null) return [];
  const at = branch.findIndex((m) => m.id === keepThrough);
  return at < 0 ? [...branch] : branch.slice(0, at + 1);
}

/** One message in both lists: the same id, and for a user message the same text (else an edit). */
function sameTurn(a: Message, b: Message): boolean {
  return a.id === b.id && (a.role !== "user" || textOf(a.content) === textOf(b.content));
}

function textOf(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}
