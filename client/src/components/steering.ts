/**
 * Regenerate and edit: how the app steers a conversation. Both rewrite the client's history and
 * run the agent on it; the server sees a history that leaves the thread's current branch and
 * forks it there (the branch left behind stays on the server, GET /api/threads/:id?branch=).
 *
 * Regenerate drops the answer and everything after the question it answered; an edit keeps the
 * message's id with the new text and drops what came after it. Rejected: deleting messages on
 * the server first, which would lose the old branch and take two requests that can interleave.
 */
import { useAgent, useCopilotKit, type Message } from "@copilotkit/react-core/v2";
import { useCallback } from "react";

export function useSteering(agentId: string) {
  const { agent } = useAgent({ agentId });
  const { copilotkit } = useCopilotKit();

  const rerun = useCallback(
    async (history: Message[]) => {
      if (!agent || agent.isRunning) return;
      agent.setMessages(history);
      await copilotkit.runAgent({ agent });
    },
    [agent, copilotkit],
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

  return { regenerate, edit };
}
