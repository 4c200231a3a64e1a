/**
 * Every tab follows the thread. The page already follows the thread's live feed across runs
 * (useThread: GET /api/threads/:id/events), and the row it refreshes from it lists the messages
 * of the current branch. When that row has a user or assistant message the chat lacks (a run
 * started in another tab, on another device, through the API), or a run is active that this page
 * did not start, the agent connects: CopilotKit's connect replays the thread and follows the
 * active run's tail, so the chat shows what the thread holds, streamed or settled.
 *
 * Why on the row and not on a run's start: a short run can start and end between two refreshes
 * of the row, and a rule that waited to see it RUNNING never caught it up. Each row (its
 * `lastSeq`) triggers at most one connect, so a message the replay does not bring (a form the
 * row and the replay name differently) cannot make it connect forever.
 */
import type { useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useRef } from "react";
import type { Agent } from "./agent-busy.ts";
import type { ThreadDetail } from "./api.ts";

type CopilotKit = ReturnType<typeof useCopilotKit>["copilotkit"];

/**
 * `following`: false while the page shows a branch other than the current one, or has a run of
 * its own on the way (submitted, not yet running).
 */
export function useCatchUp(agent: Agent, copilotkit: CopilotKit, detail: ThreadDetail | null, busy: boolean, following: boolean): void {
  const done = useRef<{ seq: number; run: string | null }>({ seq: -1, run: null });
  useEffect(() => {
    if (!detail || !following || busy || agent.isRunning) return;
    // An interrupt this page is asked to answer: CopilotKit's client refuses a connect until it is
    // resolved (agent_connect_failed, "pending interrupt(s) not addressed by resume"), and the
    // answer's run brings the chat up to date. Rejected: connecting anyway and ignoring the error.
    if (((agent as { pendingInterrupts?: readonly unknown[] }).pendingInterrupts?.length ?? 0) > 0) return;
    const have = new Set(agent.messages.map((m) => m.id));
    const behind = detail.messages.some((m) => (m.role === "user" || m.role === "assistant") && !have.has(m.id));
    const foreignRun = detail.status === "RUNNING" && detail.activeRunId !== null && detail.activeRunId !== done.current.run;
    if (!(behind && detail.lastSeq !== done.current.seq) && !foreignRun) return;
    done.current = { seq: detail.lastSeq, run: detail.activeRunId };
    // The feed and the status chip still follow the thread if this fails; logged, not shown.
    void copilotkit.connectAgent({ agent }).catch((err: unknown) => console.warn("could not catch up with the thread", err));
  }, [detail, following, busy, agent, copilotkit]);
}

/** Catches up now, whatever was tried before (after the server said this page was behind). */
export function catchUpNow(agent: Agent, copilotkit: CopilotKit): Promise<void> {
  return copilotkit.connectAgent({ agent }).then(() => undefined);
}
