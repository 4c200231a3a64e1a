/**
 * Human in the loop: the agent asks before acting, and the answer is the user's. Today the
 * question is the frontend tool confirm_action (useHumanInTheLoop): its call ends the run, the
 * card in the chat asks, and `{ approved }` goes back as the tool's result in the next run.
 *
 * When backend tools can declare `needsApproval`, only `Tools` changes: drop the frontend tool
 * and render the server's approval request with the same ApprovalCard; the Decisions panel
 * reads the calls from the conversation either way (set DECIDED_TOOL to the backend tool's name).
 */
import { useThreadAgent } from "../thread-agent.ts";
import { useConfirmActionTool } from "../components/FrontendTools.tsx";
import type { DemoFeature } from "./feature.ts";
import { toolCallsOf } from "./tool-calls.ts";

const DECIDED_TOOL = "confirm_action";

function Tools() {
  useConfirmActionTool();
  return null;
}

function Panel() {
  const agent = useThreadAgent();
  const calls = toolCallsOf<{ action: string }>(agent.messages, DECIDED_TOOL);
  return (
    <section className="panel" data-testid="decisions">
      <h2>Decisions</h2>
      {calls.length === 0 && <p className="muted">Nothing asked yet.</p>}
      <ul className="plain">
        {calls.map((c) => {
          const approved = (c.result as { approved?: boolean } | undefined)?.approved;
          const state = c.result === undefined ? "waiting" : approved ? "approved" : "denied";
          return (
            <li key={c.id} data-testid="decision" data-state={state}>
              <span className={`chip chip-${state === "approved" ? "complete" : state === "denied" ? "failed" : "pending"}`}>{state}</span>{" "}
              {c.args.action ?? "…"}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export const humanInTheLoop: DemoFeature = {
  slug: "human-in-the-loop",
  agentId: "human_in_the_loop",
  title: "Human in the loop",
  summary: "Before it acts, the agent asks you (confirm_action, useHumanInTheLoop). The thread waits, durably, until you answer: even across a reload.",
  prompts: ["Delete the old drafts", "Please approve the deploy"],
  Tools,
  Panel,
};
