/**
 * Where a thread's branches part, as the chat shows it: for each message of the branch shown,
 * the alternatives at that point ("‹ 1/2 ›") and the branch each one leads to. Pure.
 *
 * Branches are compared by their turns (user and assistant messages) from the start: two branches
 * that agree on every turn before position i and differ at i are alternatives there. A Regenerate
 * differs by the answer's id, an edit by the user message's text under the same id. A choice that
 * several branches share (a branch continued later) leads to the current branch if it is one of
 * them, else to the newest. Rejected: reading the fork points alone (`keepThrough`), which cannot
 * tell that a branch continued from an older one repeats that one's messages.
 */
/** A message as the thread view returns it; only what the comparison reads. */
export interface ThreadMessage {
  id: string;
  role: string;
  content?: unknown;
}

export interface BranchMessages {
  branchId: string;
  messages: readonly ThreadMessage[];
}

export interface Alternatives {
  /** The shown message's place among the alternatives, from 0. */
  index: number;
  /** The branch that shows each alternative, in the order the branches were made. */
  branches: string[];
}

const isTurn = (m: ThreadMessage) => m.role === "user" || m.role === "assistant";
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content ?? ""));
const keyOf = (m: ThreadMessage) => (m.role === "user" ? `${m.id}\u0000${textOf(m.content)}` : m.id);

/**
 * The alternatives at each message of `shown` that has any, by message id. `all` lists every
 * branch whose messages are known, oldest first (the order of the thread's `branches`).
 */
export function alternativesOf(all: readonly BranchMessages[], shown: string, current: string): Map<string, Alternatives> {
  const out = new Map<string, Alternatives>();
  const turns = new Map(all.map((b) => [b.branchId, b.messages.filter(isTurn)]));
  const path = turns.get(shown);
  if (!path) return out;
  let candidates = all.map((b) => b.branchId);
  for (let i = 0; i < path.length; i++) {
    const groups = new Map<string, string[]>();
    for (const id of candidates) {
      const m = turns.get(id)![i];
      if (!m) continue;
      const key = keyOf(m);
      groups.set(key, [...(groups.get(key) ?? []), id]);
    }
    const mine = keyOf(path[i]!);
    if (groups.size > 1) {
      const keys = [...groups.keys()];
      out.set(path[i]!.id, {
        index: keys.indexOf(mine),
        branches: keys.map((k) => {
          const members = groups.get(k)!;
          return members.includes(current) ? current : members.at(-1)!;
        }),
      });
    }
    candidates = groups.get(mine) ?? [shown];
  }
  return out;
}
