/**
 * The thread's branches as the chat navigates them: which branch is shown, the alternatives at
 * each message (branch-alternatives.ts), and switching.
 *
 * The branch a person chose to look at is kept per thread in localStorage, so a reload shows it
 * again. Rejected: writing the choice to the thread's log, which would move every other tab and
 * device on the thread to it (looking is not changing the conversation) and would need an event
 * the fold knows. What the person does from there is durable: a message sent, a Regenerate or an
 * edit on that branch forks the thread there (`forwardedProps.threadline.fork`), and the new
 * branch becomes the thread's current one, for everyone.
 */
import type { Message } from "@copilotkit/react-core/v2";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Agent } from "./agent-busy.ts";
import { getBranchMessages, type ThreadDetail, type ThreadMessage } from "./api.ts";
import { type Alternatives, alternativesOf } from "./branch-alternatives.ts";

const storageKey = (threadId: string) => `threadline.branch.${threadId}`;

export interface BranchView {
  /** The alternatives at a message of the shown branch, if any. */
  at(messageId: string): Alternatives | undefined;
  /** Shows `branchId` (the current one, or one left behind). */
  choose(branchId: string): void;
  /** True while the shown branch is not the thread's current one. */
  elsewhere: boolean;
  /** The page starts a run from what it shows: from now on it shows the thread's current branch. */
  leave(): void;
}

export function useBranches(threadId: string, detail: ThreadDetail | null, agent: Agent, busy: boolean, opened: boolean, showCurrent: () => void): BranchView {
  const [choice, setChoice] = useState<string | null>(() => localStorage.getItem(storageKey(threadId)));
  useEffect(() => setChoice(localStorage.getItem(storageKey(threadId))), [threadId]);
  const old = useOldBranches(threadId, detail);
  const current = detail?.branch ?? "main";
  const known = detail?.branches.some((b) => b.branchId === choice) ?? false;
  const shown = choice !== null && known ? choice : current;
  const elsewhere = shown !== current;

  // A branch left behind is shown by giving the agent its messages, once the agent is idle (a
  // connect in flight would put the current branch back when it ends).
  const list = elsewhere ? old[shown] : undefined;
  useEffect(() => {
    if (!list || !opened || busy || agent.isRunning) return;
    const ids = agent.messages.map((m) => m.id).join("\n");
    if (ids !== list.map((m) => m.id).join("\n")) agent.setMessages(list as unknown as Message[]);
  }, [list, opened, busy, agent]);

  const alternatives = useMemo(() => {
    if (!detail || detail.branches.length < 2) return new Map<string, Alternatives>();
    const all = detail.branches.flatMap((b) => {
      const messages = b.branchId === current ? detail.messages : old[b.branchId];
      return messages ? [{ branchId: b.branchId, messages }] : [];
    });
    return alternativesOf(all, shown, current);
  }, [detail, old, shown, current]);

  const remember = useCallback(
    (branchId: string | null) => {
      if (branchId === null) localStorage.removeItem(storageKey(threadId));
      else localStorage.setItem(storageKey(threadId), branchId);
      setChoice(branchId);
    },
    [threadId],
  );

  return {
    at: (messageId) => alternatives.get(messageId),
    choose(branchId) {
      if (branchId === shown) return;
      remember(branchId === current ? null : branchId);
      if (branchId === current) showCurrent();
    },
    elsewhere,
    leave: () => remember(null),
  };
}

/**
 * The messages of the branches left behind, fetched once each: such a branch is the log as it
 * stood when a fork left it, so it never changes.
 */
function useOldBranches(threadId: string, detail: ThreadDetail | null): Record<string, ThreadMessage[]> {
  const [lists, setLists] = useState<Record<string, ThreadMessage[]>>({});
  const asked = useRef(new Set<string>());
  useEffect(() => {
    setLists({});
    asked.current = new Set();
  }, [threadId]);
  useEffect(() => {
    if (!detail || detail.threadId !== threadId) return;
    for (const b of detail.branches) {
      if (b.branchId === detail.branch || asked.current.has(b.branchId)) continue;
      asked.current.add(b.branchId);
      getBranchMessages(threadId, b.branchId)
        .then((messages) => setLists((prev) => ({ ...prev, [b.branchId]: messages })))
        .catch((err: unknown) => {
          asked.current.delete(b.branchId); // asked again with the next row
          console.warn(`could not read branch ${b.branchId}`, err);
        });
    }
  }, [threadId, detail]);
  return lists;
}
