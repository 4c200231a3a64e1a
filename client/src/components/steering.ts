/**
 * Regenerate, edit and retry: how the app steers a conversation. Both rewrite the client's history and
 * run the agent on it; the server sees a history that leaves the thread's current branch and
 * forks it there (the branch left behind stays on the server, GET /api/threads/:id?branch=).
 *
 * Regenerate drops the answer and everything after the question it answered; an edit keeps the
 * message's id with the new text and drops what came after it. Both say the fork is deliberate
 * (`forwardedProps.threadline.fork`): from a branch left behind, the history carries messages the
 * current branch lacks, which the server would otherwise take for a stale copy. Rejected:
 * deleting messages on the server first, which would lose the old branch and take two requests
 * that can interleave.
 */
import { useAgent, useCopilotKit, type Message } from "@copilotkit/react-core/v2";
import { useCallback } from "react";

/** `beforeRun`: the page is about to run from what it shows (it then follows the new branch). */
/** What a run that leaves the thread's current branch on purpose sends. */
export const FORK = { threadline: { fork: true } };

export function useSteering(agentId: string, beforeRun: () => void = () => {}) {
  const { agent } = useAgent({ agentId });
  const { copilotkit } = useCopilotKit();

  const rerun = useCallback(
    async (history: Message[]) => {
      if (!agent || agent.isRunning) return;
      beforeRun();
      agent.setMessages(history);
      await copilotkit.runAgent({ agent, forwardedProps: FORK });
    },
    [agent, copilotkit, beforeRun],
  );

  /** Answers again the question `answer` replied to. */
  const regenerate = useCallback(
    (answer: Message) => {
      const messages = agent?.messages ?? [];
      const at = messages.findIndex((m) => m.id === answer.id);
      const question = messages.slice(0, at).findLastIndex((m) => m.role === "user");
      if (at < 0 || question < 0) return;
      void rerun(messages.slice(0, question + 1));
    },
    [agent, rerun],
  );

  /** Sends `message` again with new text, in place of it and everything after it. */
  const edit = useCallback(
    (message: Message, text: string) => {
      const messages = agent?.messages ?? [];
      const at = messages.findIndex((m) => m.id === message.id);
      if (at < 0 || message.role !== "user") return;
      void rerun([...messages.slice(0, at), { ...message, content: text }]);
    },
    [agent, rerun],
  );

  /**
   * Runs the last turn again after a failure or a cancel: the history up to the last user message
   * (what the failed or cancelled run left after it is dropped, so the server forks there, as for a
   * regenerate; with nothing after it, the same history is simply run again).
   */
  const retry = useCallback(() => {
    const messages = agent?.messages ?? [];
    const question = messages.findLastIndex((m) => m.role === "user");
    if (question < 0) return;
    void rerun(messages.slice(0, question + 1));
  }, [agent, rerun]);

  return { regenerate, edit, retry };
}
